"""Provides the line that says why a team stopped: in the log as the team stops (`TeamStopped`), and again when
the session is shown later, after each run's last message (`stop_lines`: every run's stored reason and rounds;
for a stop kept from before the rounds were stored, the rounds counted from the replies of that run).

A run of a team is the person's prompt and the members' replies after it (each reply names its member). A
member's turn is its replies in a row, each but the last with tool calls; every round starts with the same
speaker (the first member, or the router), so the rounds are that speaker's turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tui_agent.status import Role

if TYPE_CHECKING:  # loaded with the first page
    from tui_agent.agent.records import Message, TeamStop


def stop_line(team: str, reason: str, rounds: int | None) -> str:
    """ "Team writer-critic stopped after 2 round(s): critic said APPROVED." (no rounds when not known)."""
    played = f" after {rounds} round(s)" if rounds else ""
    return f"{f'Team {team}' if team else 'The team'} stopped{played}: {reason}."


def stop_lines(messages: Sequence[Message], stops: Mapping[str, TeamStop]) -> dict[int, str]:
    """Where the stop line of each team run in `stops` (by the message it stopped after) goes among `messages` (a
    page, oldest first): the index of the message it follows -> the line. A stop stored without its rounds
    counts them from the replies of its run, when the page holds its prompt."""
    found: dict[int, str] = {}
    for at, message in enumerate(messages):
        if (stop := stops.get(message.id)) is not None:
            rounds = stop.rounds if stop.rounds is not None else _rounds(_run_up_to(messages, at))
            found[at] = stop_line(stop.team, stop.reason, rounds)
    return found


def _run_up_to(messages: Sequence[Message], last: int) -> list[Message]:
    """The replies of the team run that ends at `messages[last]` (none when its prompt is not in the page)."""
    prompt = next((i for i in range(last, -1, -1) if messages[i].role is Role.USER), None)
    return [] if prompt is None else [m for m in messages[prompt + 1 : last + 1] if m.role is Role.ASSISTANT]


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
