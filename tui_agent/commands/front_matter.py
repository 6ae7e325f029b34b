"""Provides `split_front_matter`: the `---` block at the top of a Markdown command file, read as the simple YAML
that Claude Code's and opencode's command files use (`key: value`, quoted values, `[a, b]` and `- item` lists).

Not a YAML parser: anything else (nested maps, anchors, multi-line scalars) is reported as a problem by line and
left out, so a file written for another tool still loads with what could be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FrontValue = str | list[str]
FENCE = "---"
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$")


@dataclass
class FrontMatter:
    """The keys of a file's front matter, its body after the block, and a sentence per line not understood."""

    values: dict[str, FrontValue] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    """Each key's value as written on its line (`argument-hint: [pr] [branch]` is a hint, not a YAML list)."""
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
    """`text`'s front matter (when it starts with a `---` line and has a closing one) and its body."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        return FrontMatter(body=text)
    end = next((index for index, line in enumerate(lines[1:], 1) if line.strip() == FENCE), None)
    if end is None:
        return FrontMatter(body=text, problems=["the front matter has no closing --- line: read as text"])
    matter = FrontMatter(body="".join(lines[end + 1 :]))
    _read_block(lines[1:end], matter)
    return matter


def _read_block(lines: list[str], matter: FrontMatter) -> None:
    current: str | None = None  # the key a `- item` line adds to
    for number, line in enumerate(lines, 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and current is not None:
            items = matter.values.setdefault(current, [])
            if isinstance(items, list):
                items.append(_scalar(stripped[2:]))
            continue
        found = _KEY.match(line.rstrip("\r\n")) if not line[:1].isspace() else None
        if found is None:
            matter.problems.append(f"front matter line {number} is not `key: value`: left out")
            current = None
            continue
        key, raw = found.group(1), found.group(2).strip()
        current = key if not raw else None
        matter.values[key] = _value(raw) if raw else []
        matter.raw[key] = _scalar(raw)


def _value(raw: str) -> FrontValue:
    if raw.startswith("[") and raw.endswith("]"):
        return [_scalar(item) for item in raw[1:-1].split(",") if item.strip()]
    return _scalar(raw)


def _scalar(raw: str) -> str:
    """A value: quoted (up to its closing quote), else up to a trailing ` # comment`."""
    raw = raw.strip()
    if raw[:1] in ("'", '"') and (end := raw.find(raw[0], 1)) > 0:
        return raw[1:end]
    return re.sub(r"\s+#.*$", "", raw)
