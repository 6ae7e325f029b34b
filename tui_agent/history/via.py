"""Provides `Via`: a method of an object that is one of its parts' methods, so callers keep one name for it.

`HistoryStore` is made of parts that own their state; `rename_session = Via(_sessions, Sessions.rename_session)`
in its class body makes `store.rename_session(...)` call `store.sessions.rename_session(...)`, with the part's
signature (checked by mypy) and docstring. It is a class attribute, not a copy per object, so a subclass may
override the method (and call `super()`), and a test may set and delete it on one object.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

Host = TypeVar("Host")
Part = TypeVar("Part")
P = ParamSpec("P")
R = TypeVar("R")


class Via(Generic[Host, Part, P, R]):
    """The method `method` of the part `part(host)` returns, bound to that part."""

    def __init__(self, part: Callable[[Host], Part], method: Callable[Concatenate[Part, P], R]) -> None:
        self._part = part
        self._method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, host: None, owner: type[Any] | None = None) -> Via[Host, Part, P, R]: ...

    @overload
    def __get__(self, host: Host, owner: type[Any] | None = None) -> Callable[P, R]: ...

    def __get__(self, host: Host | None, owner: type[Any] | None = None) -> Via[Host, Part, P, R] | Callable[P, R]:
        if host is None:  # looked up on the class (help(), introspection)
            return self
        bound: Callable[P, R] = MethodType(self._method, self._part(host))
        return bound
