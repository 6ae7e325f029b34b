"""Provides `changes_view`: file changes drawn as people read them, a `path  +N −M` line and a unified diff.

Used by the approval dialog (the diff of an edit not yet made) and the tool panel (the diff a call made). The
diff is difflib's (`tui_agent.file_diffs`), sanitised, with added lines in the success colour and removed ones
in the error colour (`tool_body.code`, Textual's highlighting); a long one is drawn plain past
`tool_body.HIGHLIGHT_CHARS`, and whoever shows it scrolls.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from tui_agent.file_diffs import line_counts, unified_diff
from tui_agent.payloads import FileChange
from tui_agent.sanitize import reveal, sanitize
from tui_agent.ui.widgets.tool_body import code


def change_title(change: FileChange) -> Content:
    """`path  +N −M`, the counts in the success and error colours."""
    added, removed = line_counts(change)
    return Content.assemble(
        (reveal(change.path), "bold $text-accent"),
        "  ",
        (f"+{added}", "$text-success"),
        " ",
        (f"−{removed}", "$text-error"),
    )


def changes_view(changes: Sequence[FileChange]) -> list[Content]:
    """For each change: its title line, then its diff without the `---`/`+++` header (the title says the file)."""
    lines: list[Content] = []
    for change in changes:
        diff = unified_diff(change).split("\n", 2)[-1] if change.before != change.after else "(no change)\n"
        lines.append(change_title(change))
        lines.append(code(sanitize(diff).rstrip("\n"), "diff"))
    return lines
