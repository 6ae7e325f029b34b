"""Provides `pause_team`: the person asks the team working now to let them speak (F8, or the palette).

The team finishes the member speaking now, then stops with "paused after <member> for your message"; the
person's next prompt (typed now it waits in the queue, sent as the team stops) goes to the team, which goes on
where it paused (`AgentsPort.pause_team`). AutoGen's human in the loop, between speakers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_agent.agent.port import ChatBackend

NO_TEAM = "No team is working now: F8 lets you speak between a team's members while it works."
ASKED = "The team pauses after the member speaking now. Type your message: the team goes on with it."


def pause_team(backend: ChatBackend | None, notify: Callable[[str], None]) -> bool:
    """Ask the team working now to pause after its current speaker, and say so; False (said too) when none works."""
    if backend is None or not backend.pause_team():
        notify(NO_TEAM)
        return False
    notify(ASKED)
    return True
