import sys

from metapkg.cli.main import main

sys.exit(main())
