"""The cuts of a long reply are found by skipping, in C, the lines that cannot change them: the boundaries and
list cuts found that way are the ones a plain line-by-line reading finds (the rules, written out here as they
read before the skipping), on texts of every kind of line."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tui_agent.ui.widgets.markdown_cuts import SPLIT, Cut, growing_cut, settled_boundary

LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
RULE = re.compile(r" {0,3}([-*_])(?: *\1){2,} *")
HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")


def starts_block(line: str, closing_list: bool) -> bool:
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    if not stripped or stripped[0] == "\t" or indent > 3 or (indent and closing_list):
        return False
    return not (closing_list and LIST_ITEM.match(stripped))


def boundary_by_lines(text: str, at_least: int | None = None) -> int:
    """`settled_boundary`, every line read."""
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
            if previous_blank and starts_block(line, block_is_list):
                boundary, block_is_list = position, bool(LIST_ITEM.match(stripped))
                if at_least is not None and boundary >= at_least:
                    return boundary
            elif position == 0:
                block_is_list = indent <= 3 and bool(LIST_ITEM.match(stripped))
            elif block_is_list and not indent and (HEADING.match(line) or RULE.fullmatch(line)):
                block_is_list = False
            if indent <= 3 and stripped[:3] in ("```", "~~~"):
                fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
        previous_blank = not line.strip() and not fence
        position = end + 1
    rest = text[position:]
    begun = rest.lstrip(" ")
    if previous_blank and begun.strip() and begun[0] not in "-+*0123456789" and starts_block(rest, block_is_list):
        boundary = position
    return boundary if at_least is None or boundary >= at_least else 0


def interrupts(line: str) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped:
        return False
    return bool(re.match(r"#{1,6}(?:\s|$)|>|`{3}|~{3}|<", stripped)) or bool(RULE.fullmatch(line))


def list_cut_by_lines(source: str) -> int:
    """Where a list that `source` starts with is cut, every line read (0: not cut)."""
    first = source[: source.find("\n")]
    match = LIST_ITEM.match(first)
    assert match is not None
    marker = match.group().strip()[-1:]

    def same_list(line: str) -> bool:
        item = LIST_ITEM.match(line)
        return item is not None and item.group().strip()[-1:] == marker and not RULE.fullmatch(line)

    position = source.find("\n") + 1
    while position and (end := source.find("\n", position)) != -1:
        line = source[position:end]
        if interrupts(line) or (LIST_ITEM.match(line) is not None and not same_list(line)):
            return 0
        if position >= SPLIT and same_list(line):
            return position
        position = end + 1
    return 0


KINDS = [
    "- ", "* ", "+ ", "1. ", "22) ", "-\t", "-", "- - -", "* * *", "___", "---", " - ", "   * ", "    - ",
    "## ", "#", "> ", "```", "~~~", "   ```", "<div>", "", "  ", "\t", "text ", "| a |", "-- ", "1.", "+",
]  # fmt: skip
LINE = st.tuples(st.sampled_from(KINDS), st.text(alphabet="ab -*`#", max_size=6), st.integers(0, 90)).map(
    lambda kind: kind[0] + kind[1] + "w" * kind[2] if kind[2] % 3 else kind[0] + kind[1]
)
ITEM = st.sampled_from(["- a", "* b", "+ c", "1. d", "7) e"])


def long_text(first: str, lines: list[str], plain: int) -> str:
    """`first`, then `plain` items like it (a long list), with `lines` spread among them."""
    body = [f"{first} {'x' * (n % 70)}" for n in range(plain)]
    for index, line in enumerate(lines):
        body.insert((index * 7919) % (len(body) + 1), line)
    return first + "\n" + "\n".join(body) + "\n"


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(ITEM, st.lists(LINE, max_size=12), st.integers(0, 120), st.integers(0, 6000))
@example("- a", ["", "## h"], 60, 0)
@example("1. d", ["- - -"], 80, 10)
def test_skipping_finds_what_reading_every_line_finds(first: str, lines: list[str], plain: int, at: int) -> None:
    text = long_text(first, lines, plain)
    assert settled_boundary(text) == boundary_by_lines(text)
    assert settled_boundary(text, at) == boundary_by_lines(text, at)
    assert settled_boundary(text[:at]) == boundary_by_lines(text[:at]), "a text still streaming"
    cut = growing_cut(text)
    assert (cut.end if isinstance(cut, Cut) else 0) == list_cut_by_lines(text)
    assert (cut.kind if isinstance(cut, Cut) else "list") == "list"


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(LINE, max_size=80))
@example(["- a", "## a heading ends the list", "", "- b", ""])
@example(["- a", "---", "", "- b", ""])
@example(["text", "", "```", "", "x", "```", "", "- b", ""])
@example(["text", "", "~~~", "", "x", "~~~", "", "- b", ""])
def test_boundaries_of_any_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    for at in (None, 0, len(text) // 3, len(text) // 2):
        assert settled_boundary(text, at) == boundary_by_lines(text, at)
