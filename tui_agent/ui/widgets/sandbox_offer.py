"""Provides `rerun_question`: the approval dialog's body when the OS sandbox blocked a command — what it
blocked, what running it again outside would mean, and the choices: again outside (once, never remembered),
again in the sandbox with the network (when it was off), or keep the blocked result."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Button, Static

from tui_agent.sanitize import reveal
from tui_agent.tool_call import Decision, ToolCall

TITLE = "The sandbox blocked this command: run it again?"
OUTSIDE = "Outside, this one run can write anywhere you can, read your secrets and use the network."
WITH_NETWORK = "With network: still sandboxed, TCP allowed. Nothing is remembered."
NETWORK_ONCE = "Once with network: in the sandbox, TCP allowed for this call only."
"""The approval dialog's line for its fourth choice (a command bound for the sandbox with the network off)."""


def rerun_choices(update: ToolCall) -> frozenset[Decision]:
    """The answers the question offers (`Decision.ALLOW_NETWORK` only when the network was off)."""
    network = {Decision.ALLOW_NETWORK} if update.network_off else set()
    return frozenset({Decision.ALLOW_ONCE, Decision.DENY, *network})


def rerun_question(update: ToolCall) -> ComposeResult:
    """What was blocked, what the choices mean, and their buttons."""
    lines = [Content.styled(reveal(line), "$text-error") for line in update.blocked]
    yield Static(Content("\n").join(lines), id="approval-blocked")
    scope = f"{OUTSIDE} {WITH_NETWORK}" if update.network_off else f"{OUTSIDE} Nothing is remembered."
    yield Static(Content(scope), id="approval-scope")
    with Horizontal(id="approval-buttons", classes="-narrow"):
        yield Button(Content("Run outside (a)"), id="allow_once", variant="warning")
        if update.network_off:
            yield Button(Content("With network (w)"), id="allow_network", variant="primary")
        yield Button(Content("Keep result (d)"), id="deny", variant="error")
