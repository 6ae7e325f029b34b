"""Provides `split_front_matter` (`FrontMatter`): the `---` YAML block at the top of a Markdown file, read with
PyYAML's safe loader, and the body after it. The one reader of Claude Code's and opencode's command files
(`tui_agent.commands.command_files`) and of the agent-skills `SKILL.md` (`tui_agent.agents.skills`).

Values are kept as the text written: every scalar is a string (`1.10`, `no` and `2024-01-01` stay what they say,
not a number, a boolean or a date), a list is a list of strings, and a nested map (a skill's `metadata:`) is left
out, since nothing here reads one. Files written for other tools are not always valid YAML
(`argument-hint: [pr] [branch]`, `description: Review: bugs first`): when the block does not load, each
top-level key is loaded on its own, and one that still does not is kept as its line's text. A block that cannot
be read is a sentence in `problems`, never an exception.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import yaml

FrontValue = str | list[str]
FENCE = "---"
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$")


class _NotYaml(Exception):
    """The text does not load as YAML."""


@functools.cache
def _text_loader() -> type[yaml.SafeLoader]:
    """The safe loader with no implicit types: a plain scalar is the string written (`version: 1.10` is "1.10")."""
    import yaml  # deferred: PyYAML takes ~20 ms to import, and only a file with front matter needs it

    class TextLoader(yaml.SafeLoader):
        yaml_implicit_resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = {}

    return TextLoader


@dataclass
class FrontMatter:
    """The keys of a file's front matter, its body after the block, and a sentence per part not understood."""

    values: dict[str, FrontValue] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    """Each key's value as written on its line, unquoted (`argument-hint: [pr] [branch]` is a hint, not a list)."""
    body: str = ""
    problems: list[str] = field(default_factory=list)

    def text(self, key: str) -> str | None:
        """The value of `key` as one line of text (a list joined with spaces), or None when absent or empty."""
        value = self.values.get(key)
        if isinstance(value, list):
            value = " ".join(value)
        return value.strip() or None if value is not None else None

    def names(self, key: str) -> list[str]:
        """The value of `key` as a list of words (a string split on commas and spaces)."""
        value = self.values.get(key)
        if value is None:
            return []
        items = value if isinstance(value, list) else re.split(r"[,\s]+", value)
        return [item.strip() for item in items if item.strip()]


def split_front_matter(text: str) -> FrontMatter:
    """`text`'s front matter (when it starts with a `---` line and has a closing one) and its body, as written."""
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        return FrontMatter(body=text)
    end = next((index for index, line in enumerate(lines[1:], 1) if line.strip() == FENCE), None)
    if end is None:
        problem = "the front matter opened by `---` on the first line is never closed by `---`"
        return FrontMatter(body=text, problems=[problem])
    matter = FrontMatter(body="".join(lines[end + 1 :]))
    block = [line.rstrip("\r\n") for line in lines[1:end]]
    entries, stray = _entries(block)
    matter.raw = {key: _as_written(key_lines[0]) for key, (_, key_lines) in entries.items()}
    if (plain := _plain_lines(block)) is not None:  # the usual block: read as YAML reads it, without PyYAML
        matter.values = plain
        return matter
    try:
        loaded = _load("\n".join(block))
    except _NotYaml:
        matter.problems.extend(f"front matter line {number} is not `key: value`: left out" for number in stray)
        _read_entries(entries, matter)
        return matter
    if isinstance(loaded, dict):
        matter.values = _strings(loaded)
    elif loaded is not None:
        matter.problems.append("the front matter is not a list of `key: value` lines: left out")
    return matter


_PLAIN_LINE = re.compile(r"([A-Za-z_][\w-]*):[ ]+([A-Za-z0-9_(/.][^\t]*?)[ ]*")
"""`key: value`, the value a plain scalar that cannot start anything else: a letter, digit, `_`, `(`, `/`, `.`."""


def _plain_lines(block: list[str]) -> dict[str, FrontValue] | None:
    """The block's values when every line is `key: plain text` (a different key each) — what PyYAML with the
    text loader gives for it, the string written — else None, and PyYAML reads the block. The shipped skill and
    most command files are such blocks; PyYAML's import alone is ~15 ms of every start."""
    values: dict[str, FrontValue] = {}
    for line in block:
        found = _PLAIN_LINE.fullmatch(line)
        if found is None:
            return None
        key, value = found.groups()
        if key in values or ": " in value or " #" in value or value.endswith(":") or not value.isprintable():
            return None  # a mapping, a comment, a key ending the line, characters YAML refuses: PyYAML decides
        values[key] = value
    return values


def _load(text: str) -> object:
    import yaml  # deferred: as in `_text_loader`

    try:
        return yaml.load(text, Loader=_text_loader())  # a SafeLoader: it builds plain values, never objects
    except yaml.YAMLError as error:
        raise _NotYaml from error


def _entries(block: list[str]) -> tuple[dict[str, tuple[int, list[str]]], list[int]]:
    """Each top-level key's first line number in the file and its lines (its own, and the indented, blank,
    comment and `- item` lines after it); and the numbers of the lines that belong to no key."""
    entries: dict[str, tuple[int, list[str]]] = {}
    stray: list[int] = []
    current: list[str] | None = None
    for number, line in enumerate(block, 2):
        belongs = not line.strip() or line[:1].isspace() or line.startswith(("#", "- ")) or line == "-"
        found = None if belongs else _KEY.match(line)
        if found is not None:
            current = [line]
            entries[found.group(1)] = (number, current)
        elif current is not None and belongs:
            current.append(line)
        elif line.strip() and not line.startswith("#"):
            stray.append(number)
    return entries, stray


def _read_entries(entries: dict[str, tuple[int, list[str]]], matter: FrontMatter) -> None:
    """The block is not valid YAML: each key on its own, and a key that still is not kept as its line's text."""
    for key, (number, key_lines) in entries.items():
        try:
            loaded = _load("\n".join(key_lines))
        except _NotYaml:
            loaded = None
        if isinstance(loaded, dict) and key in loaded:
            matter.values.update(_strings({key: loaded[key]}))
            continue
        if matter.raw[key]:
            matter.values[key] = matter.raw[key]
        rest = [line for line in key_lines[1:] if line.strip() and not line.lstrip().startswith("#")]
        if rest or not matter.raw[key]:
            lines = f"lines {number}-{number + len(key_lines) - 1}" if len(key_lines) > 1 else f"line {number}"
            kept = "its first line kept as text" if matter.raw[key] else "left out"
            matter.problems.append(f"front matter `{key}` ({lines}) is not valid YAML: {kept}")


def _strings(loaded: dict[object, object]) -> dict[str, FrontValue]:
    """The loaded keys as strings and lists of strings; a nested map, or a list's nested item, is left out."""
    values: dict[str, FrontValue] = {}
    for key, value in loaded.items():
        if isinstance(value, str):
            values[str(key)] = value
        elif value is None:
            values[str(key)] = ""
        elif isinstance(value, list):
            values[str(key)] = [item for item in value if isinstance(item, str)]
    return values


def _as_written(line: str) -> str:
    """The value on a key's line as written: a quoted string unquoted, else the text up to a ` # comment`."""
    found = _KEY.match(line)
    raw = (found.group(2) or "") if found else ""
    if raw[:1] in ("'", '"'):
        try:
            loaded = _load(raw)
        except _NotYaml:
            loaded = None
        if isinstance(loaded, str):
            return loaded
    return re.sub(r"\s+#.*$", "", raw)
