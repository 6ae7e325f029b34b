"""Provides citations in a reply's text — `path:12-30` (or `path:12`), as `search_docs` labels its passages —
found, checked against the files, and drawn as links.

`in_text` finds the citations of a text whose file exists (relative to the working directory, or absolute, or
under `~`), so "12:30" or "example.com:8080" never become links. `linked` underlines each one on a rendered
line and gives it a click action (`app.open_passage(path, first, last)`, which opens the passage viewer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

_CITATION = re.compile(r"(?<![\w./~+-])(?P<path>~?[\w./+-]*\w):(?P<first>\d{1,7})(?:-(?P<last>\d{1,7}))?(?![\w-])")
"""A path (no spaces; `~` at most first), a colon, a line or a range of lines; not inside a longer word."""


@dataclass(frozen=True)
class Citation:
    """Lines `first`..`last` (1-based, inclusive) of the file at `path` (as the reply wrote it)."""

    path: str
    first: int
    last: int

    def file(self, cwd: Path | None = None) -> Path:
        """The cited file: `~` expanded, a relative path taken from `cwd` (the working directory)."""
        return (cwd or Path.cwd()) / Path(self.path).expanduser()

    @property
    def label(self) -> str:
        return f"{self.path}:{self.first}" if self.first == self.last else f"{self.path}:{self.first}-{self.last}"


def spans(text: str, cwd: Path | None = None) -> list[tuple[int, int, Citation]]:
    """The citations in `text` whose file exists, with where each is (start and end offsets)."""
    found = []
    for match in _CITATION.finditer(text):
        first = int(match["first"])
        last = int(match["last"] or first)
        if first < 1 or last < first:
            continue
        citation = Citation(match["path"], first, last)
        try:
            exists = citation.file(cwd).is_file()
        except OSError:  # a name too long, a folder we may not enter: no link
            exists = False
        if exists:
            found.append((match.start(), match.end(), citation))
    return found


def in_text(text: str, cwd: Path | None = None) -> list[Citation]:
    """The citations of `text` whose file exists, in order, each once."""
    return list(dict.fromkeys(citation for _start, _end, citation in spans(text, cwd)))


def may_cite(text: str) -> bool:
    """Whether `text` has anything shaped like a citation (a quick test before looking line by line)."""
    return _CITATION.search(text) is not None


def action(citation: Citation) -> str:
    """The click action opening `citation` (Textual's action syntax: Python literals as arguments)."""
    return f"app.open_passage({citation.path!r}, {citation.first}, {citation.last})"


def linked(line: Strip, cwd: Path | None = None) -> Strip:
    """`line` with each citation it shows underlined and clickable (unchanged when it shows none)."""
    text = line.text
    if ":" not in text:
        return line
    found = spans(text, cwd)
    if not found:
        return line
    cuts: list[int] = []
    styles: list[Style | None] = []
    for start, end, citation in found:
        cuts += [cell_len(text[:start]), cell_len(text[:end])]
        styles += [None, Style(underline=True, meta={"@click": action(citation)})]
    parts = line.divide([*cuts, line.cell_length])
    styles.append(None)
    return Strip.join(
        part if style is None else Strip(Segment.apply_style(list(part), post_style=style), part.cell_length)
        for part, style in zip(parts, styles, strict=True)
    )
