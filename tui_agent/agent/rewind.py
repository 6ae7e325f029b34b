"""Provides `plan_files`, `restore_files` and `plan_undo`: the files of a session's tree brought to another
point of it — a rewind, a switch to another branch, a regeneration — shown first, then done on confirmation.

A plan says, per file, what the disk holds now and what it will hold (`FileStep`), read once when the plan is
made. A file whose disk content is neither what the tree left in it nor already the wanted one was changed
outside tui-agent since the agent last wrote it: a **conflict**, never overwritten unless the person says so
for that file. Restoring records first (what each file holds now, what it gets: `history/file_states.py`, so
a restore can itself be undone, the person's own edits it replaced included), then puts each file in place
atomically (`tools/restore.py`: the new contents are staged in temporary files while the record commits); a
file that changed again since the preview is left alone and said.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Collection, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from tui_agent.file_diffs import line_counts
from tui_agent.history.file_states import FileMove, Restored
from tui_agent.history.models import Message
from tui_agent.payloads import FileChange
from tui_agent.status import Role
from tui_agent.tools.restore import Seen, Staged, locate, read_seen, seen_now, stage_many


class FileHistory(Protocol):
    """What a rewind uses of the history store."""

    async def file_moves(self, session_id: str, start: str | None, end: str | None) -> list[FileMove]: ...

    async def record_restore(
        self, session_id: str, restore_id: str, to_message: str | None, files: Sequence[Restored]
    ) -> None: ...

    async def last_restore(self, session_id: str) -> tuple[str, list[Restored]] | None: ...


@dataclass(frozen=True)
class FileStep:
    """One file of a plan: where it is, what it holds now and what it is to hold (None: no file)."""

    move: FileMove
    where: str | None
    """The file's resolved path (None: it has none, see `problem`)."""
    now: bytes | None
    problem: str | None = None
    """Why it cannot be restored (it leads out of its folder, it is a folder now...); None: it can."""
    seen: Seen | None = None
    """How the file was when read for the plan: a restore leaves it alone if it changed since."""

    @cached_property
    def shown(self) -> str:
        """The file as the person reads it: relative to the folder tui-agent runs in when inside it (worked out
        once: lists, filters and the restore ask it of each file again and again)."""
        if self.where is None:
            return self.move.path
        where, here = self.where, os.getcwd()  # getcwd() is resolved already: no symlink in it
        inside = where.startswith(here + os.sep) and here != os.sep
        return where[len(here) + 1 :] if inside else where

    @property
    def conflict(self) -> bool:
        """Changed outside tui-agent since the agent last wrote it (neither what the tree left nor the target)."""
        return self.problem is None and self.now != self.move.expected and self.now != self.move.target

    @property
    def change(self) -> FileChange:
        """What restoring it does, from the disk as it is now (for the diff)."""
        return FileChange(self.shown, self.now, self.move.target)

    @property
    def action(self) -> str:
        """In words: "restore", "create", "delete", or why not."""
        if self.problem is not None:
            return f"cannot restore: {self.problem}"
        if self.move.target is None:
            return "delete"
        if self.now is None:
            return "create"
        added, removed = line_counts(self.change)
        return f"+{added} −{removed}"


@dataclass(frozen=True)
class FilesPlan:
    """The files to bring to point `to_message` of session `session_id` (None: before its first message)."""

    session_id: str
    to_message: str | None
    steps: list[FileStep] = field(default_factory=list)

    @property
    def conflicts(self) -> list[FileStep]:
        return [step for step in self.steps if step.conflict]

    @property
    def empty(self) -> bool:
        return not self.steps


@dataclass
class RestoreOutcome:
    """What a restore did: files written, left as they were (the person's choice, or changed again since the
    preview) and failed (with why)."""

    restore_id: str
    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        """One sentence for the person."""
        parts = [f"{len(self.restored)} file{'s' * (len(self.restored) != 1)} restored"]
        if self.kept:
            parts.append(f"{len(self.kept)} kept as on disk ({', '.join(self.kept[:3])})")
        if self.failed:
            parts.append("failed: " + "; ".join(f"{path}: {why}" for path, why in self.failed[:3]))
        return ", ".join(parts) + "."


async def plan_files(history: FileHistory, session_id: str, start: str | None, end: str | None) -> FilesPlan:
    """The files to move from point `start` of the session's tree to point `end`, the disk read now; files
    already as wanted are left out."""
    moves = await history.file_moves(session_id, start, end)
    steps = await asyncio.to_thread(_look, moves)
    return FilesPlan(
        session_id, end, [step for step in steps if step.problem is not None or step.now != step.move.target]
    )


async def plan_undo(history: FileHistory, session_id: str) -> FilesPlan | None:
    """The session's last restore taken back (each file to what it held before it), None when there is none."""
    found = await history.last_restore(session_id)
    if found is None:
        return None
    _, files = found
    moves = [FileMove(file.work_dir, file.path, file.after, file.before) for file in files]
    steps = await asyncio.to_thread(_look, moves)
    return FilesPlan(
        session_id, None, [step for step in steps if step.problem is not None or step.now != step.move.target]
    )


def _look(moves: Sequence[FileMove]) -> list[FileStep]:
    """Each move with where its file is and what it holds now (or why it cannot be restored)."""
    steps: list[FileStep] = []
    folders: dict[str, str] = {}
    for move in moves:
        try:
            where = locate(move.work_dir, move.path, folders)
        except ValueError as error:
            steps.append(FileStep(move, None, None, str(error)))
            continue
        try:
            now, seen = read_seen(where)
            steps.append(FileStep(move, where, now, seen=seen))
        except (OSError, ValueError) as error:
            steps.append(FileStep(move, where, None, _reason(error)))
    return steps


def _reason(error: BaseException) -> str:
    return error.strerror or str(error) if isinstance(error, OSError) else str(error)


async def restore_files(history: FileHistory, plan: FilesPlan, overwrite: Collection[str] = ()) -> RestoreOutcome:
    """Do `plan`: each file that can be restored, a conflict only when its `shown` path is in `overwrite`. The
    restore is recorded before any file is written (an interrupted one can be undone too)."""
    outcome = RestoreOutcome(uuid.uuid4().hex)
    chosen: list[FileStep] = []
    for step in plan.steps:
        if step.problem is not None:
            outcome.failed.append((step.shown, step.problem))
        elif step.conflict and step.shown not in overwrite:
            outcome.kept.append(step.shown)
        else:
            chosen.append(step)
    if chosen:
        files = [_restored(step) for step in chosen]
        # One thread stages the new contents (temporary files, flushed) while the record is committed — the two
        # flushes overlap — then, told the record is on disk, puts them in place: no file is put in place before
        # the record is, and the restore's disk work is one hop to a thread, not two.
        recorded: Future[bool] = Future()
        writing = asyncio.ensure_future(asyncio.to_thread(_write, chosen, recorded, outcome))
        try:
            await history.record_restore(plan.session_id, outcome.restore_id, plan.to_message, files)
        except BaseException:
            recorded.set_result(False)
            await asyncio.shield(writing)  # the staged files removed before the failure is told
            raise
        recorded.set_result(True)
        await writing
    return outcome


def _restored(step: FileStep) -> Restored:
    """The record of restoring `step`, with the names (hashes) of the contents history holds already: the disk
    as the tree left it (or as wanted already) is not hashed again."""
    move = step.move
    now_name = move.expected_name if step.now == move.expected else None
    if now_name is None and step.now == move.target:
        now_name = move.target_name
    return Restored(move.work_dir, move.path, step.now, move.target, now_name, move.target_name)


def _place(step: FileStep) -> str:
    assert step.where is not None  # a step with no place has a problem, never chosen
    return step.where


def _write(steps: Sequence[FileStep], recorded: Future[bool], outcome: RestoreOutcome) -> None:
    """Stage each step's new content, wait for the restore's record, then put them in place (or, the record
    failed, remove them: nothing a person sees is changed)."""
    staged = stage_many([(_place(step), step.move.target) for step in steps])
    if recorded.result():
        _put_in_place(steps, staged, outcome)
    else:
        staged.discard()


def _put_in_place(steps: Sequence[FileStep], staged: Staged, outcome: RestoreOutcome) -> None:
    """Put each step's staged file in place; a file changed again since the preview is left alone."""
    changed: set[int] = set()
    for index, step in enumerate(steps):
        try:
            if seen_now(_place(step)) != step.seen:  # the person's, since the preview: left alone
                changed.add(index)
        except OSError as error:
            staged.errors[index] = error
            changed.add(index)
    written = staged.put_in_place(keep=lambda index: index not in changed)
    for index, (step, failure) in enumerate(zip(steps, written, strict=True)):
        if failure is not None:
            outcome.failed.append((step.shown, _reason(failure)))
        elif index in changed:
            outcome.kept.append(step.shown)
        else:
            outcome.restored.append(step.shown)


@dataclass(frozen=True)
class Rewind:
    """A rewind to a point of the conversation: the files to bring there, and how the conversation goes on from
    it — the next prompt is sent as a new version of `edit_prompt` (None: nothing follows the point, the
    conversation is already there), starting from `prompt_text` (the rewound prompt's own text; "" when the
    rewind is to a reply)."""

    files: FilesPlan
    edit_prompt: str | None
    prompt_text: str = ""


def rewind_point(messages: Sequence[Message], leaf: str | None, chosen: str) -> tuple[str | None, Message | None]:
    """For a rewind from message `chosen` on the branch ending at `leaf`: the point the conversation and files
    go back to, and the prompt that followed it (whose new version comes next). A prompt goes back to before
    itself; a reply to the end of its turn (just before the next prompt; None when no prompt follows)."""
    by_id = {message.id: message for message in messages}
    way: list[Message] = []
    at = by_id.get(leaf) if leaf is not None else None
    while at is not None:
        way.append(at)
        at = by_id.get(at.parent_id) if at.parent_id is not None else None
    way.reverse()
    index = next((i for i, message in enumerate(way) if message.id == chosen), None)
    if index is None:
        raise LookupError("That message is not on the branch shown.")
    if way[index].role is Role.USER:
        return way[index].parent_id, way[index]
    after = next((m for m in way[index + 1 :] if m.role is Role.USER), None)
    return (after.parent_id, after) if after is not None else (way[-1].id, None)
