"""Provides `Via`: a method of an object that is one of its parts' methods, so callers keep one name for it.

`HistoryStore` is made of parts that own their state; `rename_session = Via(_sessions, Sessions.rename_session)`
in its class body makes `store.rename_session(...)` call `store.sessions.rename_session(...)`, with the part's
signature (checked by mypy) and docstring. It is a class attribute, not a copy per object, so a subclass may
override the method (and call `super()`), and a test may set and delete it on one object. The first look-up on
an object keeps the bound method in the object's `__dict__`, where later ones find it before the class (this is
not a data descriptor): a call through the store then costs what a call of a plain method does. It is not kept
when `super()` reached it from a subclass that overrides the name, which would hide the override.
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
        self._name = ""
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._name = name

    @overload
    def __get__(self, host: None, owner: type[Any] | None = None) -> Via[Host, Part, P, R]: ...

    @overload
    def __get__(self, host: Host, owner: type[Any] | None = None) -> Callable[P, R]: ...

    def __get__(self, host: Host | None, owner: type[Any] | None = None) -> Via[Host, Part, P, R] | Callable[P, R]:
        if host is None:  # looked up on the class (help(), introspection)
            return self
        bound: Callable[P, R] = MethodType(self._method, self._part(host))
        if getattr(type(host), self._name, None) is self:  # not when reached by super() past a subclass's own
            vars(host)[self._name] = bound  # found there from now on; deleting it brings this look-up back
        return bound
