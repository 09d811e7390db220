"""`python -m fastjcs`: the command line (see fastjcs.cli)."""

from .cli import main

raise SystemExit(main())
