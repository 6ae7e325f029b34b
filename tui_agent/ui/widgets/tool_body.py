"""Provides how a tool call reads in its panel: `arguments_view` and `result_view`.

Arguments read as a short form, one `key: value` a line: long strings folded (all of them when the panel is
expanded), paths in the accent colour, commands and code highlighted (a command as shell, code by the file it goes
to, a patch as a diff), numbers and nested values as JSON. `to_user` is left out: the chat shows that sentence.
A result that is JSON is pretty-printed and highlighted, a unified diff is drawn as one (added lines in the
success colour, removed ones in the error colour), a file read by path with a known extension is highlighted as
that language; anything else is plain text. Highlighting is Textual's (`textual.highlight`, Pygments' lexers with
the theme's own colours), on what is shown only, and up to `HIGHLIGHT_CHARS`.

Everything drawn is sanitised first (`reveal` for names and arguments, `sanitize` for the result). Pygments loads
with this module, which the panel imports with its first tool call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pygments.lexers import get_lexer_for_filename
from pygments.token import Token
from pygments.util import ClassNotFound
from textual.content import Content
from textual.highlight import HighlightTheme, highlight

from tui_agent.sanitize import reveal

TO_USER = "to_user"
"""The argument whose sentence the chat shows (`tui_agent.tools.spec.TO_USER`)."""
FOLD_LINES = 4
"""Lines of one argument's value shown while the panel is collapsed."""
FOLD_CHARS = 160
"""Characters of one argument's value shown while the panel is collapsed."""
COLLAPSED_LINES = 8
"""Lines of a result shown while the panel is collapsed."""
COLLAPSED_CHARS = 600
EXPAND_HINT = " (Enter or click to expand)"
HIGHLIGHT_CHARS = 20_000
"""Longer text is drawn plain: highlighting costs about a millisecond per thousand characters."""
PATH_KEYS = frozenset({"path", "file", "filename", "file_path", "filepath", "dir", "directory", "folder", "cwd"})
CODE_KEYS = {"command": "bash", "cmd": "bash", "script": "bash", "shell": "bash", "sql": "sql", "patch": "diff"}
"""Arguments that are code in a known language, by name."""
FILE_CODE_KEYS = frozenset({"code", "content", "contents", "text", "new_text", "old_text", "new_string", "old_string"})
"""Arguments that are code in the language of the file a path argument names (if it names one)."""
DIFF_START = re.compile(r"^(diff --git |--- \S|@@ -\d)", re.MULTILINE)
HUNK = re.compile(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", re.MULTILINE)


class ToolHighlight(HighlightTheme):
    """Textual's highlighting, with a diff's added and removed lines in the theme's success and error colours."""

    STYLES = {
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success",
        Token.Generic.Deleted: "$text-error",
        Token.Generic.Subheading: "$text-accent",
        Token.Generic.Heading: "bold",
    }


def fold(text: str, lines: int, chars: int, hint: str = "") -> tuple[str, Content | None]:
    """The first `lines` lines of `text` (at most `chars` of them), and the note saying what was left out (None
    when nothing was), with `hint` after it."""
    every = text.splitlines()
    if len(every) <= lines and len(text) <= chars:
        return text, None
    shown = "\n".join(every[:lines])[:chars]
    hidden = len(every) - shown.count("\n") - 1
    more = f"… {hidden} more line{'s' if hidden != 1 else ''}" if hidden else "…"
    return shown.rstrip(" "), Content.styled(f"{more}{hint}", "dim italic")


def code(text: str, language: str | None) -> Content:
    """`text` highlighted as `language` (plain when None, or when too long to highlight cheaply)."""
    if language is None or len(text) > HIGHLIGHT_CHARS:
        return Content(text)
    return highlight(text, language=language, theme=ToolHighlight)


def file_language(path: object) -> str | None:
    """The language of the file `path` names, by its extension (None for a folder, or one Pygments does not know)."""
    if not isinstance(path, str) or "." not in path.rsplit("/", 1)[-1]:
        return None
    try:
        lexer = get_lexer_for_filename(path)
    except ClassNotFound:
        return None
    return lexer.aliases[0] if lexer.aliases else None


# -- arguments ---------------------------------------------------------------------------------------------------
def arguments_view(raw: str, parsed: Mapping[str, Any] | None, *, expanded: bool) -> Content:
    """The arguments as `key: value` lines (see the module docstring); the raw text, dimmed, while they are still
    being written (they do not parse yet)."""
    if parsed is None:
        try:
            loaded = json.loads(raw) if raw.strip() else {}
        except ValueError:
            shown, _ = (raw, None) if expanded else fold(raw, FOLD_LINES, FOLD_CHARS)
            return Content.styled(reveal(shown), "dim")
        parsed = loaded if isinstance(loaded, dict) else {"": loaded}
    shown_args = {key: value for key, value in parsed.items() if key != TO_USER}
    if not shown_args:
        return Content.styled("(no arguments)", "dim italic")
    language = next((file_language(parsed[key]) for key in parsed if key in PATH_KEYS), None)
    return Content("\n").join(_argument(key, value, language, expanded) for key, value in shown_args.items())


def _argument(key: str, value: Any, file_lang: str | None, expanded: bool) -> Content:
    """One argument: `key: value` on a line, or `key:` above its value indented when that has several lines."""
    name = Content.styled(f"{reveal(key)}:", "dim") if key else Content()
    text, style, language = _value(key, value, file_lang)
    text, more = (text, None) if expanded else fold(text, FOLD_LINES, FOLD_CHARS)
    drawn = code(text, language) if language else Content.styled(text, style)
    if "\n" in text:
        lines = [Content("  ") + line for line in drawn.split("\n")]
        if more is not None:
            lines.append(Content("  ") + more)
        return Content("\n").join([name, *lines])
    if more is not None:
        drawn = Content.assemble(drawn, " ", more)
    return Content.assemble(name, " " if key else "", drawn)


def _value(key: str, value: Any, file_lang: str | None) -> tuple[str, str, str | None]:
    """The value as text, its style, and the language to highlight it as (None: plain)."""
    if not isinstance(value, str):
        return reveal(json.dumps(value, ensure_ascii=False)), "", "json"
    text = reveal(value)
    lowered = key.lower()
    if lowered in PATH_KEYS or lowered.endswith("_path") or _looks_like_path(value):
        return text, "$text-accent", None
    if lowered in CODE_KEYS:
        return text, "", CODE_KEYS[lowered]
    if lowered in FILE_CODE_KEYS and file_lang is not None:
        return text, "", file_lang
    if lowered == "diff" or looks_like_diff(value):
        return text, "", "diff"
    return text, "", None


def _looks_like_path(value: str) -> bool:
    return value.startswith(("/", "./", "../", "~/")) and len(value) < 300 and not any(c.isspace() for c in value)


# -- results -----------------------------------------------------------------------------------------------------
def looks_like_diff(text: str) -> bool:
    """Whether `text` is a unified diff (a file header or a hunk header, and a hunk)."""
    return DIFF_START.search(text) is not None and HUNK.search(text) is not None


def result_language(text: str, arguments: Mapping[str, Any]) -> tuple[str, str | None]:
    """The result as it is best shown (JSON pretty-printed) and the language to highlight it as (None: plain)."""
    stripped = text.strip()
    if looks_like_diff(text):
        return text, "diff"
    if stripped[:1] in ("{", "[") and len(stripped) <= HIGHLIGHT_CHARS:
        try:
            return json.dumps(json.loads(stripped), indent=2, ensure_ascii=False), "json"
        except ValueError:
            pass
    if "\n" in stripped:  # a file read by path (a one-line sentence about that file stays plain)
        language = next((file_language(arguments[key]) for key in arguments if key in PATH_KEYS), None)
        return text, language
    return text, None


def result_view(text: str, arguments: Mapping[str, Any], *, expanded: bool) -> list[Content]:
    """The lines of a (sanitised) result: highlighted when JSON, a diff or a file's code, folded unless expanded."""
    shown, language = result_language(text, arguments)
    shown, more = (shown, None) if expanded else fold(shown, COLLAPSED_LINES, COLLAPSED_CHARS, EXPAND_HINT)
    return [code(shown, language)] if more is None else [code(shown, language), more]
