"""Provides `python -m tui_agent`, the same entry point as the `tui-agent` script."""

from tui_agent.cli import main

raise SystemExit(main())
