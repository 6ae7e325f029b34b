"""Provides the SQL of attachments: their bytes in `attachments` (one row per SHA-256, however many messages carry
it) and the `file`/`image` parts in `message_parts` (an `AttachmentRef` as JSON each, in order): a prompt's, and a
reply's — what its tool calls returned (the JSON names the call: `"call": call id`) or what the model sent.

Plain functions of a sqlite3 connection, called inside the store's reads and write transactions.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from tui_agent.history.attachments import KINDS, Attachment, AttachmentRef
from tui_agent.history.in_lists import rows_in
from tui_agent.history.models import Message
from tui_agent.status import Role


def save_blobs(conn: sqlite3.Connection, attachments: Iterable[Attachment]) -> None:
    """Store each attachment's bytes once: a hash already stored is left as it is."""
    now = time.time()
    conn.executemany(
        "INSERT OR IGNORE INTO attachments (hash, mime, size, data, created_at) VALUES (?, ?, ?, ?, ?)",
        [(a.hash, a.mime, len(a.data), a.data, now) for a in attachments],
    )


def insert_parts(conn: sqlite3.Connection, messages: Sequence[Message]) -> None:
    """The `file`/`image` parts of newly inserted messages (their `attachments`), in order."""
    conn.executemany(
        "INSERT INTO message_parts (message_id, position, kind, content) VALUES (?, ?, ?, ?)",
        [(m.id, i, ref.kind, ref.to_json()) for m in messages for i, ref in enumerate(m.attachments)],
    )


def insert_call_parts(
    message_id: str, call_id: str, refs: Sequence[AttachmentRef]
) -> Callable[[sqlite3.Connection], None]:
    """A write adding the parts of what call `call_id` of reply `message_id` returned, after its other parts
    (their bytes are saved apart, `save_blobs`)."""

    def run(conn: sqlite3.Connection) -> None:
        for ref in refs:
            conn.execute(
                "INSERT INTO message_parts (message_id, position, kind, content) VALUES (?, (SELECT "
                "COALESCE(MAX(position) + 1, 0) FROM message_parts WHERE message_id = ?), ?, ?)",
                (message_id, message_id, ref.kind, _json({"call": call_id, **ref.fields()})),
            )

    return run


def attach_refs(conn: sqlite3.Connection, messages: list[Message]) -> list[Message]:
    """Fill each message's `attachments` from its stored parts, and a reply's tool calls' (a part that names a
    call; one that is not a readable ref is skipped)."""
    by_id = {m.id: m for m in messages if m.role in (Role.USER, Role.ASSISTANT)}
    kinds = ",".join("?" * len(KINDS))
    sql = (
        f"SELECT message_id, kind, content FROM message_parts WHERE kind IN ({kinds}) "
        "AND message_id IN ({marks}) ORDER BY message_id, position"
    )
    returned: dict[tuple[str, str], list[AttachmentRef]] = {}
    for message_id, kind, content in rows_in(conn, sql, list(by_id), KINDS):
        fields = _fields(content)
        if (ref := AttachmentRef.from_fields(kind, fields)) is None:
            continue
        call = fields.get("call") if isinstance(fields, dict) else None
        if isinstance(call, str):
            returned.setdefault((message_id, call), []).append(ref)
        else:
            by_id[message_id].attachments.append(ref)
    for (message_id, call_id), refs in returned.items():
        calls = by_id[message_id].tool_calls
        calls[:] = [c.replace(attachments=tuple(refs)) if c.call_id == call_id else c for c in calls]
    return messages


def _fields(content: str) -> Any:
    import json

    try:
        return json.loads(content)
    except ValueError:
        return None


def _json(fields: dict[str, str | int]) -> str:
    import json

    return json.dumps(fields)


def leave_out_images(message_id: str, why: str) -> Callable[[sqlite3.Connection], list[str]]:
    """A write marking the image parts of prompt `message_id` as no longer sent (`AttachmentRef.left_out`);
    it returns the names of the images it marked."""

    def run(conn: sqlite3.Connection) -> list[str]:
        rows = conn.execute(
            "SELECT position, content FROM message_parts WHERE message_id = ? AND kind = 'image' ORDER BY position",
            (message_id,),
        ).fetchall()
        marked: list[str] = []
        for position, content in rows:
            ref = AttachmentRef.from_json("image", content)
            if ref is None or ref.left_out:
                continue
            conn.execute(
                "UPDATE message_parts SET content = ? WHERE message_id = ? AND position = ? AND kind = 'image'",
                (replace(ref, left_out=why).to_json(), message_id, position),
            )
            marked.append(ref.name)
        return marked

    return run


def leave_out_call_images(message_id: str, call_id: str, why: str) -> Callable[[sqlite3.Connection], None]:
    """A write marking the images call `call_id` of reply `message_id` returned as no longer sent."""

    def run(conn: sqlite3.Connection) -> None:
        rows = conn.execute(
            "SELECT position, content FROM message_parts WHERE message_id = ? AND kind = 'image'", (message_id,)
        ).fetchall()
        for position, content in rows:
            fields = _fields(content)
            ref = AttachmentRef.from_fields("image", fields)
            if ref is None or ref.left_out or not isinstance(fields, dict) or fields.get("call") != call_id:
                continue
            conn.execute(
                "UPDATE message_parts SET content = ? WHERE message_id = ? AND position = ?",
                (_json({"call": call_id, **replace(ref, left_out=why).fields()}), message_id, position),
            )

    return run


def prune_unreferenced(conn: sqlite3.Connection) -> int:
    """Delete the stored bytes no message's part names any more (after a session is deleted); an attachment
    another session shares stays. Returns how many were deleted."""
    kinds = ",".join("?" * len(KINDS))
    parts = conn.execute(f"SELECT kind, content FROM message_parts WHERE kind IN ({kinds})", KINDS)
    named = {ref.hash for kind, content in parts if (ref := AttachmentRef.from_json(kind, content)) is not None}
    stored = [str(digest) for (digest,) in conn.execute("SELECT hash FROM attachments")]  # the key's index only
    orphans = [(digest,) for digest in stored if digest not in named]
    conn.executemany("DELETE FROM attachments WHERE hash = ?", orphans)
    return len(orphans)


def load_data(conn: sqlite3.Connection, hashes: Iterable[str]) -> dict[str, bytes]:
    """The stored bytes of each hash that is stored (a missing one is left out)."""
    rows = rows_in(conn, "SELECT hash, data FROM attachments WHERE hash IN ({marks})", sorted(set(hashes)))
    return {str(digest): bytes(data) for digest, data in rows}


def stored_hashes(messages: Iterable[Message]) -> list[str]:
    """The hashes of every payload the messages carry: their own attachments and their tool calls'."""
    return [ref.hash for m in messages for ref in [*m.attachments, *(r for c in m.tool_calls for r in c.attachments)]]


def restore(messages: Iterable[Message], data: dict[str, bytes]) -> dict[str, list[Attachment]]:
    """Each prompt's attachments with their bytes, by message id (a ref whose bytes are missing is left out)."""
    return {
        m.id: [Attachment.restored(ref, data[ref.hash]) for ref in m.attachments if ref.hash in data]
        for m in messages
        if m.attachments
    }
