"""Provides the line that says why a team stopped: in the log as the team stops (`TeamStopped`), and again when
the session is shown later, after the team's last reply (`resumed_stop`: the stored reason, the rounds counted
from the replies of that run).

A run of a team is the person's prompt and the members' replies after it (each reply names its member). A
member's turn is its replies in a row, each but the last with tool calls; every round starts with the same
speaker (the first member, or the router), so the rounds are that speaker's turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui_agent.status import Role

if TYPE_CHECKING:  # loaded with the first page
    from tui_agent.history.models import Message


def stop_line(team: str, reason: str, rounds: int | None) -> str:
    """ "Team writer-critic stopped after 2 round(s): critic said APPROVED." (no rounds when not known)."""
    played = f" after {rounds} round(s)" if rounds else ""
    return f"{f'Team {team}' if team else 'The team'} stopped{played}: {reason}."


def resumed_stop(messages: Sequence[Message], stop: tuple[str, str]) -> tuple[int, str] | None:
    """Where the stop line of `stop` (team, reason) goes among `messages` (a page, oldest first): after the
    message at the index returned, the newest member reply; None when the page holds no member reply."""
    replies = [i for i, message in enumerate(messages) if message.role is Role.ASSISTANT and message.agent]
    if not replies:
        return None
    last = replies[-1]
    prompt = next((i for i in range(last, -1, -1) if messages[i].role is Role.USER), None)
    run = [] if prompt is None else [m for m in messages[prompt + 1 : last + 1] if m.role is Role.ASSISTANT]
    return last, stop_line(*stop, _rounds(run))


def _rounds(run: Sequence[Message]) -> int | None:
    """The rounds a run of a team's replies played (None: the run's start is not in the page)."""
    if not run:
        return None
    turns = [
        message.agent
        for before, message in zip([None, *run], run, strict=False)
        if before is None or before.agent != message.agent or not before.tool_calls
    ]
    return turns.count(turns[0])
