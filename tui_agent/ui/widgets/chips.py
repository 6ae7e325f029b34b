"""Provides `chips_line`: the chips of what a message or a tool call carries (`[image image-1 69 B]`), on one
line under it; the strip above the prompt draws each as a widget of its own (`attachment_chips`).

Its own small module: a tool's panel is drawn in the first frame, and the strip's widgets are not.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from tui_agent.payloads import AttachmentRef
from tui_agent.sanitize import sanitize


def chips_line(refs: Sequence[AttachmentRef]) -> Content:
    """The chips of `refs` on one line, as a message or a tool panel shows what it carries."""
    return Content.styled(" ".join(sanitize(ref.label) for ref in refs), "bold $accent")
