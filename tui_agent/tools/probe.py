"""Imports one plugin in a process of its own: `python -m tui_agent.tools.probe (file PATH | entry-point NAME)`.

Run by `tui_agent.tools.journal` on the plugins that were being imported when an earlier run ended, to
tell the one that ended it (its probe never reaches the end) from those that were merely in flight. A
plugin that raises is no concern here (the app reports those itself): the probe exits normally either way.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tui_agent.tools.discovery import ENTRY_POINT_GROUP
from tui_agent.tools.loader import import_path

SURVIVED = "tui-agent-probe: the import returned"
"""The last line a probe prints once the import is over; a probe without it ended during the import."""


def main(argv: list[str]) -> None:
    """Import the plugin named by `argv`, then say so on stdout and leave at once (no atexit handlers)."""
    kind, target = argv
    try:
        if kind == "file":
            import_path(Path(target))
        else:
            for point in entry_points(group=ENTRY_POINT_GROUP, name=target):
                point.load()
    except BaseException:  # raising is an ordinary failure the app reports: only ending the process counts here
        pass
    os.write(1, f"\n{SURVIVED}\n".encode())  # fd 1 itself: the plugin may have replaced sys.stdout
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
