"""Provides `nest`: sessions as a list shows them, each sub-agent's session moved right under its caller's.

The sessions screen and `tui-agent sessions list` both list sessions this way. A sub-agent's session (marked
`Session.sub_agent` by the listing read) goes under its parent when the parent is listed too, one level deeper
per level of delegation; otherwise it stays where it was. A fork is a session of its own, never nested.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from tui_agent.history.models import Session

T = TypeVar("T")


def nest(items: Sequence[T], session_of: Callable[[T], Session]) -> list[tuple[T, int]]:
    """`items` in order, each sub-agent's session right under its parent's (when listed), with its depth."""
    listed = {session_of(item).id for item in items}
    children: dict[str, list[T]] = {}
    for item in items:
        session = session_of(item)
        parent = session.parent_session_id
        if session.sub_agent and parent in listed and parent != session.id:
            children.setdefault(parent or "", []).append(item)
    nested = {id(item) for under in children.values() for item in under}
    ordered: list[tuple[T, int]] = []

    def add(item: T, depth: int) -> None:
        ordered.append((item, depth))
        for child in children.pop(session_of(item).id, []):
            add(child, depth + 1)

    for item in items:
        if id(item) not in nested:
            add(item, 0)
    ordered.extend((item, 0) for under in children.values() for item in under)  # a loop of parents
    return ordered
