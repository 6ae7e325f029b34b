"""Provides `unified_diff`, `line_counts` and `change_line`: a `FileChange` shown as people read one.

One place for what the approval dialog, the tool panel, `-p`'s stderr lines and the export show of a change:
a unified diff (`--- a/path`, `+++ b/path`, hunks with three lines of context), and `path +N −M` (lines added
and removed). Content that is not UTF-8 text is shown as "binary content", never decoded into noise.
"""

from __future__ import annotations

import difflib

from tui_agent.payloads import FileChange


def _lines(data: bytes | None) -> list[str] | None:
    """The text lines of `data` (ends kept); [] for no file; None when it is not UTF-8 text."""
    if data is None:
        return []
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8-sig").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def line_counts(change: FileChange) -> tuple[int, int]:
    """Lines added and removed by `change` (a binary file counts as one line each way when it changed)."""
    before, after = _lines(change.before), _lines(change.after)
    if before is None or after is None:
        return (int(change.after is not None), int(change.before is not None))
    added = removed = 0
    for line in difflib.unified_diff(before, after, n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def change_line(change: FileChange) -> str:
    """`path +N −M`: the one line saying what a change did (the panel's title, `-p`'s stderr)."""
    added, removed = line_counts(change)
    return f"{change.path}  +{added} −{removed}"


def unified_diff(change: FileChange) -> str:
    """`change` as a unified diff; a line saying so for binary content."""
    before, after = _lines(change.before), _lines(change.after)
    old = "/dev/null" if change.before is None else f"a/{change.path}"
    new = "/dev/null" if change.after is None else f"b/{change.path}"
    if before is None or after is None:
        return f"--- {old}\n+++ {new}\n(binary content changed)\n"
    lines = []
    for line in difflib.unified_diff(before, after, old, new):
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(lines)
