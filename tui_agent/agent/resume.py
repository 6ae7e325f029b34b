"""Provides `ResumeRequest` and `apply_resume`: `--continue` / `--resume ID` applied to a freshly built agent.

Both front ends use it: the app shows a failure inline and starts a fresh session; `-p` prints the
sentence and exits 1. Nothing here imports the engine: the agent arrives built.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tui_agent.agent.agent import Agent
    from tui_agent.history.models import Session

NOTHING_TO_CONTINUE = "There is no earlier session to continue; starting a new one."


class ResumeFailedError(LookupError):
    """The session asked for does not exist; the message says so and what to do."""


class ResumeRequest(NamedTuple):
    """Which stored session to continue: the most recent (`latest`) or the one with `session_id`.

    A NamedTuple rather than a frozen dataclass: it is made before the first frame, and the class costs a
    sixth as much to create (~0.15 ms against ~1 ms).
    """

    session_id: str | None = None
    latest: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ResumeRequest | None:
        """The request in `--continue` / `--resume ID`, or None when neither was given."""
        session_id = getattr(args, "resume", None)
        if session_id:
            return cls(session_id=session_id)
        if getattr(args, "continue_session", False):
            return cls(latest=True)
        return None


async def apply_resume(agent: Agent, request: ResumeRequest | None) -> tuple[Session | None, str | None]:
    """Resume what `request` names: (the session, None), or (None, a notice) when there was nothing to resume.

    Raises `ResumeFailedError` when a given id matches no session.
    """
    if request is None:
        return None, None
    session_id = request.session_id
    if session_id is None:
        recent = await agent.list_sessions(1)
        if not recent:
            return None, NOTHING_TO_CONTINUE
        session_id = recent[0].id
    session = await agent.store.get_session(session_id)
    if session is None:
        raise ResumeFailedError(f"There is no session {session_id!r} to resume (see `tui-agent sessions list`).")
    return await agent.resume(session.id), None
