"""Provides `Check`, one finding of `tui-agent doctor`, and the line it prints as."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One thing checked: how it went, what it was, the detail, and on a problem what to do about it."""

    level: Level
    what: str
    detail: str
    fix: str | None = None

    def lines(self) -> list[str]:
        """`ok|warn|fail  <what>  <detail>`, then the fix indented under it for a problem."""
        head = f"{self.level:<4}  {self.what}  {self.detail}"
        return [head, f"      -> {self.fix}"] if self.fix and self.level != "ok" else [head]


def failed(checks: list[Check]) -> bool:
    return any(check.level == "fail" for check in checks)
