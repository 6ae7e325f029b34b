"""Provides `to_text` and `cap_output`: a tool's return value as the bounded text the model sees."""

from __future__ import annotations

import json
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
