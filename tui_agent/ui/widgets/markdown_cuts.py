"""Provides where a markdown text settles and where a growing block is cut: `settled_boundary`, `growing_cut`.

A *settled boundary* ends a complete top-level block: a blank line outside a code fence, followed by a line
(indented three spaces at most) that cannot continue the block before it; text before it never re-flows. A block
that keeps growing past `SPLIT` characters (a long list or code block; `SPLIT_OTHER` for a table, a paragraph or
anything else) is cut where it can go on: at a list item, at a line of code (the code block is closed for the
piece and opened again for the rest), at a table row (the header is repeated for the rest), or at a line or
space of anything else. `MarkdownView` renders each settled piece once and only the tail again.
Both are found by skipping, in C (a regex), the lines that cannot change them: a long list's items and a code
block's lines are never read one by one in Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

SPLIT = 2000
"""Characters after which a growing list or code block is cut into a settled piece and a tail."""
SPLIT_OTHER = 12_000
"""The same for tables, paragraphs and anything else (cutting them shows, so it waits for longer)."""

_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


def _starts_block(line: str, closing_list: bool) -> bool:
    """Can `line`, after a blank line, start a new, independent block?"""
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    if not stripped or stripped[0] == "\t" or indent > 3 or (indent and closing_list):
        return False  # indented: continues a list item or is code belonging to what came before
    # up to three spaces start a block as none do (` - a` after a heading is a list); in a list, the same list
    return not (closing_list and _LIST_ITEM.match(stripped))


_RULE = re.compile(r" {0,3}([-*_])(?: *\1){2,} *")
_MAY_MATTER = re.compile(r"\n(?: {0,3}[`~]|#|[-*_][-*_ ]*\n|[^\S\n]*\n)")
"""The newline before a line that can change what `settled_boundary` knows: a fence, a heading or rule (which
end a list), a blank line. Other lines after a line that is not blank change nothing, and are skipped in C
(a long list's items, a code block's lines)."""
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")


def ends_with_rule(chunk: str) -> bool:
    """Does `chunk` end with a thematic break (which Rich follows with no blank line)?"""
    lines = chunk.rstrip().split("\n")
    if not _RULE.fullmatch(lines[-1]):
        return False
    return len(lines) == 1 or not lines[-2].strip() or lines[-1].strip()[0] != "-"  # else a setext heading


def settled_boundary(text: str, at_least: int | None = None) -> int:
    """Index where the last settled block of `text` ends (0 if none); text before it never re-flows.
    With `at_least`, the first such index from there on (0 if none): settling a long text a piece at a time.

    A boundary is the start of a line (indented three spaces at most) that follows a blank line outside a
    fenced code block and cannot continue the block before it. Only complete lines decide, so a half-streamed line never
    moves a boundary, except that a new block's first characters settle what is before them.
    """
    boundary, fence, previous_blank, block_is_list = 0, "", False, False
    position = 0
    while (end := text.find("\n", position)) != -1:
        line = text[position:end]
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if fence:
            if indent <= 3 and stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
                fence = ""
        elif line.strip():
            if previous_blank and _starts_block(line, block_is_list):
                boundary, block_is_list = position, bool(_LIST_ITEM.match(stripped))
                if at_least is not None and boundary >= at_least:
                    return boundary
            elif position == 0:
                block_is_list = indent <= 3 and bool(_LIST_ITEM.match(stripped))
            elif block_is_list and not indent and (_HEADING.match(line) or _RULE.fullmatch(line)):
                block_is_list = False  # a heading or rule ends the list: a list after it is a new one
            if indent <= 3 and stripped[:3] in ("```", "~~~"):
                fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
        previous_blank = not line.strip() and not fence
        position = end + 1
        if not previous_blank:  # only a line `_MAY_MATTER` finds can change anything: go to the next one
            found = _MAY_MATTER.search(text, end)
            position = found.start() + 1 if found else text.rfind("\n") + 1
    rest = text[position:]
    begun = rest.lstrip(" ")
    if previous_blank and begun.strip() and begun[0] not in "-+*0123456789" and _starts_block(rest, block_is_list):
        boundary = position  # the next block has begun on a line still streaming
    return boundary if at_least is None or boundary >= at_least else 0


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_DELIMITER_ROW = re.compile(r" {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")


@dataclass(frozen=True)
class Cut:
    """Where a growing block is cut: the piece ends at `end`; how the piece is closed and the rest opened."""

    end: int
    goes_on: bool = True
    """The block goes on after the cut (False: a block boundary, or the end of the text)."""
    kind: str = ""
    """"code", "table" or "list" (their rendered rows are trimmed where they were cut), else ""."""
    closing: str = ""
    """Source closing the piece's block (a code fence)."""
    carry: str = ""
    """Source the rest needs in front (a code block's opening line, a table's header)."""


def growing_cut(source: str) -> Cut | None:
    """Where to cut `source`, which starts with a block that keeps growing, if that block is long enough.

    A cut never crosses a line that ends the block without a blank line (a heading after a list, say):
    what comes after such a line is a new block, which needs its separator line."""
    first_end = source.find("\n")
    if first_end == -1:
        return _space_cut(source, len(source))
    first = source[:first_end]
    if fence := _FENCE.match(first):
        return _code_cut(source, first_end, fence.group(1))
    if _LIST_ITEM.match(first):
        return _list_cut(source, first)
    second_end = source.find("\n", first_end + 1)
    if "|" in first and second_end != -1 and _DELIMITER_ROW.fullmatch(source[first_end + 1 : second_end]):
        end = _line_cut(
            source, max(SPLIT_OTHER, second_end + 1), lambda line: "|" in line, lambda line: "|" not in line
        )
        return Cut(end, kind="table", carry=source[: second_end + 1]) if end else None
    quote = first.startswith(">")
    end = _line_cut(
        source,
        SPLIT_OTHER,
        lambda line: line[:1].isalnum() or (quote and line[:1] == ">"),
        lambda line: _interrupts(line) and not (quote and line[:1] == ">"),
    )
    return Cut(end) if end else _space_cut(source, first_end)


def _interrupts(line: str) -> bool:
    """Does `line` end a paragraph or list without a blank line (a heading, fence, quote, rule, HTML)?"""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped:
        return False
    return (stripped[0] in "#>`~<" and bool(re.match(r"#{1,6}(?:\s|$)|>|`{3}|~{3}|<", stripped))) or bool(
        _RULE.fullmatch(line)
    )


def _line_cut(
    source: str,
    at: int,
    can_start: Callable[[str], bool],
    ends: Callable[[str], bool],
    may_end: re.Pattern[str] | None = None,
) -> int:
    """The first complete line from `at` on that `can_start` a piece, unless a line `ends` the block first.
    `may_end` finds the newline before each line that may end the block: those before `at` are the only ones
    looked at (the others are skipped in C)."""
    position = source.find("\n") + 1
    while position and (end := source.find("\n", position)) != -1:
        line = source[position:end]
        if ends(line):
            return 0
        if position >= at and can_start(line):
            return position
        position = end + 1
        if may_end is not None and position < at:
            found = may_end.search(source, end)
            if found is None or found.start() + 1 >= at:  # none before `at`: on from the first line after it
                if at > len(source):
                    return 0
                position = at if source[at - 1] == "\n" else source.find("\n", at) + 1  # 0: no more lines
            else:
                position = found.start() + 1
    return 0


def _space_cut(source: str, first_end: int) -> Cut | None:
    """One long first line: cut after a space followed by a word (which cannot start another kind of block)."""
    if first_end <= SPLIT_OTHER:
        return None
    position = source.find(" ", SPLIT_OTHER, first_end)
    while position != -1 and position + 1 < first_end:
        if source[position + 1].isalnum():
            return Cut(position + 1)
        position = source.find(" ", position + 1, first_end)
    return None


def _list_cut(source: str, first: str) -> Cut | None:
    marker = first[: _LIST_ITEM.match(first).end()].strip()[-1:]  # type: ignore[union-attr]

    def same_list(line: str) -> bool:
        item = _LIST_ITEM.match(line)
        return item is not None and item.group().strip()[-1:] == marker and not _RULE.fullmatch(line)

    def ends(line: str) -> bool:
        return _interrupts(line) or (_LIST_ITEM.match(line) is not None and not same_list(line))

    end = _line_cut(source, SPLIT, same_list, ends, _may_end_list(marker))
    return Cut(end, kind="list") if end else None


@cache
def _may_end_list(marker: str) -> re.Pattern[str]:
    """The newline before a line that may end a list of `marker` items: one that may interrupt it (see
    `_interrupts`) or be an item of another kind. An item of its own (not a rule: it holds more than its marker
    and spaces) cannot."""
    if marker in "-*":
        own = rf"\{marker}[ \t](?![{marker} ]*\n)"
    elif marker == "+":
        own = r"\+[ \t]"
    else:
        own = rf"\d{{1,9}}\{marker}[ \t]"
    return re.compile(rf"\n(?!{own})(?: {{0,3}}[#>`~<]| {{0,3}}[-*_][-*_ ]*\n|[-+*]|\d)")


def _code_cut(source: str, opener_end: int, fence: str) -> Cut | None:
    """A line inside the still open code block, both it and the line before holding code (a piece's code is
    stripped at its end by Rich, so a cut after a blank line would lose it)."""
    if len(source) <= SPLIT:
        return None
    position, previous = opener_end + 1, ""
    while (end := source.find("\n", position)) != -1:
        line = source[position:end]
        if line.lstrip(" ").startswith(fence) and not line.strip().strip(fence[0]):
            return None  # closed: what follows settles as blocks do
        if position >= SPLIT and line.strip() and previous.strip():
            return Cut(position, kind="code", closing=fence + "\n", carry=source[: opener_end + 1])
        position, previous = end + 1, line
    return None
