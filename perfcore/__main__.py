"""`python -m perfcore`: see perfcore.cli."""

import sys

from perfcore.cli import main

sys.exit(main())
