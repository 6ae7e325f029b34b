"""Provides how a tool call's state reads: `STATUS_LABEL` (a symbol and a word per status) and `format_elapsed`,
shared by the tool panels, the sub-agent's lines inside them and the sub-agent's session screen (its own module,
below the panels, so that the sub-agent's lines need not import the panel that holds them)."""

from __future__ import annotations

from tui_agent.status import ToolStatus

STATUS_LABEL = {
    ToolStatus.PENDING: "○ pending",
    ToolStatus.AWAITING_APPROVAL: "? awaiting approval",
    ToolStatus.RUNNING: "◐ running",
    ToolStatus.DONE: "✓ done",
    ToolStatus.FAILED: "✗ failed",
    ToolStatus.DENIED: "⊘ denied",
    ToolStatus.INTERRUPTED: "■ interrupted",
}


def format_elapsed(seconds: float) -> str:
    """Short elapsed time: 0.4s, 12.3s, 2m 05s."""
    seconds = max(seconds, 0.0)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"
