"""``python -m reliability.faults [--long]``: run the fault suite, print its table."""

import sys

from reliability.faults.runner import main

sys.exit(main())
