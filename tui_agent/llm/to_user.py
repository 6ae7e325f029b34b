"""Provides `ToUserDecoder`: streams the decoded `to_user` string out of partial tool-call argument JSON.

The arguments arrive as fragments of one JSON object. The decoder follows the object's top level just
closely enough to find the `to_user` key, wherever it is, and emits its string value as it arrives with
escapes (including `\\uXXXX` and surrogate pairs) resolved, however the fragments split the text. A
`to_user` that is null or not a string is ignored; invalid JSON makes the decoder go quiet, never raise.
The complete arguments are parsed separately with `json.loads` once the call is done.
"""

from __future__ import annotations

import json
import re
from typing import Any

START, KEY_OR_END, KEY, COLON, VALUE, TO_USER, SKIP, AFTER_VALUE, DONE = range(9)
SPACE = " \t\r\n"
STRING_SPECIAL = re.compile(r'["\\]')
STRUCTURAL = re.compile(r'["{}\[\],]')
SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class ToUserDecoder:
    """Feed argument fragments with `feed`; each call returns the `to_user` text decoded from that fragment."""

    __slots__ = ("state", "key", "escape", "high", "depth", "in_string", "skip_escape")

    def __init__(self) -> None:
        self.state = START
        self.key: list[str] = []
        self.escape = ""
        """A backslash escape split across fragments, kept until complete."""
        self.high = ""
        """A decoded high surrogate waiting for its low half."""
        self.depth = 0
        self.in_string = False
        self.skip_escape = False

    @property
    def finished(self) -> bool:
        """True once the object closed or turned out not to be JSON: nothing more will be emitted."""
        return self.state == DONE

    def feed(self, text: str) -> str:
        """Consume one fragment; return the `to_user` text it completes (often empty)."""
        if self.state == TO_USER and not self.escape and not self.high and STRING_SPECIAL.search(text) is None:
            return text  # the common fragment: inside `to_user`, nothing to decode (once a fragment: kept short)
        out: list[str] = []
        pos, end = 0, len(text)
        while pos < end and self.state != DONE:
            state = self.state
            if state == TO_USER:
                pos = self._string(text, pos, out)
            elif state == SKIP:
                pos = self._skip(text, pos)
            elif state == KEY:
                pos = self._key(text, pos)
            else:
                pos = self._punctuation(text, pos)
        return "".join(out)

    def _punctuation(self, text: str, pos: int) -> int:
        char = text[pos]
        if char in SPACE:
            return pos + 1
        state = self.state
        if state == START:
            self.state = KEY_OR_END if char == "{" else DONE
        elif state == KEY_OR_END:
            self.state = KEY if char == '"' else DONE
            self.key = []
        elif state == COLON:
            self.state = VALUE if char == ":" else DONE
        elif state == VALUE:
            if char == '"' and self._key_is_to_user():
                self.state = TO_USER
            else:
                self.state, self.depth, self.in_string = SKIP, 0, False
                return pos  # the skipper reads this character as the start of the value
        elif state == AFTER_VALUE:
            self.state = KEY_OR_END if char == "," else DONE
        return pos + 1

    def _key_is_to_user(self) -> bool:
        raw = "".join(self.key)
        if raw == "to_user":
            return True
        if "\\" not in raw:
            return False
        try:
            return bool(json.loads(f'"{raw}"') == "to_user")
        except ValueError:
            return False

    def _key(self, text: str, pos: int) -> int:
        """Collect the raw key text up to its closing quote (escapes kept raw, decoded at the end)."""
        while pos < len(text):
            if self.skip_escape:
                self.key.append(text[pos])
                self.skip_escape = False
                pos += 1
                continue
            found = STRING_SPECIAL.search(text, pos)
            if found is None:
                self.key.append(text[pos:])
                return len(text)
            self.key.append(text[pos : found.start()])
            if found.group() == '"':
                self.state = COLON
                return found.end()
            self.key.append("\\")
            self.skip_escape = True
            pos = found.end()
        return pos

    def _skip(self, text: str, pos: int) -> int:
        """Pass over a value that is not `to_user` (any nesting), stopping after it."""
        while pos < len(text):
            if self.in_string:
                if self.skip_escape:
                    self.skip_escape, pos = False, pos + 1
                    continue
                found = STRING_SPECIAL.search(text, pos)
                if found is None:
                    return len(text)
                pos = found.end()
                if found.group() == "\\":
                    self.skip_escape = True
                else:
                    self.in_string = False
                    if self.depth == 0:
                        self.state = AFTER_VALUE
                        return pos
                continue
            found = STRUCTURAL.search(text, pos)
            if found is None:
                return len(text)
            char, pos = found.group(), found.end()
            if char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth < 0:  # the top-level object closed right after a scalar value
                    self.state = DONE
                    return pos
                if self.depth == 0:
                    self.state = AFTER_VALUE
                    return pos
            elif self.depth == 0:  # a comma after a scalar value
                self.state = KEY_OR_END
                return pos
        return pos

    def _string(self, text: str, pos: int, out: list[str]) -> int:
        """Decode `to_user` string content into `out` until the closing quote or the end of the fragment."""
        end = len(text)
        while pos < end:
            if self.escape:
                pos = self._continue_escape(text, pos, out)
                if self.state != TO_USER:
                    return end  # an invalid escape: the rest is not JSON
                continue
            found = STRING_SPECIAL.search(text, pos)
            stop = end if found is None else found.start()
            if stop > pos:
                self._flush_high(out)
                out.append(text[pos:stop])
            if found is None:
                return end
            if found.group() == '"':
                self._flush_high(out)
                self.state = AFTER_VALUE
                return found.end()
            self.escape = "\\"
            pos = found.end()
        return pos

    def _continue_escape(self, text: str, pos: int, out: list[str]) -> int:
        escape = self.escape
        need = 6 if len(escape) >= 2 and escape[1] == "u" else 2
        if len(escape) == 1:
            need = 6 if text[pos] == "u" else 2
        take = need - len(escape)
        escape += text[pos : pos + take]
        pos += min(take, len(text) - pos)
        if len(escape) < need:
            self.escape = escape
            return pos
        self.escape = ""
        self._emit_escape(escape, out)
        return pos

    def _emit_escape(self, escape: str, out: list[str]) -> None:
        if escape[1] != "u":
            decoded = SIMPLE_ESCAPES.get(escape[1])
            if decoded is None:
                self.state = DONE  # not JSON; stay quiet from here on
                return
            self._flush_high(out)
            out.append(decoded)
            return
        try:
            code = int(escape[2:], 16)
        except ValueError:
            self.state = DONE
            return
        if self.high and 0xDC00 <= code <= 0xDFFF:
            out.append((self.high + chr(code)).encode("utf-16", "surrogatepass").decode("utf-16"))
            self.high = ""
            return
        self._flush_high(out)
        if 0xD800 <= code <= 0xDBFF:
            self.high = chr(code)
        else:
            out.append(chr(code))

    def _flush_high(self, out: list[str]) -> None:
        # A high surrogate not followed by a low one stays a lone surrogate, as json.loads leaves it.
        if self.high:
            out.append(self.high)
            self.high = ""


def schema_has_to_user(tools: list[dict[str, Any]]) -> bool:
    """Whether any tool schema has a `to_user` parameter (only then is argument text decoded for it)."""
    for tool in tools:
        parameters = (tool.get("function") or {}).get("parameters") or {}
        if "to_user" in (parameters.get("properties") or {}):
            return True
    return False
