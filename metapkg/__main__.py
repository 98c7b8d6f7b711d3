import sys

from metapkg.cli.main import main

if __name__ == "__main__":  # not when a worker process imports the main module again
    sys.exit(main())
