"""Provides how history keeps the contents of changed files: `digest` (the name a content is stored under),
`store` (each distinct content once per session) and `load` (the bytes of contents by name).

A content is kept whole in `file_blobs`, or — when it is another content of the same session with one span
replaced, as an edit's content after is its content before — as that span in `file_deltas` (schema step 15):
recording a 100 KB edit then stores its few changed bytes, not 100 KB more (issue 29: an edit's record must
cost far less than its write). A delta's base may itself be a delta; after `MAX_DEPTH` of them a content is
kept whole again, so rebuilding one reads a bounded chain. Rebuilt contents are exact: a delta keeps the whole
content's length and is used only when its span was found by comparing the bytes themselves.

Naming a content (`digest`, SHA-256) is then most of what recording costs: `content_names` names each content
once, remembers the last few, and lets an edit start naming its contents while its write is flushed.

Plain functions of a sqlite3 connection, called inside the store's reads and write transactions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tui_agent.content_names import content_name
from tui_agent.history.in_lists import IN_CHUNK, rows_in

MAX_DEPTH = 16
"""The most deltas between a content and a whole one: rebuilding reads at most this many rows and copies."""
SMALLEST_DELTA = 4096
"""A content smaller than this is kept whole: a delta would save little and cost a base to rebuild from."""


def digest(data: bytes) -> str:
    """The name a content is stored under: the SHA-256 of its bytes, in hex (`content_names`)."""
    return content_name(data)


@dataclass(frozen=True)
class Delta:
    """A content as a span of its base: the base's first `head` bytes, `middle`, the base's last `tail`."""

    base: str
    head: int
    tail: int
    middle: bytes


def delta(before: bytes, after: bytes) -> tuple[int, int] | None:
    """How many bytes `after` shares with `before` at its start and at its end (not overlapping), None when
    they leave too much of `after` to be worth a delta."""
    if len(after) < SMALLEST_DELTA:
        return None
    shortest = min(len(before), len(after))
    head = _shared_head(before, after, shortest)
    tail = _shared_tail(before, after, shortest - head)
    if len(after) - head - tail > len(after) // 2:
        return None
    return head, tail


def _shared_head(before: bytes, after: bytes, most: int) -> int:
    """The length of the longest shared start, at most `most`: a binary search whose probes compare only the
    bytes not yet known equal (n bytes compared in all, no copies)."""
    view = memoryview(after)
    low, high = 0, most  # before[:low] == after[:low]; the answer is in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if before.startswith(view[low:middle], low):
            low = middle
        else:
            high = middle - 1
    return low


def _shared_tail(before: bytes, after: bytes, most: int) -> int:
    """The length of the longest shared end, at most `most` (as `_shared_head`, from the end)."""
    view, end_before, end_after = memoryview(after), len(before), len(after)
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if before.endswith(view[end_after - middle : end_after - low], 0, end_before - low):
            low = middle
        else:
            high = middle - 1
    return low


def store(
    conn: sqlite3.Connection,
    session_id: str,
    whole: Mapping[str, bytes],
    spans: Mapping[str, tuple[str, bytes, bytes]] | None = None,
) -> None:
    """Keep each content once in `session_id`: `whole` by name, and `spans` (name -> its base's name, the
    base's bytes, its own bytes) as a delta against a base that is kept too (whole when not already there)."""
    spans = spans or {}
    present = _present(conn, session_id, [*whole, *spans, *(base for base, _, _ in spans.values())])
    rows = [(session_id, name, len(data), data) for name, data in whole.items() if name not in present]
    for name in whole:
        present.setdefault(name, 0)
    deltas = []
    for name, (base, base_data, data) in spans.items():
        if base not in present:
            rows.append((session_id, base, len(base_data), base_data))
            present[base] = 0
        if name in present:  # kept already (or the same content as its base)
            continue
        shared = delta(base_data, data) if present[base] < MAX_DEPTH else None
        if shared is None:
            rows.append((session_id, name, len(data), data))
            present[name] = 0
            continue
        head, tail = shared
        depth = present[name] = present[base] + 1
        deltas.append((session_id, name, len(data), base, head, tail, depth, data[head : len(data) - tail]))
    if rows:  # (an empty executemany still prepares and steps its statement)
        conn.executemany("INSERT OR IGNORE INTO file_blobs (session_id, hash, size, data) VALUES (?, ?, ?, ?)", rows)
    if deltas:
        conn.executemany(
            "INSERT OR IGNORE INTO file_deltas (session_id, hash, size, base_hash, head, tail, depth, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            deltas,
        )


def _present(conn: sqlite3.Connection, session_id: str, names: list[str]) -> dict[str, int]:
    """Which of `names` the session keeps already, each with its depth (0: whole)."""
    wanted = sorted(set(names))
    found: dict[str, int] = {}
    for start in range(0, len(wanted), IN_CHUNK):
        chunk = wanted[start : start + IN_CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT hash, depth FROM file_deltas WHERE session_id = ? AND hash IN ({marks}) "
            f"UNION ALL SELECT hash, 0 FROM file_blobs WHERE session_id = ? AND hash IN ({marks})",
            (session_id, *chunk, session_id, *chunk),
        )
        for name, depth in rows:
            found[str(name)] = min(int(depth), found.get(str(name), int(depth)))
    return found


@dataclass(frozen=True)
class _Stored:
    size: int
    depth: int
    delta: Delta


def load(conn: sqlite3.Connection, names: Iterable[str], sessions: Sequence[str] = ()) -> dict[str, bytes]:
    """The bytes of each content by name (a content is the same whichever session stored it); a content that
    cannot be rebuilt (its rows or its base's gone) is left out.

    `sessions`: where the contents are looked for first, under the tables' key (session, name); only those not
    found there are then looked for by name alone, which scans every session's contents (no index on names)."""
    wanted = set(names)
    found: dict[str, bytes] = {}
    stored: dict[str, _Stored] = {}
    deltas = _has_deltas(conn)
    missing = set(wanted)  # names (and bases of deltas found) not found yet
    for scope in ([list(sessions)] if sessions else []) + [[]]:
        pending, missing = missing, set()
        while pending:
            found.update(_whole(conn, pending, scope))
            pending -= found.keys()
            new = _deltas(conn, pending, scope) if pending and deltas else {}
            stored.update(new)
            missing |= pending - new.keys()
            pending = {d.delta.base for d in new.values()} - found.keys() - stored.keys()
    for name in wanted - found.keys():
        _rebuild(name, found, stored)
    return {name: found[name] for name in wanted if name in found}


def _rebuild(name: str, found: dict[str, bytes], stored: Mapping[str, _Stored]) -> None:
    """Rebuild `name` into `found` from its chain of deltas, when every link is there. The chain ends: each
    name's row is its shallowest, and a delta's base in its own session is shallower than it."""
    chain: list[str] = []
    while name not in found and name in stored and len(chain) <= len(stored):
        chain.append(name)
        name = stored[name].delta.base
    if name not in found:
        return
    for link in reversed(chain):
        row = stored[link]
        d = row.delta
        base = found[d.base]
        if d.head + d.tail > len(base):
            return
        data = base[: d.head] + d.middle + base[len(base) - d.tail :]
        if len(data) != row.size:
            return
        found[link] = data


def _whole(conn: sqlite3.Connection, names: Iterable[str], sessions: Sequence[str] = ()) -> dict[str, bytes]:
    sql = f"SELECT hash, data FROM file_blobs WHERE {_scoped(sessions)}hash IN ({{marks}})"
    rows = rows_in(conn, sql, sorted(set(names)), leading=sessions)
    return {str(name): bytes(data) for name, data in rows}


def _deltas(conn: sqlite3.Connection, names: Iterable[str], sessions: Sequence[str] = ()) -> dict[str, _Stored]:
    """The shallowest delta row of each name (of `sessions`; any session's when none)."""
    sql = (
        "SELECT hash, size, depth, base_hash, head, tail, data FROM file_deltas "
        f"WHERE {_scoped(sessions)}hash IN ({{marks}})"
    )
    found: dict[str, _Stored] = {}
    for name, size, depth, base, head, tail, data in rows_in(conn, sql, sorted(set(names)), leading=sessions):
        if str(name) not in found or found[str(name)].depth > depth:
            found[str(name)] = _Stored(int(size), int(depth), Delta(str(base), int(head), int(tail), bytes(data)))
    return found


def _scoped(sessions: Sequence[str]) -> str:
    """The condition on the tables' key's first column for `sessions` ("" for any session)."""
    return f"session_id IN ({','.join('?' * len(sessions))}) AND " if sessions else ""


def copy_bases(conn: sqlite3.Connection, source_id: str, fork_id: str) -> None:
    """Copy into `fork_id`, from `source_id`, the deltas of the contents the fork keeps whole or names and the
    bases they are built on, down to whole contents: a fork's contents rebuild without its source."""
    if not _has_deltas(conn):
        return
    while True:
        deltas = conn.execute(
            "INSERT OR IGNORE INTO file_deltas (session_id, hash, size, base_hash, head, tail, depth, data) "
            "SELECT ?, d.hash, d.size, d.base_hash, d.head, d.tail, d.depth, d.data FROM file_deltas d "
            "WHERE d.session_id = ? AND d.hash IN (SELECT base_hash FROM file_deltas WHERE session_id = ?)",
            (fork_id, source_id, fork_id),
        ).rowcount
        whole = conn.execute(
            "INSERT OR IGNORE INTO file_blobs (session_id, hash, size, data) "
            "SELECT ?, b.hash, b.size, b.data FROM file_blobs b "
            "WHERE b.session_id = ? AND b.hash IN (SELECT base_hash FROM file_deltas WHERE session_id = ?)",
            (fork_id, source_id, fork_id),
        ).rowcount
        if deltas <= 0 and whole <= 0:
            return


def copy_named(conn: sqlite3.Connection, source_id: str, fork_id: str, names_sql: str) -> None:
    """Copy into `fork_id` the contents `source_id` keeps under the names `names_sql` selects, whole or as
    deltas with their bases."""
    conn.execute(
        "INSERT OR IGNORE INTO file_blobs (session_id, hash, size, data) "
        f"SELECT ?, b.hash, b.size, b.data FROM file_blobs b WHERE b.session_id = ? AND b.hash IN ({names_sql})",
        (fork_id, source_id),
    )
    if not _has_deltas(conn):
        return
    conn.execute(
        "INSERT OR IGNORE INTO file_deltas (session_id, hash, size, base_hash, head, tail, depth, data) "
        "SELECT ?, d.hash, d.size, d.base_hash, d.head, d.tail, d.depth, d.data FROM file_deltas d "
        f"WHERE d.session_id = ? AND d.hash IN ({names_sql})",
        (fork_id, source_id),
    )
    copy_bases(conn, source_id, fork_id)


def _has_deltas(conn: sqlite3.Connection) -> bool:
    """Whether this database keeps deltas (a read-only file of an older version does not)."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_deltas'").fetchone()
    return row is not None
