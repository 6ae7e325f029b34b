"""Provides `LoadProblem`: something that went wrong while finding or loading tools, for a person to fix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoadProblem:
    """Which file (or package) and what went wrong with it, as one sentence."""

    file: str
    message: str
    warning: bool = False
    """Something to know rather than to fix (the tool still works, e.g. its description was cut)."""

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"
