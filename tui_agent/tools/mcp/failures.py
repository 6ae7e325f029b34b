"""Provides `explain` and `last_line`: a server's failure as one sentence a person can act on.

The SDK reports start-up failures wrapped in nested exception groups (a task group per transport and per
session); the leaf is what happened. The server's own last words are usually in its stderr log.
"""

from __future__ import annotations

from pathlib import Path

from tui_agent.sanitize import REPLACEMENT, sanitize

OUR_NOTE = "tui-agent: "
"""Starts the lines we add to a server's log (never taken for the server's own last words)."""
OUR_NOTE_LOGGED = OUR_NOTE + "server log "
"""Starts a log message the server sent over MCP (`notifications/message`), as its log keeps it: not stderr."""
STRAY_SHOWN = 80
"""Characters of a stray stdout line quoted (sanitised) in what the user is told."""

CONNECTION_CLOSED = -32000
"""The SDK's `MCPError` code for a connection that ended (the server exited or hung up)."""


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (possibly nested) exception groups, outermost order."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def is_connection_closed(error: BaseException) -> bool:
    return getattr(error, "code", None) == CONNECTION_CLOSED


def explain(error: BaseException, *, command: str | None, url: str | None, startup_timeout: float) -> str:
    """One sentence for a server that could not start (or stopped), from the most telling leaf."""
    found = leaves(error)
    leaf = next((item for item in found if not isinstance(item, TimeoutError)), found[0])
    if isinstance(error, TimeoutError) or all(isinstance(item, TimeoutError) for item in found):
        return f"did not finish starting within {startup_timeout:g} s (startup_timeout)"
    if isinstance(leaf, FileNotFoundError) and command is not None:
        return f"the command {command!r} was not found"
    if isinstance(leaf, PermissionError) and command is not None:
        return f"the command {command!r} cannot be run (permission denied)"
    if is_connection_closed(leaf):
        return "exited during start-up" if command is not None else f"{url} closed the connection"
    message = str(leaf) or type(leaf).__name__
    if url is not None and "connect" in type(leaf).__name__.lower():
        return f"could not connect to {url} ({message})"
    return f"{type(leaf).__name__}: {message}" if str(leaf) else message


def last_line(log: Path, since: int = 0) -> str | None:
    """The last non-blank line the server wrote to its log after byte `since` (None when there is none; our own
    notes in it are not the server's)."""
    try:
        with log.open("rb") as file:
            file.seek(since)
            text = file.read()[-4096:].decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith(OUR_NOTE)]
    return lines[-1][:200] if lines else None


def stray_sentence(line: str, *, stdio: bool) -> str:
    """What a server did, writing `line` where JSON-RPC was expected (its start quoted, sanitised: a server
    may write escape codes); bytes that were not UTF-8 arrive as U+FFFD."""
    shown = sanitize(line.strip())
    shown = shown if len(shown) <= STRAY_SHOWN else shown[: STRAY_SHOWN - 1] + "…"
    what = "bytes that are not UTF-8 JSON-RPC" if REPLACEMENT in line else "a line that is not JSON-RPC"
    where = "on stdout" if stdio else "in its reply"
    return f"{'wrote' if stdio else 'sent'} {what} {where}: {shown!r}"
