"""Provides `NextPositions`: where the next message of each session goes, as this store last wrote it.

A write kept in memory (the disk refused it) returns no position, so the store counts on from what it knows:
a session it created or forked starts here, one it has not written to yet starts from its stored count.
Shared by the store's sessions (which start and forget a session) and messages (which take positions).
"""

from __future__ import annotations


class NextPositions:
    """The next position of each session this store has written to."""

    def __init__(self) -> None:
        self._next: dict[str, int] = {}

    def knows(self, session_id: str) -> bool:
        """True when this store has learnt where the session's next message goes."""
        return session_id in self._next

    def at(self, session_id: str) -> int:
        """Where the session's next message goes (KeyError when not known)."""
        return self._next[session_id]

    def set(self, session_id: str, position: int) -> None:
        """The session's next message goes at `position` (a new session's first, after a fork's copies, after
        the messages just added)."""
        self._next[session_id] = position

    def forget(self, session_id: str) -> None:
        """The session is gone (deleted)."""
        self._next.pop(session_id, None)
