"""`python -m perfcore`: one main, in perfcore.cli."""

import sys

from perfcore.cli import main

sys.exit(main())
