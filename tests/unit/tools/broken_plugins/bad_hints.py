"""Broken on purpose: tools whose schema cannot be generated, next to one that is fine."""

from __future__ import annotations

from tui_agent.tools import tool


class Opaque:
    """Not something pydantic can describe as JSON schema."""


@tool(approval="never")
def unresolvable(x: NoSuchType) -> str:  # type: ignore[name-defined]  # noqa: F821
    """The hint names a type that does not exist."""
    return "never"


@tool(approval="never")
def unsupported(x: Opaque) -> str:
    """The hint is a class pydantic cannot describe."""
    return "never"


@tool(approval="never")
def missing_hint(x) -> str:  # type: ignore[no-untyped-def]
    """The parameter has no hint at all."""
    return "never"


@tool(approval="never")
def survivor(text: str) -> str:
    """Loads fine although its neighbours do not."""
    return text
