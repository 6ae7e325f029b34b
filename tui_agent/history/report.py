"""Provides `OpenReport`: what happened while opening the history (and since), as sentences for the user."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class OpenReport:
    """Facts about opening the database; `notices()` turns them into sentences."""

    path: Path | None
    read_only: bool = False
    in_memory: bool = False
    moved_aside: Path | None = None
    not_ours: str | None = None
    """Why the file moved aside was not a tui-agent history file (None: it was damaged)."""
    newer_schema: int | None = None
    """The schema version of a database from a newer tui-agent (opened read-only)."""
    tightened: list[str] = field(default_factory=list)
    """History files whose group/other permissions were taken off, as `name old -> new`."""
    backup: Path | None = None
    migrated_from: int | None = None
    interrupted_messages: int = 0
    interrupted_tool_calls: int = 0
    not_saved: str | None = None
    """What was still unsaved when the store closed (those changes are lost)."""
    whole_file_checked: bool = False
    """Opening ran `PRAGMA quick_check` over the whole file (`check_policy` says when)."""
    known_good_since: float | None = None
    """When the file was last checked whole and found good (None: not known good; no stamp is left)."""
    runtime: list[str] = field(default_factory=list)
    """Sentences added after opening (disk full, writes saved again...)."""

    def add(self, notice: str) -> None:
        """Record a notice that happened after opening."""
        self.runtime.append(notice)

    def alarms(self) -> list[str]:
        """The notices worth repeating on stderr once the full-screen app has gone: a file moved aside, changes
        that could not be saved."""
        return self._moved() + ([] if self.not_saved is None else [self.not_saved])

    def _moved(self) -> list[str]:
        if self.moved_aside is None:
            return []
        if self.not_ours is not None:
            return [
                f"{self.path} was not a tui-agent history file ({self.not_ours}); it was moved aside to "
                f"{self.moved_aside} (with its -wal/-shm files), untouched, and a fresh one was started."
            ]
        return [
            f"The history database was damaged; it was moved aside to {self.moved_aside} "
            f"(with its -wal/-shm files) and a fresh one was started at {self.path}."
        ]

    def notices(self) -> list[str]:
        """Everything the user should be told, oldest first."""
        out = self._moved()
        if self.in_memory:
            out.append(
                f"History could not be created at {self.path}; sessions from this run are kept in memory "
                "only and will be lost when tui-agent exits."
            )
        if self.newer_schema is not None:
            out.append(
                f"{self.path} is from a newer tui-agent (schema {self.newer_schema}); opened read-only — "
                "this session will not be saved. Past sessions can be read, searched and exported."
            )
        elif self.read_only:
            out.append(
                f"The history database {self.path} is read-only: past sessions can be read, but "
                "changes in this run are kept in memory only and will not be saved."
            )
        if self.tightened:
            out.append(
                "History files were readable by other users; their permissions were tightened: "
                f"{', '.join(self.tightened)}."
            )
        if self.migrated_from is not None:
            where = f" (backup at {self.backup})" if self.backup else ""
            out.append(f"The history database was upgraded from schema version {self.migrated_from}{where}.")
        if self.interrupted_messages:
            out.append(
                f"{_count(self.interrupted_messages, 'reply', 'replies')} cut off by an earlier exit "
                f"{_was(self.interrupted_messages)} marked interrupted; the text saved before it is kept."
            )
        if self.interrupted_tool_calls:
            out.append(
                f"{_count(self.interrupted_tool_calls, 'tool call', 'tool calls')} left unfinished by an "
                f"earlier exit {_was(self.interrupted_tool_calls)} marked interrupted; "
                "they will not be run again."
            )
        return out + self.runtime


def _count(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


def _was(n: int) -> str:
    return "was" if n == 1 else "were"
