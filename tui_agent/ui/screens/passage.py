"""Provides `PassageScreen`: the file a citation points at (`path:12-30`), opened at those lines, read-only.

Opened by clicking a citation in a reply, or with `o` on a selected reply (then `n` / `p` step through the
reply's other citations). The cited lines are selected and centred; the whole file is there to scroll. A file
that cannot be shown (gone, a folder, binary, too big, unreadable) is a sentence in its place, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea
from textual.widgets.text_area import Selection

from tui_agent.regular_files import not_regular, open_regular
from tui_agent.sanitize import sanitize
from tui_agent.ui.citations import Citation

MAX_BYTES = 2_000_000
"""Bigger files are not shown (the index skips them too)."""

CSS = """
PassageScreen { align: center middle; }
#passage-dialog {
    width: 95%; max-width: 140; height: 90%;
    border: thick $accent; background: $surface; padding: 0 1;
}
#passage-dialog TextArea { height: 1fr; }
#passage-help { color: $text-muted; height: 1; }
"""


class PassageScreen(ModalScreen[None]):
    """One file at the cited lines; `n` / `p` the reply's next / previous citation, Esc closes."""

    DEFAULT_CSS = CSS
    BINDINGS = [
        Binding("escape", "close", "Close", id="passage.close"),
        Binding("n", "step(1)", "Next citation", id="passage.next"),
        Binding("p", "step(-1)", "Previous citation", id="passage.previous"),
    ]

    def __init__(self, citations: Sequence[Citation], index: int = 0, cwd: Path | None = None) -> None:
        super().__init__()
        self.citations = list(citations)
        self.index = index
        self.cwd = cwd

    @property
    def citation(self) -> Citation:
        return self.citations[self.index]

    def compose(self) -> ComposeResult:
        with Vertical(id="passage-dialog"):
            yield TextArea("", id="passage-text", read_only=True, show_line_numbers=True, soft_wrap=False)
            yield Static(id="passage-help")

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        citation = self.citation
        text, problem = read_text(citation.file(self.cwd))
        area = self.query_one(TextArea)
        area.load_text(text if problem is None else problem)
        count = f" ({self.index + 1} of {len(self.citations)})" if len(self.citations) > 1 else ""
        self.query_one("#passage-dialog").border_title = Content(sanitize(citation.label) + count)
        keys = "n / p: next / previous citation · " if len(self.citations) > 1 else ""
        self.query_one("#passage-help", Static).update(Content(f"{keys}esc: close"))
        if problem is None:
            lines = text.split("\n")
            first = min(citation.first, len(lines)) - 1
            last = min(citation.last, len(lines)) - 1
            area.selection = Selection((last, len(lines[last])), (first, 0))  # the cursor on the first line
            self.call_after_refresh(area.scroll_cursor_visible, center=True)  # once it has a size
        area.focus()

    def action_step(self, step: int) -> None:
        if len(self.citations) > 1:
            self.index = (self.index + step) % len(self.citations)
            self._show()

    def action_close(self) -> None:
        self.dismiss(None)


def read_text(path: Path) -> tuple[str, str | None]:
    """The text of the file at `path`, or ("", why it cannot be shown)."""

    def refuse(info: os.stat_result) -> Exception | None:
        if (kind := not_regular(info.st_mode)) is not None:
            return OSError(f"it is {kind}")
        if info.st_size > MAX_BYTES:
            return OSError(f"it is bigger than {MAX_BYTES // 1_000_000} MB")
        return None

    try:
        with open_regular(path, refuse) as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as error:
        return "", f"{path} cannot be shown: {error.strerror or error}"
    if b"\0" in data[:8192]:
        return "", f"{path} cannot be shown: it is a binary file"
    return data.decode("utf-8", errors="replace"), None
