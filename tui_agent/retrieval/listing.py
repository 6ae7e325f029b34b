"""Keeps each folder set's listing: the paths and stamps the index holds for those folders, in one row.

An unchanged refresh compares a stat a file with what the index holds; read from the `files` table, that is a
row a file through Python's sqlite3 (about a third of the walk's own time). Read back from one row, the paths
joined by NUL and the stamps an array of 64-bit integers, it is two C calls. The row is trusted only while no
write has touched `files` since it was made: every write that does bumps the `generation` counter in its own
transaction, and a listing made at another generation is ignored (and made anew by the refresh that meets it).
"""

from __future__ import annotations

import sqlite3
from array import array

SCHEMA = """
CREATE TABLE IF NOT EXISTS generation (value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS listings (folders TEXT PRIMARY KEY, generation INTEGER, paths TEXT, stamps BLOB)
    WITHOUT ROWID;
INSERT INTO generation SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM generation);
"""
TABLES = ("listings", "generation")


def listed(db: sqlite3.Connection, folders: str) -> dict[str, int] | None:
    """The paths and stamps of the listing of `folders` (a key naming the folder set), if it is still true."""
    row = db.execute(
        "SELECT l.paths, l.stamps FROM listings l, generation g WHERE l.folders = ? AND l.generation = g.value",
        (folders,),
    ).fetchone()
    if row is None:
        return None
    paths = row[0].split("\0") if row[0] else []
    stamps = array("q")
    if len(row[1]) != len(paths) * stamps.itemsize:  # not a listing this code made: as good as none
        return None
    stamps.frombytes(row[1])
    # Made on another machine (another byte order), the stamps are wrong: every file then reads as changed, and
    # is only read again (its hash is the same): slower once, never wrong.
    return dict(zip(paths, stamps, strict=True))


def changed(db: sqlite3.Connection) -> None:
    """Say, inside a write that changes `files`, that every listing is out of date."""
    db.execute("UPDATE generation SET value = value + 1")


def record(db: sqlite3.Connection, folders: str, within: str, patterns: list[str]) -> None:
    """Make the listing of `folders` (the files `within` selects) from `files`; inside the write lock, so that
    the generation it is stamped with is the one of what it read."""
    rows = db.execute(f"SELECT path, stamp FROM files WHERE {within}", patterns).fetchall()
    stamps = array("q", [stamp for _path, stamp in rows])
    db.execute(
        "INSERT OR REPLACE INTO listings SELECT ?, value, ?, ? FROM generation",
        (folders, "\0".join(path for path, _stamp in rows), stamps.tobytes()),
    )
