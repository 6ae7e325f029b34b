"""Provides `split_front_matter`: the `---` header of a Markdown file (a `SKILL.md`) as plain strings, and its body.

Skill files open with YAML front matter. Only its simple shapes are read, without a YAML library: `key: value`
(quoted or not), a value folded over indented lines, the block scalars `|` and `>` (with `-` or `+`), and a
flow list `[a, b]` kept as its text. Nested maps (`metadata:`) and lists under a key are skipped: nothing here
needs them. A file with no front matter has an empty header and is all body.
"""

from __future__ import annotations

import re

FENCE = "---"
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$")
_BLOCK = re.compile(r"^([|>])([-+]?)\d?$")


class FrontMatterError(ValueError):
    """The file opens a front matter block (`---`) and never closes it."""


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The header's keys and values, and the body after it. Raises `FrontMatterError` for an unclosed header."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != FENCE:
        return {}, text
    try:
        end = next(index for index, line in enumerate(lines[1:], 1) if line.strip() == FENCE)
    except StopIteration:
        raise FrontMatterError("the front matter opened by `---` on the first line is never closed by `---`") from None
    return _read(lines[1:end]), "\n".join(lines[end + 1 :]).strip("\n")


def _read(lines: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    index = 0
    while index < len(lines):
        found = _KEY.match(lines[index])
        index += 1
        if found is None:  # an indented line under a skipped key, a comment, a list item
            continue
        key, value = found.group(1), found.group(2) or ""
        more = _indented(lines, index)
        index += len(more)
        if block := _BLOCK.match(value):
            values[key] = _block(more, folded=block.group(1) == ">", chomp=block.group(2))
        elif value:
            values[key] = _unquoted(" ".join([value, *(line.strip() for line in more)]).strip())
        # nothing after the colon: a nested map or list, skipped
    return values


def _indented(lines: list[str], start: int) -> list[str]:
    """The lines from `start` that belong to the key above: indented ones, and blank ones between them."""
    taken: list[str] = []
    for line in lines[start:]:
        if line.strip() and not line[:1].isspace():
            break
        taken.append(line)
    while taken and not taken[-1].strip():
        taken.pop()
    return taken


def _block(lines: list[str], *, folded: bool, chomp: str) -> str:
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    kept = [line[indent:] for line in lines]
    text = _fold(kept) if folded else "\n".join(kept)
    return text if chomp == "-" else text + "\n" if chomp == "+" else text


def _fold(lines: list[str]) -> str:
    """YAML's folding: lines join with a space, a blank line stays a line break."""
    paragraphs, current = [], []
    for line in lines:
        if line.strip():
            current.append(line.strip())
        else:
            paragraphs.append(" ".join(current))
            current = []
    paragraphs.append(" ".join(current))
    return "\n".join(paragraphs)


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return re.sub(r"\s+#.*$", "", value)  # a comment after a plain value
