"""Provides `inspect_file` and `not_ours`: is the file at the history path one of ours, and at which schema?

A file is ours when its header carries our `application_id`, or (made before the stamp existed) when it has
no application id, a schema version from before the stamp and exactly the tables that version has; an empty
file is ours too (it becomes a fresh history). Anything else - another program's database, or our file
read through another database's `-wal` - is not, and must never be migrated or written into.

The check reads the header and the table list, which is when SQLite reads a `-wal` beside the file: the
verdict is about what SQLite would see, WAL included.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from tui_agent.history.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    V3_STAMP,
    application_id,
    table_names,
    tables_at,
    user_version,
)

STAMPED_VERSION = MIGRATIONS.index(V3_STAMP) + 1
"""The first schema version that carries our application id."""
PROBE_TIMEOUT = 1.0
"""Seconds to wait for a writer that is committing in rollback-journal mode (readers never wait in WAL mode)."""


class FileFacts(NamedTuple):
    """What the header and schema of a database say about it."""

    application_id: int
    version: int
    tables: frozenset[str]


def read_facts(conn: sqlite3.Connection) -> FileFacts:
    """Read the facts through `conn` (this first read is what makes SQLite read a `-wal` file)."""
    return FileFacts(application_id(conn), user_version(conn), table_names(conn))


def inspect_file(uri: str) -> FileFacts:
    """Read the facts through a read-only connection of its own.

    Read-only on purpose: the last connection to close a WAL database checkpoints the `-wal` into it, and a
    read-only one cannot, so looking at a foreign `-wal` never copies it into the user's file.
    """
    conn = sqlite3.connect(uri, uri=True, timeout=PROBE_TIMEOUT)
    try:
        return read_facts(conn)
    finally:
        conn.close()


def not_ours(facts: FileFacts) -> str | None:
    """Why the database is not a tui-agent history file, or None when it is one (or empty)."""
    if facts.application_id == APPLICATION_ID:
        if facts.version <= len(MIGRATIONS) and not tables_at(facts.version) <= facts.tables:
            return f"tables of tui-agent's schema {facts.version} are missing"
        return None
    if facts.application_id != 0:
        return f"it belongs to another program: application id {facts.application_id:#010x}"
    if facts.version == 0 and not facts.tables:
        return None
    if 0 < facts.version < STAMPED_VERSION and facts.tables == tables_at(facts.version):
        return None  # ours from before the stamp; the next migration stamps it
    foreign = sorted(facts.tables - tables_at(min(facts.version, len(MIGRATIONS))))
    if foreign:
        return f"it holds tables tui-agent never makes: {', '.join(foreign[:5])}"
    return f"it has no tui-agent mark and schema version {facts.version}"
