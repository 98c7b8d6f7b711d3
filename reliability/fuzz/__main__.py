"""``python -m reliability.fuzz [--long]``: run the fuzz suite, print its table."""

import sys

from reliability.fuzz.runner import main

sys.exit(main())
