"""Provides the schema as append-only migrations keyed by `PRAGMA user_version`.

Each step and its version bump run in one `BEGIN IMMEDIATE` transaction, so a crash mid-migration
leaves the previous version intact. Never edit a released step: append a new one.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Sequence

from tui_agent.history.errors import SchemaTooNewError

_STATUSES = "'streaming', 'complete', 'interrupted', 'failed'"
_TOOL_STATUSES = "'pending', 'awaiting_approval', 'running', 'done', 'failed', 'denied', 'interrupted'"

V1_TABLES: tuple[str, ...] = (
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        model TEXT,
        endpoint TEXT,
        system_prompt TEXT,
        parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        parent_message_id TEXT,
        message_count INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX sessions_recent ON sessions(updated_at DESC)",
    # `seq` is an explicit rowid so VACUUM cannot renumber rows behind the full-text index.
    f"""CREATE TABLE messages (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL CHECK (status IN ({_STATUSES})),
        error TEXT,
        model TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        owner TEXT,
        UNIQUE (session_id, position)
    )""",
    "CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming'",
    f"""CREATE TABLE tool_calls (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        raw_arguments TEXT NOT NULL,
        arguments TEXT,
        status TEXT NOT NULL CHECK (status IN ({_TOOL_STATUSES})),
        result TEXT,
        error TEXT,
        started_at REAL,
        finished_at REAL,
        owner TEXT,
        UNIQUE (message_id, call_id)
    )""",
    "CREATE INDEX tool_calls_open ON tool_calls(status) WHERE status IN ('pending', 'awaiting_approval', 'running')",
)

# Only settled text is indexed: a streaming reply is rewritten every ~300 ms and would be re-tokenised
# each time; it is indexed once it completes or is marked interrupted.
V2_SEARCH: tuple[str, ...] = (
    "CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='seq', "
    "tokenize='unicode61 remove_diacritics 2')",
    """CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.status != 'streaming' BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.seq, new.content);
    END""",
    """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.status != 'streaming' BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    END""",
    """CREATE TRIGGER messages_fts_update_old AFTER UPDATE OF content, status ON messages
        WHEN old.status != 'streaming' BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    END""",
    """CREATE TRIGGER messages_fts_update_new AFTER UPDATE OF content, status ON messages
        WHEN new.status != 'streaming' BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.seq, new.content);
    END""",
    "INSERT INTO messages_fts(rowid, content) SELECT seq, content FROM messages WHERE status != 'streaming'",
)

APPLICATION_ID = 0x54554941
"""Our mark in the database header (`PRAGMA application_id`, the bytes "TUIA"): a file without it is not ours."""

# Stamped in a step of its own so databases made before it get the mark the first time they are opened.
V3_STAMP: tuple[str, ...] = (f"PRAGMA application_id = {APPLICATION_ID}",)

# A retried reply stays, as a sibling of the reply that replaced it: kept and shown (dimmed), never sent to
# the model again. A column rather than a status: the status keeps saying how the reply ended.
V4_REPLACED_BY: tuple[str, ...] = ("ALTER TABLE messages ADD COLUMN replaced_by TEXT",)

# A message is made of parts. Its text and tool calls keep their column and table; parts of other kinds
# (reasoning now; images and files later) are rows here, in the message's order (`position`). `kind` is free
# text so a new kind needs no migration: a reader skips kinds it does not know.
V5_PARTS: tuple[str, ...] = (
    """CREATE TABLE message_parts (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        UNIQUE (message_id, position)
    )""",
)

# Messages form a tree: each has a parent (NULL for a session's first), a session has an active leaf, and the
# model gets the path from the root to it. Nothing is rewritten: a linear session becomes one branch, each
# message the child of the last earlier message that was not retried, so a retry (`replaced_by`) is the
# sibling of the reply it replaced; the active leaf is the last message not replaced. `position` stays the
# creation order in the session, so a path is increasing in position.
V6_TREE: tuple[str, ...] = (
    "ALTER TABLE messages ADD COLUMN parent_id TEXT",
    "ALTER TABLE sessions ADD COLUMN active_leaf_id TEXT",
    """UPDATE messages SET parent_id = (SELECT p.id FROM messages p WHERE p.session_id = messages.session_id
        AND p.position < messages.position AND p.replaced_by IS NULL ORDER BY p.position DESC LIMIT 1)""",
    """UPDATE sessions SET active_leaf_id = (SELECT m.id FROM messages m WHERE m.session_id = sessions.id
        AND m.replaced_by IS NULL ORDER BY m.position DESC LIMIT 1)""",
    "CREATE INDEX messages_children ON messages(session_id, parent_id)",
    # Walking a branch looks for the replies retried on it at every step: a tiny index makes that a probe.
    "CREATE INDEX messages_retried ON messages(replaced_by) WHERE replaced_by IS NOT NULL",
)

# Agents are data (profile and team files): a session remembers the agent or team it runs (`agent`, a
# profile name or "team:<name>"), each message the agent that wrote it (`agent`; NULL: the session's), and a
# team session why its team stopped (`stop_reason`, shown on resume).
V7_AGENTS: tuple[str, ...] = (
    "ALTER TABLE sessions ADD COLUMN agent TEXT",
    "ALTER TABLE messages ADD COLUMN agent TEXT",
    "ALTER TABLE sessions ADD COLUMN stop_reason TEXT",
)

# Attachments (files and images in the prompt) are stored once, by the SHA-256 of their bytes, however many
# messages carry them; a message's `file`/`image` part names the hash. A compacted message keeps its row and
# is left out of what is sent: `compacted_by` is the id of the summary message that stands for it.
V8_ATTACHMENTS: tuple[str, ...] = (
    """CREATE TABLE attachments (
        hash TEXT PRIMARY KEY,
        mime TEXT NOT NULL,
        size INTEGER NOT NULL,
        data BLOB NOT NULL,
        created_at REAL NOT NULL
    )""",
    "ALTER TABLE messages ADD COLUMN compacted_by TEXT",
)

# Prompt tokens the provider served from its cache (`prompt_tokens_details.cached_tokens`) are billed at the
# cached-input price: a reply keeps how many of its `prompt_tokens` they were, so a resumed session, `sessions
# list` and `tui-agent usage` price them as the live status line did. NULL: none reported (or written before).
V9_CACHED_TOKENS: tuple[str, ...] = ("ALTER TABLE messages ADD COLUMN cached_tokens INTEGER",)

# A session may run a team many times: each run's stop is a row (`sessions.stop_reason` kept only the last), shown
# again after `message_id`, the run's last message (see `team_runs.py`). A stop stored before this step becomes
# its session's one row, after the session's newest team member reply (`rounds` unknown: counted when shown).
V10_TEAM_RUNS: tuple[str, ...] = (
    """CREATE TABLE team_runs (
        seq INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        message_id TEXT NOT NULL,
        team TEXT NOT NULL,
        reason TEXT NOT NULL,
        rounds INTEGER,
        stopped_at REAL NOT NULL
    )""",
    "CREATE INDEX team_runs_session ON team_runs(session_id)",
    """INSERT INTO team_runs (session_id, message_id, team, reason, stopped_at)
        SELECT s.id, (SELECT m.id FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant'
            AND m.agent IS NOT NULL ORDER BY m.position DESC LIMIT 1),
        CASE WHEN s.agent LIKE 'team:%' THEN substr(s.agent, 6) ELSE '' END, s.stop_reason, s.updated_at
        FROM sessions s WHERE s.stop_reason IS NOT NULL AND s.stop_reason != '' AND EXISTS (SELECT 1 FROM messages m
            WHERE m.session_id = s.id AND m.role = 'assistant' AND m.agent IS NOT NULL)""",
)

# Prompt tokens the provider wrote to its cache (Anthropic's `cache_creation_input_tokens`) are billed above the
# input price (1.25 times): a reply keeps how many of its `prompt_tokens` they were, as step 9 keeps the reads.
# NULL: none reported (or written before).
V11_CACHE_WRITES: tuple[str, ...] = ("ALTER TABLE messages ADD COLUMN cache_write_tokens INTEGER",)

# The files a tool call changed (`ToolCall.file_changes`): one row per file per call, in the call's order, naming
# the content before and after by SHA-256 (NULL: the file did not exist). The bytes are kept once per distinct
# content per session, byte-exact (never redacted: a rewind writes them back), in this file (already 0600) and
# deleted with their session by the cascade; exports never read them (see `file_rows.py`).
V12_FILE_CHANGES: tuple[str, ...] = (
    """CREATE TABLE file_blobs (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        hash TEXT NOT NULL,
        size INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (session_id, hash)
    ) WITHOUT ROWID""",
    """CREATE TABLE file_changes (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        path TEXT NOT NULL,
        before_hash TEXT,
        after_hash TEXT,
        UNIQUE (message_id, call_id, position)
    )""",
)

# A session's sub-agent runs are found by their `parent_session_id` (the session screen's cost of each row, the
# tree of runs, deleting a session): without an index each lookup read the whole sessions table (28 ms for a page
# of 100 rows at 100k sessions, 1.8 ms with it). Partial: most sessions have no parent. (Issue 28.)
V13_SESSIONS_PARENT: tuple[str, ...] = (
    "CREATE INDEX sessions_parent ON sessions(parent_session_id) WHERE parent_session_id IS NOT NULL",
)

# Rewind (issue 29). A change's path is relative to the folder the agent worked in, which the change now names
# (NULL in older rows: the folder tui-agent runs in); a restore (a rewind, a branch's files brought back, an undo
# of either) is itself recorded, file by file, with what was on disk before it, so it can be undone too — the
# person's own edits it replaced included. Its bytes are kept in `file_blobs` like a change's.
V14_FILE_RESTORES: tuple[str, ...] = (
    "ALTER TABLE file_changes ADD COLUMN work_dir TEXT",
    """CREATE TABLE file_restores (
        seq INTEGER PRIMARY KEY,
        restore_id TEXT NOT NULL,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        made_at REAL NOT NULL,
        to_message_id TEXT,
        work_dir TEXT NOT NULL,
        path TEXT NOT NULL,
        before_hash TEXT,
        after_hash TEXT
    )""",
    "CREATE INDEX file_restores_session ON file_restores(session_id, seq)",
)

# A content an edit made is most often the content before it with one span replaced (issue 29: recording a 100 KB
# edit must cost far less than writing it). Such a content is kept as that span against its base (`base_hash`, a
# content of the same session, itself whole or a delta): the `head` bytes the base starts with, `data`, then the
# base's last `tail` bytes. `size` is the whole content's length (checked when it is rebuilt); `depth` is how many
# deltas lie between it and a whole content (capped: see `file_contents.py`). Its own table rather than columns
# of `file_blobs`: a tui-agent older than this step that opens the file read-only finds such a content missing,
# never reads a delta as the content. Deleted with its session like `file_blobs`.
V15_FILE_DELTAS: tuple[str, ...] = (
    """CREATE TABLE file_deltas (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        hash TEXT NOT NULL,
        size INTEGER NOT NULL,
        base_hash TEXT NOT NULL,
        head INTEGER NOT NULL,
        tail INTEGER NOT NULL,
        depth INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (session_id, hash)
    ) WITHOUT ROWID""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    V1_TABLES,
    V2_SEARCH,
    V3_STAMP,
    V4_REPLACED_BY,
    V5_PARTS,
    V6_TREE,
    V7_AGENTS,
    V8_ATTACHMENTS,
    V9_CACHED_TOKENS,
    V10_TEAM_RUNS,
    V11_CACHE_WRITES,
    V12_FILE_CHANGES,
    V13_SESSIONS_PARENT,
    V14_FILE_RESTORES,
    V15_FILE_DELTAS,
)
"""Step N (1-based) brings the database from version N-1 to N."""

LATEST_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    """Read the schema version stored in the database header."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def application_id(conn: sqlite3.Connection) -> int:
    """Read the application id stored in the database header (0 when none was set)."""
    row = conn.execute("PRAGMA application_id").fetchone()
    return int(row[0])


@functools.cache
def tables_at(version: int) -> frozenset[str]:
    """The tables (full-text shadow tables included) our migrations create up to `version`."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn, target=version)
        return table_names(conn)
    finally:
        conn.close()


def table_names(conn: sqlite3.Connection) -> frozenset[str]:
    """The names of the tables in the database, SQLite's own left out."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")
    return frozenset(name for (name,) in rows)


def check_not_newer(conn: sqlite3.Connection, where: str, latest: int = LATEST_VERSION) -> int:
    """Return the version, refusing (without writing) a database from a newer tui-agent."""
    version = user_version(conn)
    if version > latest:
        raise SchemaTooNewError(
            f"The history database {where} was written by a newer tui-agent (schema version {version}; "
            f"this one understands up to {latest}). It was left untouched: upgrade tui-agent, or use "
            "--db to choose another file."
        )
    return version


def migrate(
    conn: sqlite3.Connection, migrations: Sequence[Sequence[str]] = MIGRATIONS, target: int | None = None
) -> int:
    """Apply every missing step up to `target` (default: all); return the number of steps applied.

    `conn` must be in autocommit mode (isolation_level=None) so the transactions here are explicit.
    """
    goal = len(migrations) if target is None else target
    applied = 0
    for version in range(user_version(conn) + 1, goal + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the write lock: another instance may have migrated meanwhile.
            if user_version(conn) >= version:
                conn.execute("ROLLBACK")
                continue
            _apply(conn, version, migrations)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied += 1
    return applied


def migrate_within(conn: sqlite3.Connection, migrations: Sequence[Sequence[str]] = MIGRATIONS) -> int:
    """Apply every missing step inside the caller's transaction (the writer's); return how many."""
    start = user_version(conn)
    for version in range(start + 1, len(migrations) + 1):
        _apply(conn, version, migrations)
    return max(0, len(migrations) - start)


def _apply(conn: sqlite3.Connection, version: int, migrations: Sequence[Sequence[str]]) -> None:
    for statement in migrations[version - 1]:
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {int(version)}")
