"""Provides `edit_files`: the offline model's phrases that create and change files (the edit tools).

"create hello.py that prints hi" calls `write_file` with a one-line program in the file's language (Python,
JavaScript, shell; the bare text otherwise); "create notes.txt containing 'some text'" (or "with 'text'")
writes that text. "in hello.py change hi to hello" (or "replace hi with hello") calls `edit_file` with
one `{old, new}` edit; quote either side when it has spaces: "in a.py change 'x = 1' to 'x = 2'".
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from tui_agent.offline.scenario import ToolCallSpec


class Offered(Protocol):
    """An offered tool (`intents.Tool`): its name, and the call it makes, saying `sentence` first."""

    name: str

    def call(self, arguments: dict[str, Any], sentence: str, speak: bool = True) -> ToolCallSpec: ...


FILE = r"[`'\"]?(?P<path>[\w./-]+\.\w+)[`'\"]?"
TEXT = r"(?:`(?P<{0}q>[^`]+)`|\"(?P<{0}d>[^\"]+)\"|'(?P<{0}s>[^']+)'|(?P<{0}w>\S+))"
CREATE = re.compile(
    rf"\b(?:create|make|write)\s+(?:a\s+file\s+(?:called\s+|named\s+)?)?{FILE}\s+"
    rf"(?:(?P<prints>that\s+prints|printing)|containing|with)\s+{TEXT.format('text')}",
    re.IGNORECASE,
)
CHANGE = re.compile(
    rf"\bin\s+{FILE},?\s+(?:change|replace)\s+{TEXT.format('old')}\s+(?:to|with|by)\s+{TEXT.format('new')}",
    re.IGNORECASE,
)
PRINTS = {
    ".py": "print({!r})\n",
    ".js": "console.log({!r});\n",
    ".ts": "console.log({!r});\n",
    ".sh": "echo {!r}\n",
    ".rb": "puts {!r}\n",
}


def _group(found: re.Match[str], name: str) -> str:
    return next(value for kind in "qdsw" if (value := found.group(name + kind)) is not None)


def program(path: str, text: str) -> str:
    """A one-line program printing `text` in the language of `path` (the bare text for other files)."""
    extension = re.search(r"\.\w+$", path)
    template = PRINTS.get(extension.group().lower() if extension else "", "{}\n")
    return template.format(text) if template != "{}\n" else f"{text}\n"


def edit_files(tool: Offered, prompt: str) -> list[ToolCallSpec]:
    """`write_file` for "create FILE that prints TEXT" / "containing TEXT", `edit_file` for "in FILE change
    OLD to NEW", when the tool is offered."""
    if tool.name == "write_file" and (found := CREATE.search(prompt)):
        path, text = found.group("path"), _group(found, "text").rstrip(".!?")
        content = program(path, text) if found.group("prints") else f"{text}\n"
        return [tool.call({"path": path, "content": content}, f"I'll create {path}.")]
    if tool.name == "edit_file" and (found := CHANGE.search(prompt)):
        path, old, new = found.group("path"), _group(found, "old"), _group(found, "new").rstrip(".!?")
        return [tool.call({"path": path, "edits": [{"old": old, "new": new}]}, f"I'll change {path}.")]
    return []
