"""Provides owner tags: which live store wrote a `streaming` message or an unfinished tool call.

On open, only rows whose owner is gone are marked interrupted, so a second tui-agent on the same file
never cuts off a reply the first one is still streaming.
"""

from __future__ import annotations

import os
import uuid

_LIVE_IN_THIS_PROCESS: set[str] = set()
"""Owner tags of stores open in this process (a process-wide fact, like the pid itself)."""


def new_owner() -> str:
    """Return a fresh owner tag `pid:token` and mark it live."""
    owner = f"{os.getpid()}:{uuid.uuid4().hex[:12]}"
    _LIVE_IN_THIS_PROCESS.add(owner)
    return owner


def release(owner: str) -> None:
    """Mark a store's owner tag as gone."""
    _LIVE_IN_THIS_PROCESS.discard(owner)


def is_alive(owner: str | None) -> bool:
    """True while the store that wrote `owner` may still be running."""
    if not owner:
        return False
    pid_text, _, _ = owner.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid():
        return owner in _LIVE_IN_THIS_PROCESS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a process we may not signal exists
    return True
