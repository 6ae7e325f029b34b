"""Provides `parse_docstring`: the summary and the `Args:` descriptions of a Google-style docstring."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Examples?|Notes?):\s*$")
_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


@dataclass(frozen=True)
class ParsedDocstring:
    """The parts of a docstring the schema uses."""

    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split a docstring into its summary (first paragraph) and `Args:` entries."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()):
            break
        summary.append(line.strip())
    return ParsedDocstring(" ".join(summary), _args_section(lines))


def _args_section(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    inside, current = False, ""
    for line in lines:
        stripped = line.strip()
        section = _SECTION.match(stripped)
        if section:
            inside = section.group(1) in ("Args", "Arguments", "Parameters")
            continue
        if not inside or not stripped:
            continue
        entry = _ARG.match(stripped) if not line.startswith(" " * 8) else None
        if entry:
            current = entry.group(1).lstrip("*")
            params[current] = entry.group(2).strip()
        elif current:
            params[current] = f"{params[current]} {stripped}".strip()
    return params
