"""Provides `to_text` and `cap_output`: a tool's return value as the bounded text the model sees.

`capped_text` does both in pieces (a list or dict one item at a time, a long text a slice at a time), so
that, run in a thread, a result of tens of megabytes never holds the interpreter for long in one call:
the event loop (and the UI on it) keeps its turns while the result is measured and cut.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python


def to_text(value: Any) -> str:
    """Strings as they are; models, dicts and lists as JSON; None as an empty result."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    try:
        return json.dumps(value, ensure_ascii=False, default=_jsonable)
    except (TypeError, ValueError):
        return str(value)


def _jsonable(value: Any) -> Any:
    """Models, dataclasses, dates, paths… inside lists and dicts; anything else as its str."""
    try:
        return to_jsonable_python(value)
    except Exception:
        return str(value)


def cap_output(text: str, cap: int) -> str:
    """Keep the first `cap` bytes (UTF-8) and say how many were cut."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= cap:
        return text
    kept = data[:cap].decode("utf-8", errors="ignore")
    cut = len(data) - len(kept.encode("utf-8"))
    return f"{kept}\n[truncated {cut} bytes]"


SLICE = 1 << 20
"""Characters of a long text encoded at a time (about a millisecond each)."""


def capped_text(value: Any, cap: int) -> str:
    """`cap_output(to_text(value), cap)`, computed in pieces (see the module docstring)."""
    kept: list[bytes] = []
    size = 0
    for piece in _pieces(value):
        for start in range(0, len(piece), SLICE):
            data = piece[start : start + SLICE].encode("utf-8", errors="replace")
            if size < cap:
                kept.append(data[: cap - size])
            size += len(data)
    text = b"".join(kept).decode("utf-8", errors="ignore")
    if size <= cap:
        return text
    return f"{text}\n[truncated {size - len(text.encode('utf-8'))} bytes]"


ESCAPE_SLICE = 1 << 16
"""Characters of a long string item escaped for JSON at a time (a few tenths of a millisecond: the encoder
escapes ~200 MB/s, so one 1 MB item in one call held the interpreter for ~5 ms)."""


def _pieces(value: Any) -> Iterator[str]:
    """`to_text(value)` in pieces: the items of a list, or of a dict with string keys, one at a time (a long
    string item a slice at a time)."""
    if isinstance(value, list | tuple) and len(value) > 1:
        yield "["
        for index, item in enumerate(value):
            if index:
                yield ", "
            yield from _item(item)
        yield "]"
    elif isinstance(value, dict) and len(value) > 1 and all(isinstance(key, str) for key in value):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield (", " if index else "") + to_text({key: None})[1:-5]
            yield from _item(item)
        yield "}"
    else:
        yield to_text(value)


def _item(item: Any) -> Iterator[str]:
    """One item of a list or dict as `to_text` writes it inside one."""
    if type(item) is not str or len(item) <= ESCAPE_SLICE:
        yield to_text([item])[1:-1]
        return
    # JSON escapes each character alone, so the slices' escapes joined are the whole string's.
    yield '"'
    for start in range(0, len(item), ESCAPE_SLICE):
        yield json.dumps(item[start : start + ESCAPE_SLICE], ensure_ascii=False)[1:-1]
    yield '"'


def let_go(value: Any) -> None:
    """Empty a big list or dict a slice at a time: freeing a million objects in one call holds the
    interpreter for tens of milliseconds (no other thread, the UI's included, runs meanwhile). Only a value
    nobody else holds (the caller's name for it, this parameter and `getrefcount`'s own: three references):
    a tool may return a list it keeps."""
    if sys.getrefcount(value) > 3:
        return
    if isinstance(value, list):
        while value:
            del value[-10_000:]
    elif isinstance(value, dict):
        for _ in range(len(value)):
            value.popitem()
