"""An example hook plugin (not loaded: it is in `plugins/examples/`). Copy it into your plugin folder
(`tui-agent plugins` shows where) to use it.

Hooks run around agents and tools; each is isolated like a tool: one that raises, or takes more than 5 s,
is reported and skipped, and what it was given goes on unchanged — except a `before_tool` hook, whose exception
(or `Deny(...)`) refuses the call (docs/hooks.md).
"""

from __future__ import annotations

import time
from typing import Any

from tui_agent.tools import Deny, hook


@hook("before_agent")
def brief_critic(agent: str, text: str) -> str | None:
    """Before the critic reads a draft, ask it to keep its notes short (other agents get their input as is)."""
    if agent == "critic":
        return text + "\n\n(Keep your notes to three short lines.)"
    return None  # None: unchanged


@hook("after_agent")
def count_words(agent: str, reply: str) -> None:
    """Watch each agent's reply go by (here: nothing is kept; a real hook could log or collect metrics)."""
    _ = len(reply.split())


@hook("before_tool")
def note_start(name: str, arguments: dict[str, Any], agent: str) -> dict[str, Any] | Deny | None:
    """Before a call is approved and run: the tool's name, its validated arguments (a copy) and whose call it is.
    Return `Deny("why")` (or raise) to refuse it, a new dict to change its arguments, None to let it be."""
    if name == "run_shell" and "rm -rf /" in str(arguments.get("command", "")):
        return Deny(f"{agent} may not remove the root folder")
    _STARTED[name] = time.monotonic()
    return None


@hook("after_tool")
async def stamp_slow_results(name: str, arguments: dict[str, Any], result: str) -> str | None:
    """After a call ran (a failed one too: `result` is its error); a string returned here replaces what the model
    gets."""
    took = time.monotonic() - _STARTED.pop(name, time.monotonic())
    return f"{result}\n(took {took:.1f} s)" if took > 2 else None


_STARTED: dict[str, float] = {}
