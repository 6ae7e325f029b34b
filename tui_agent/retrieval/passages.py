"""Splits a text file into passages along its structure: Markdown headings, code definitions, paragraphs."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PASSAGE_LINES = 60
"""A passage longer than this is cut, so a citation points at a screenful, not a whole file."""

_HEADING = re.compile(r"^#{1,6}\s")
_DEFINITION = re.compile(r"^(?:async\s+def|def|class|function|func|fn|pub\s+fn|export\s+function)\s")
_DEFINITION_FIRST_CHARS = "adcfpe"
"""The first letters of `_DEFINITION`'s words: a line starting otherwise is no definition (no regex run)."""


@dataclass(frozen=True)
class Passage:
    """Lines `first`..`last` (1-based, inclusive) of a file."""

    first: int
    last: int
    text: str


def split(text: str, *, markdown: bool) -> list[Passage]:
    """Return the passages of `text`: a new one starts at a heading (Markdown) or a top-level definition
    (code), or after a blank line once the current one is long enough; none is empty."""
    lines = text.splitlines()
    starts_new, first_chars = (_HEADING, "#") if markdown else (_DEFINITION, _DEFINITION_FIRST_CHARS)
    passages: list[Passage] = []
    start = 0
    for number, line in enumerate(lines):
        # The cheap tests first: this loop runs once per line of every file indexed.
        size = number - start
        if (
            size >= MAX_PASSAGE_LINES
            or (line[:1] in first_chars and starts_new.match(line) is not None)
            or (size >= 20 and not line.strip())
        ) and number > start:
            _add(passages, lines, start, number)
            start = number
    _add(passages, lines, start, len(lines))
    return passages


def _add(passages: list[Passage], lines: list[str], start: int, end: int) -> None:
    """Add lines `start`..`end` (0-based, end excluded) less the blank lines around them, unless all are blank."""
    first = start
    while first < end and not lines[first].strip():
        first += 1
    if first == end:
        return
    last = end - 1
    while not lines[last].strip():
        last -= 1
    passages.append(Passage(first + 1, last + 1, "\n".join(lines[first : last + 1])))
