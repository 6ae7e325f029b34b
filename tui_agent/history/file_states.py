"""Provides `moves_between`, `restores` and `record_restore`: what the files recorded on a session's tree must
become to go from one point of the tree to another, and the record of a restore that did it.

A point is a message (None: before the session's first). The files at a point are the effect of the changes
recorded on the way from the root to it, sub-agents' runs under those calls included. Two points share the way
down to their common ancestor; below it, each file a change touched on either side moves from the content the
side left now (`expected`: the last change's `after`, or the file as it was at the common point) to the content
the other side holds (`target`). A file both sides leave the same does not move. What is on disk is not read
here: comparing it with `expected` (was it changed outside tui-agent?) is the rewind's (`agent/rewind.py`).

Plain functions of a sqlite3 connection, called inside the store's reads and writes.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from tui_agent.history import sub_sessions
from tui_agent.history.file_rows import digest, load_blobs, store_blobs
from tui_agent.history.in_lists import rows_in


@dataclass(frozen=True)
class FileMove:
    """One file to bring from what the tree left in it now to what it holds at the other point.

    `work_dir` is the folder the agent worked in when it changed the file ("" in rows older than that record:
    the folder tui-agent runs in); `path` is relative to it. None content: no file."""

    work_dir: str
    path: str
    expected: bytes | None
    target: bytes | None
    expected_name: str | None = field(default=None, compare=False, repr=False)
    target_name: str | None = field(default=None, compare=False, repr=False)
    """The names (hashes) `expected` and `target` are stored under, when read from history (None: not known):
    a restore recording them does not hash them again."""


@dataclass(frozen=True)
class _Row:
    work_dir: str
    path: str
    before: str | None
    after: str | None


def moves_between(conn: sqlite3.Connection, session_id: str, start: str | None, end: str | None) -> list[FileMove]:
    """The files to move to go from the tree's point `start` to its point `end`, in the order first changed."""
    parents = dict(conn.execute("SELECT id, parent_id FROM messages WHERE session_id = ?", (session_id,)).fetchall())
    down_start, down_end = _way_down(parents, start), _way_down(parents, end)
    shared = 0
    while shared < min(len(down_start), len(down_end)) and down_start[shared] == down_end[shared]:
        shared += 1
    left = _rows_of(conn, session_id, down_start[shared:])
    taken = _rows_of(conn, session_id, down_end[shared:])
    hashes = _moving(left, taken)
    blobs = load_blobs(conn, (h for pair in hashes.values() for h in pair if h is not None), [session_id])
    return [
        FileMove(
            key[0],
            key[1],
            _content(expected, blobs),
            _content(target, blobs),
            _kept(expected, blobs),
            _kept(target, blobs),
        )
        for key, (expected, target) in hashes.items()
    ]


def _moving(left: list[_Row], taken: list[_Row]) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(expected, target) by file for each file whose content differs between the two sides."""
    first_left = _first_before(left)
    first_taken = _first_before(taken)
    last_left = _last_after(left)
    last_taken = _last_after(taken)
    found: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for key in [*first_left, *(k for k in first_taken if k not in first_left)]:
        expected = last_left[key] if key in last_left else first_taken[key]
        target = last_taken[key] if key in last_taken else first_left[key]
        if expected != target:
            found[key] = (expected, target)
    return found


def _first_before(rows: list[_Row]) -> dict[tuple[str, str], str | None]:
    found: dict[tuple[str, str], str | None] = {}
    for row in rows:
        found.setdefault((row.work_dir, row.path), row.before)
    return found


def _last_after(rows: list[_Row]) -> dict[tuple[str, str], str | None]:
    return {(row.work_dir, row.path): row.after for row in rows}


def _content(name: str | None, blobs: dict[str, bytes]) -> bytes | None:
    """The bytes stored under `name` (None: no file). A content whose bytes are gone cannot be brought back:
    a missing blob reads as `b""`, which the rewind then shows as a change it is asked to confirm."""
    return None if name is None else blobs.get(name, b"")


def _kept(name: str | None, blobs: dict[str, bytes]) -> str | None:
    """`name` when its bytes were found (a content read as `b""` in their place is not stored under it)."""
    return name if name in blobs else None


def _way_down(parents: dict[str, str | None], point: str | None) -> list[str]:
    """The messages from the root down to `point` (itself included; [] for before the first)."""
    way: list[str] = []
    seen: set[str] = set()
    while point is not None and point in parents and point not in seen:
        seen.add(point)
        way.append(point)
        point = parents[point]
    return way[::-1]


def _rows_of(conn: sqlite3.Connection, session_id: str, messages: Sequence[str]) -> list[_Row]:
    """The changes recorded on `messages`, in their order down the tree (a call that ran a sub-agent brings
    the sub-agent's changes, every level down, where the call is)."""
    if not messages:
        return []
    subs, wanted = sub_sessions.sub_session_calls(conn, session_id), set(messages)
    by_message: dict[str, list[tuple[int, _Row | str]]] = {}
    sql = (
        "SELECT seq, message_id, COALESCE(work_dir, ''), path, before_hash, after_hash "
        "FROM file_changes WHERE message_id IN ({marks})"
    )
    for seq, message_id, work_dir, path, before, after in rows_in(conn, sql, messages):
        by_message.setdefault(message_id, []).append((seq, _Row(work_dir, path, before, after)))
    for (message_id, _), (sub_id, _) in subs.items():
        if message_id in wanted:
            by_message.setdefault(message_id, []).append((_last_seq(by_message, message_id), sub_id))
    ordered: list[_Row] = []
    for message_id in messages:
        for _, item in sorted(by_message.get(message_id, []), key=lambda pair: pair[0]):
            ordered.extend(_whole_session(conn, item) if isinstance(item, str) else [item])
    return ordered


def _last_seq(by_message: dict[str, list[tuple[int, _Row | str]]], message_id: str) -> int:
    """Where a sub-agent's changes go among its message's own: after them (its call is that message's)."""
    return max((seq for seq, _ in by_message.get(message_id, [])), default=0) + 1


def _whole_session(conn: sqlite3.Connection, session_id: str) -> list[_Row]:
    """Every change of a sub-agent's run along its active branch, its own sub-agents' included."""
    leaf = conn.execute("SELECT active_leaf_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
    parents = dict(conn.execute("SELECT id, parent_id FROM messages WHERE session_id = ?", (session_id,)).fetchall())
    if leaf is None or leaf[0] is None:  # a run stored before the tree: its messages in order
        way = [
            row[0] for row in conn.execute("SELECT id FROM messages WHERE session_id = ? ORDER BY seq", (session_id,))
        ]
    else:
        way = _way_down(parents, str(leaf[0]))
    return _rows_of(conn, session_id, way)


@dataclass(frozen=True)
class Restored:
    """One file of a recorded restore: what was on disk before it and what it wrote (None: no file)."""

    work_dir: str
    path: str
    before: bytes | None
    after: bytes | None
    before_name: str | None = field(default=None, compare=False, repr=False)
    after_name: str | None = field(default=None, compare=False, repr=False)
    """The names (hashes) of `before` and `after` when known (None: worked out from the bytes)."""


def record_restore(
    session_id: str, restore_id: str, to_message: str | None, files: Iterable[Restored]
) -> Callable[[sqlite3.Connection], None]:
    """A write recording restore `restore_id` of `session_id`'s files, each content stored once."""
    wanted = list(files)

    def run(conn: sqlite3.Connection) -> None:
        blobs: dict[str, bytes] = {}
        rows = []
        for file in wanted:
            before = _named(file.before, file.before_name, blobs)
            after = _named(file.after, file.after_name, blobs)
            rows.append((restore_id, session_id, time.time(), to_message, file.work_dir, file.path, before, after))
        store_blobs(conn, session_id, blobs)  # only those the session lacks: a rewind's are mostly stored already
        conn.executemany(
            "INSERT INTO file_restores (restore_id, session_id, made_at, to_message_id, work_dir, path, "
            "before_hash, after_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    return run


def _named(data: bytes | None, known: str | None, blobs: dict[str, bytes]) -> str | None:
    if data is None:
        return None
    name = known or digest(data)
    blobs[name] = data
    return name


def last_restore(conn: sqlite3.Connection, session_id: str) -> tuple[str, list[Restored]] | None:
    """The session's newest restore (its id and files), None when it has none."""
    row = conn.execute(
        "SELECT restore_id FROM file_restores WHERE session_id = ? ORDER BY seq DESC LIMIT 1", (session_id,)
    ).fetchone()
    if row is None:
        return None
    rows = conn.execute(
        "SELECT work_dir, path, before_hash, after_hash FROM file_restores WHERE restore_id = ? ORDER BY seq",
        (row[0],),
    ).fetchall()
    blobs = load_blobs(conn, (h for r in rows for h in r[2:] if h is not None), [session_id])
    return str(row[0]), [Restored(w, p, _content(b, blobs), _content(a, blobs)) for w, p, b, a in rows]


def restores(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, float, str | None, int]]:
    """The session's restores, oldest first: (id, when, the point brought to, how many files)."""
    return [
        (str(r[0]), float(r[1]), r[2], int(r[3]))
        for r in conn.execute(
            "SELECT restore_id, MIN(made_at), MIN(to_message_id), COUNT(*) FROM file_restores "
            "WHERE session_id = ? GROUP BY restore_id ORDER BY MIN(seq)",
            (session_id,),
        )
    ]
