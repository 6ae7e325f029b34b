"""Provides `HistoryStore`: the async API over the history database (one connection, one writer).

Reads and grouped writes run on aiosqlite's connection thread, one hop each, so the event loop never
waits on the disk. Writes that the disk refuses (full, locked, read-only) are kept in memory and retried;
`report.notices()` says what happened, `unsaved` says what is waiting (for an indicator).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from tui_agent import paths
from tui_agent.history import attachment_rows, export, owners, rows, sub_sessions, team_runs, writes
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.errors import HistoryError, MessageNotFoundError, SessionNotFoundError
from tui_agent.history.models import Message, SearchHit, Session, Siblings, Usage
from tui_agent.history.opening import (
    CorruptDatabaseError,
    Mode,
    NotOursError,
    check_file,
    choose_mode,
    make_private,
    move_aside,
    prepare,
    settle,
    uri_for,
)
from tui_agent.history.redact import Redactor
from tui_agent.history.report import OpenReport
from tui_agent.history.writer import DEFERRED, Writer
from tui_agent.status import MessageStatus, Role, ToolStatus
from tui_agent.tool_call import CallKey

log = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_BUSY_TIMEOUT = 5.0


class HistoryStore:
    """Sessions, messages and tool calls in one SQLite file. Create with `await HistoryStore.open(path)`."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: Path,
        mode: Mode,
        report: OpenReport,
        redactor: Redactor,
        retry_delay: float,
    ) -> None:
        self._conn = conn
        self.path = path
        self.mode = mode
        self.report = report
        self.redactor = redactor
        self.owner = owners.new_owner()
        self.on_notice: Callable[[str], None] | None = None
        """Called with each notice raised after opening (disk full, saving again...)."""
        self.on_state: Callable[[], None] | None = None
        """Called when `unsaved` may have changed."""
        self._writer = Writer(
            self._raw_call,
            enabled=mode is not Mode.READ_ONLY and mode is not Mode.IMMUTABLE,
            notify=self._notify,
            where=str(path),
            retry_delay=retry_delay,
        )
        self._writer.on_change = self._state_changed
        self._next_position: dict[str, int] = {}
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: Path | None = None,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        retry_delay: float = 1.0,
        redactor: Redactor | None = None,
    ) -> HistoryStore:
        """Open (creating, migrating, recovering or moving aside as needed) the database at `path`."""
        db, mode = await asyncio.to_thread(_resolve, path)
        report = OpenReport(db)
        mode = await asyncio.to_thread(check_file, db, mode, report)
        try:
            conn, locked = await _connect(db, mode, report, int(busy_timeout * 1000))
        except CorruptDatabaseError as error:
            report.moved_aside = await asyncio.to_thread(move_aside, db)
            report.not_ours = error.reason if isinstance(error, NotOursError) else None
            await asyncio.to_thread(make_private, db)
            conn, locked = await _connect(db, mode, report, int(busy_timeout * 1000))
        report.read_only = mode in (Mode.READ_ONLY, Mode.IMMUTABLE)
        report.in_memory = mode is Mode.MEMORY
        if redactor is None:
            redactor = await asyncio.to_thread(Redactor.default, paths.config_file())
        store = cls(conn, db, mode, report, redactor, retry_delay)
        if locked is not None:  # the session starts in memory; the upgrade and recovery wait with the writes
            store._writer.hold(settle, locked)
        return store

    @property
    def read_only(self) -> bool:
        """True when the file could only be opened for reading (changes are kept in memory)."""
        return self.report.read_only

    @property
    def unsaved(self) -> str | None:
        """What is not being saved and why, in a few words ("database locked (3 pending)"); None when all is."""
        reason = self._writer.failing_briefly
        if reason is None and self.read_only:
            reason = "read-only, newer schema" if self.report.newer_schema is not None else "read-only"
        if reason is None:
            return None
        pending = self._writer.pending
        return f"{reason} ({pending} pending)" if pending else reason

    def _state_changed(self) -> None:
        if self.on_state is not None:
            self.on_state()

    @property
    def pending_writes(self) -> int:
        """Writes kept in memory because the disk refused them (0 when everything is saved)."""
        return self._writer.pending

    @property
    def transactions(self) -> int:
        """Write transactions committed by this store (writes queued together share one)."""
        return self._writer.transactions

    def _notify(self, notice: str) -> None:
        self.report.add(notice)
        if self.on_notice is None:
            return
        try:
            self.on_notice(notice)
        except Exception:  # a listener gone bad (a UI shutting down) must never stop a write or a close
            log.exception("the history notice listener failed")

    async def _raw_call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` with the sqlite3 connection on aiosqlite's thread (one hop); sqlite errors pass through."""
        if self._closed:
            raise HistoryError("The history store is closed.")
        raw = self._conn._conn  # the sqlite3 connection, used only on aiosqlite's thread
        result: T = await self._conn._execute(fn, raw)  # type: ignore[no-untyped-call]
        return result

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return await self._raw_call(fn)
        except sqlite3.DatabaseError as error:
            raise _readable(error, self.path) from error

    async def _write(self, fn: Callable[[sqlite3.Connection], Any], key: object | None = None) -> Any:
        try:
            return await self._writer.submit(fn, key)
        except sqlite3.DatabaseError as error:
            raise _readable(error, self.path) from error

    # sessions

    async def create_session(
        self,
        title: str,
        model: str | None = None,
        endpoint: str | None = None,
        system_prompt: str | None = None,
        agent: str | None = None,
    ) -> Session:
        now = datetime.now(UTC)
        r = self.redactor
        session = Session(writes.new_id(), r.text(title), now, now, model, r.endpoint(endpoint), r.maybe(system_prompt))
        session.agent = agent
        await self._write(writes.insert_session(session))
        self._next_position[session.id] = 0
        return session

    async def create_sub_session(
        self, title: str, parent_session_id: str, parent_message_id: str, agent: str, **details: str | None
    ) -> Session:
        """A session for sub-agent `agent`'s run, linked to the reply (`parent_message_id`) whose call runs it;
        `details`: `model`, `endpoint`, `system_prompt` as for `create_session`."""
        now, r = datetime.now(UTC), self.redactor
        session = Session(
            writes.new_id(),
            r.text(title),
            now,
            now,
            details.get("model"),
            r.endpoint(details.get("endpoint")),
            r.maybe(details.get("system_prompt")),
            parent_session_id,
            parent_message_id,
        )
        session.agent = agent
        await self._write(writes.insert_session(session))
        self._next_position[session.id] = 0
        return session

    async def sub_sessions(self, session_id: str) -> list[tuple[str, str]]:
        """(session id, agent) of the sub-agent runs `session_id`'s calls started, oldest first."""
        return await self._call(lambda conn: sub_sessions.sub_sessions(conn, session_id))

    async def sub_session_calls(self, session_id: str) -> dict[CallKey, tuple[str, str]]:
        """`session_id`'s calls that ran a sub-agent: call key (message id, call id) -> (its session id, agent)."""
        return await self._call(lambda conn: sub_sessions.sub_session_calls(conn, session_id))

    async def sub_usage(self, session_id: str) -> Usage:
        """Tokens `session_id`'s sub-agent runs used, every level down (its own replies' are not counted)."""
        return await self._call(lambda conn: sub_sessions.sub_usage(conn, session_id))

    async def mark_team(self, session_id: str, agent: str, stop_reason: str | None = None) -> None:
        """Remember that the session runs team `agent` ("team:<name>") and why it last stopped (None: running)."""
        await self._write(writes.mark_team(session_id, agent, self.redactor.maybe(stop_reason)))

    async def record_team_stop(self, session_id: str, team: str, reason: str, rounds: int | None) -> None:
        """Store why a run of `team` stopped, after the session's newest message (the run's last; `team_runs`)."""
        await self._write(team_runs.record_stop(session_id, team, self.redactor.text(reason), rounds))

    async def team_stops(self, session_id: str) -> dict[str, team_runs.TeamStop]:
        """The session's team stops by the message each follows (every run's, not only the last)."""
        return await self._call(lambda conn: team_runs.stops(conn, session_id))

    async def rename_session(self, session_id: str, title: str) -> None:
        self._require_writable("renamed")
        await self._write(writes.rename_session(session_id, self.redactor.text(title)))

    async def set_session_agent(self, session_id: str, agent: str | None, system_prompt: str | None) -> None:
        """Record the agent a session runs from now on and its system prompt (redacted like any text)."""
        await self._write(writes.set_session_agent(session_id, agent, self.redactor.maybe(system_prompt)))

    async def delete_session(self, session_id: str) -> None:
        self._require_writable("deleted")
        await self._write(writes.delete_session(session_id))
        self._next_position.pop(session_id, None)

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        """A new session with copies of `session_id`'s messages up to and including `message_id`."""
        self._require_writable("forked")
        source = await self._require_session(session_id)
        now = datetime.now(UTC)
        fork = Session(
            writes.new_id(),
            f"{source.title} (fork)",
            now,
            now,
            source.model,
            source.endpoint,
            source.system_prompt,
            source.id,
            message_id,
        )
        fork.agent = source.agent
        count = await self._write(writes.fork_session(fork, source.id, message_id))
        fork.message_count = 0 if count is DEFERRED else int(count)
        self._next_position[fork.id] = fork.message_count
        return fork

    def _require_writable(self, done: str) -> None:
        # A change to a stored session kept in memory would look done and be gone at exit: refuse it plainly.
        if self.read_only:
            why = " (it is from a newer tui-agent)" if self.report.newer_schema is not None else ""
            raise HistoryError(
                f"The history database {self.path} is open read-only{why}; stored sessions can't be {done}."
            )

    async def get_session(self, id_or_unique_prefix: str) -> Session | None:
        """The session with this id, or the only one whose id starts with it; None if none (or several)."""
        return await self._call(lambda conn: rows.get_session(conn, id_or_unique_prefix))

    async def _require_session(self, id_or_prefix: str) -> Session:
        session = await self.get_session(id_or_prefix)
        if session is None:
            raise SessionNotFoundError(
                f"There is no session {id_or_prefix!r} in the history (see `tui-agent sessions list`)."
            )
        return session

    async def list_recent(self, limit: int = 50) -> list[Session]:
        """Sessions, most recently updated first."""
        return await self._call(lambda conn: rows.list_recent(conn, limit))

    async def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages (in every session, on every branch) containing all the words of `query`, best matches first;
        `switch_to(hit.message_id)` opens a session on the branch of a hit."""
        return await self._call(lambda conn: rows.search(conn, query, limit))

    # messages

    async def begin_turn(
        self, session_id: str, prompt: str, model: str | None = None, attachments: Sequence[Attachment] = ()
    ) -> tuple[Message, Message]:
        """Commit the user's prompt (with its attachments, text ones redacted like it) and a `streaming` assistant
        placeholder in one transaction."""
        user = self._new_message(session_id, Role.USER, prompt, MessageStatus.COMPLETE, None)
        blobs = [self._redacted_attachment(a) for a in attachments]
        user.attachments = [a.ref for a in blobs]
        reply = self._new_message(session_id, Role.ASSISTANT, "", MessageStatus.STREAMING, model)
        await self._add_messages([user, reply], blobs=blobs)
        return user, reply

    def _redacted_attachment(self, attachment: Attachment) -> Attachment:
        if attachment.kind == "image":
            return attachment
        text = self.redactor.text(attachment.text)
        return replace(attachment, data=text.encode("utf-8")) if text != attachment.text else attachment

    async def attachment_data(self, hashes: Iterable[str]) -> dict[str, bytes]:
        """The stored bytes of attachments by hash (one missing is left out)."""
        wanted = list(hashes)
        if not wanted:
            return {}
        return await self._call(lambda conn: attachment_rows.load_data(conn, wanted))

    async def append_message(
        self,
        session_id: str,
        role: Role,
        content: str,
        status: MessageStatus,
        model: str | None = None,
        agent: str | None = None,
    ) -> Message:
        """Commit a message at the end of the active branch (`agent`: the team member who writes it)."""
        message = self._new_message(session_id, role, content, status, model)
        message.agent = agent
        await self._add_messages([message])
        return message

    async def add_summary(
        self, session_id: str, summary: str, compacted: Sequence[str], model: str | None = None
    ) -> Message:
        """Commit a compaction: `summary` as a `system` message at the end of the active branch, standing for
        the `compacted` messages (their `compacted_by` names it; they stay, left out of what is sent)."""
        message = self._new_message(session_id, Role.SYSTEM, summary, MessageStatus.COMPLETE, model)
        await self._add_messages([message], compacts=compacted)
        return message

    async def replace_reply(self, session_id: str, message_id: str, model: str | None = None) -> Message:
        """Commit a `streaming` reply that replaces `message_id` (a retry); the old one is kept, `replaced_by` it."""
        reply = self._new_message(session_id, Role.ASSISTANT, "", MessageStatus.STREAMING, model)
        await self._add_messages([reply], replaces=message_id)
        return reply

    async def add_sibling(
        self,
        message_id: str,
        role: Role,
        content: str,
        status: MessageStatus = MessageStatus.COMPLETE,
        model: str | None = None,
        attachments: Sequence[AttachmentRef] = (),
        files: Sequence[Attachment] = (),
        agent: str | None = None,
    ) -> Message:
        """Commit a message beside `message_id` (same parent: an edited prompt, a regenerated reply) on a new
        branch, made active; the old branch stays as it was. `attachments`: already stored (an edited prompt
        keeps its files); `files`: attachments with their bytes, stored (text ones redacted) and carried after;
        `agent`: the team member who writes it (a member's continued reply keeps its name)."""
        message = self._new_message(await self._session_of(message_id), role, content, status, model)
        message.agent = agent
        blobs = [self._redacted_attachment(a) for a in files]
        message.attachments = [*attachments, *(a.ref for a in blobs)]
        await self._add_messages([message], sibling_of=message_id, blobs=blobs)
        return message

    async def switch_to(self, message_id: str) -> str:
        """Make the branch through `message_id` the session's active one (down to its newest leaf); returns the
        new active leaf's id."""
        session_id = await self._session_of(message_id)
        leaf = await self._write(writes.switch_to(session_id, message_id))
        if leaf is DEFERRED:  # kept in memory: the leaf is decided when it is written
            return message_id
        return str(leaf)

    async def siblings(self, message_id: str) -> Siblings:
        """The messages sharing `message_id`'s parent, oldest first, and its index among them (`‹2/3›`)."""
        message = await self._require_message(message_id)
        found = await self._call(lambda conn: rows.siblings(conn, message))
        return Siblings(found, next(i for i, m in enumerate(found) if m.id == message_id))

    async def children(self, message_id: str) -> list[Message]:
        """The messages that follow `message_id` directly, one per branch, oldest first."""
        message = await self._require_message(message_id)
        return await self._call(lambda conn: rows.children(conn, message))

    async def tree(self, session_id: str) -> list[Message]:
        """Every message of the session, every branch, in creation order (`parent_id` links them)."""
        session = await self._require_session(session_id)
        return await self._call(lambda conn: rows.load_tree(conn, session.id))

    async def _require_message(self, message_id: str) -> Message:
        message = await self._call(lambda conn: rows.get_message(conn, message_id))
        if message is None:
            raise MessageNotFoundError(f"There is no message {message_id!r} in the history.")
        return message

    async def _session_of(self, message_id: str) -> str:
        return (await self._require_message(message_id)).session_id

    def _new_message(
        self, session_id: str, role: Role, content: str, status: MessageStatus, model: str | None
    ) -> Message:
        now = datetime.now(UTC)
        return Message(
            writes.new_id(), session_id, -1, role, self.redactor.text(content), status, None, model, None, now, now
        )

    async def _add_messages(
        self,
        messages: list[Message],
        replaces: str | None = None,
        sibling_of: str | None = None,
        compacts: Sequence[str] = (),
        blobs: Sequence[Attachment] = (),
    ) -> None:
        session_id = messages[0].session_id
        if session_id not in self._next_position:
            self._next_position[session_id] = (await self._require_session(session_id)).message_count
        if replaces is not None:
            write = writes.replace_reply(replaces, messages[0], self.owner)
        elif sibling_of is not None:
            write = writes.add_sibling(sibling_of, messages, self.owner)
        else:
            write = writes.add_messages(messages, self.owner, compacts)
        first = await self._write(writes.with_blobs(write, blobs))
        if first is DEFERRED:
            first = self._next_position[session_id]
        for offset, message in enumerate(messages):
            message.position = int(first) + offset
        self._next_position[session_id] = int(first) + len(messages)

    async def update_streaming_text(
        self, message_id: str, text: str, parts: Mapping[str, str] | None = None, *, redacted: bool = False
    ) -> None:
        """Save the text (and other parts by kind) streamed so far (call at most every ~300 ms; see
        `StreamingSaver`). `redacted`: `text` and `parts` are already what `redactor.text` makes of them (a
        `StreamRedaction`'s each)."""
        if not redacted:
            text, parts = self.redactor.text(text), _redacted(self.redactor, parts)
        await self._write(writes.update_text(message_id, text, _plain(parts)), key=("text", message_id))

    async def finish_message(
        self,
        message_id: str,
        status: MessageStatus,
        content: str | None = None,
        error: str | None = None,
        usage: Usage | None = None,
        parts: Mapping[str, str] | None = None,
        *,
        redacted: bool = False,
    ) -> None:
        """Write a reply's final status, text, error, usage and (when it has some) other parts by kind, redacted
        alike (`redacted`: `content` and `parts` already are, as in `update_streaming_text`)."""
        r = self.redactor
        if not redacted:
            content, parts = r.maybe(content), _redacted(r, parts)
        await self._write(writes.finish_message(message_id, status, content, r.maybe(error), usage, _plain(parts)))

    async def record_tool_call(
        self,
        message_id: str,
        call_id: str,
        name: str,
        raw_arguments: str,
        arguments: dict[str, Any] | None,
        status: ToolStatus = ToolStatus.PENDING,
    ) -> None:
        """Record a tool call before it runs (recording the same call again updates it)."""
        raw = self.redactor.text(raw_arguments)
        parsed = None if arguments is None else self.redactor.json(arguments)
        await self._write(writes.record_tool_call(message_id, call_id, name, raw, parsed, status, self.owner))

    async def update_tool_call(
        self, message_id: str, call_id: str, status: ToolStatus, result: str | None = None, error: str | None = None
    ) -> None:
        """Move a call on: `running` stamps started_at, a final status stamps finished_at."""
        r = self.redactor
        await self._write(
            writes.update_tool_call(message_id, call_id, status, r.maybe(result), r.maybe(error), self.owner)
        )

    async def load_tail(self, session_id: str, limit: int) -> list[Message]:
        """The last `limit` messages of the session's active branch, oldest first, tool calls included.

        A branch shows the path from the first message to the active leaf, and the replies retried on it
        (`replaced_by` set: shown dimmed, never sent to the model)."""
        return await self._call(lambda conn: rows.load_tail(conn, session_id, None, limit))

    async def load_before(self, session_id: str, position: int, limit: int) -> list[Message]:
        """Up to `limit` messages of the branch just before `position`, oldest first (to page backwards)."""
        return await self._call(lambda conn: rows.load_tail(conn, session_id, position, limit))

    async def count_messages(self, session_id: str) -> int:
        """How many messages the active branch shows (what `load_tail` pages through)."""
        return await self._call(lambda conn: rows.count_shown(conn, session_id))

    # export

    async def export_markdown(self, session_id: str, all_branches: bool = False) -> str:
        """The active branch as Markdown, with a note of the other branches when there are some (with
        `all_branches`: every message, each naming its id and its parent's)."""
        session, messages = await self._whole(session_id, all_branches)
        runs = await self._sub_runs(session.id, all_branches)
        return export.to_markdown(session, messages, all_branches, runs, texts=await self._attached_texts(messages))

    async def export_json(self, session_id: str, all_branches: bool = False) -> str:
        """The active branch (or, with `all_branches`, every message) as JSON; each message names its parent."""
        session, messages = await self._whole(session_id, all_branches)
        runs = await self._sub_runs(session.id, all_branches)
        return export.to_json(session, messages, runs, await self._attached_texts(messages))

    async def _sub_runs(self, session_id: str, all_branches: bool, depth: int = 0) -> list[export.SubAgentRun]:
        """The sub-agent sessions a session's calls ran, each with its own (an export includes them all)."""
        if depth > sub_sessions.MAX_DEPTH:  # links are data: a loop in a damaged file must not recurse forever
            return []
        runs = []
        for sub_id, agent in await self.sub_sessions(session_id):
            session, messages = await self._whole(sub_id, all_branches)
            runs.append(
                export.SubAgentRun(agent, session, messages, await self._sub_runs(sub_id, all_branches, depth + 1))
            )
        return runs

    async def _attached_texts(self, messages: list[Message]) -> dict[str, str]:
        """The text of every attached text file among `messages`, by hash (exports include it)."""
        hashes = [ref.hash for m in messages for ref in m.attachments if ref.kind == "file"]
        data = await self.attachment_data(hashes)
        return {digest: blob.decode("utf-8", errors="replace") for digest, blob in data.items()}

    async def _whole(self, session_id: str, all_branches: bool = False) -> tuple[Session, list[Message]]:
        session = await self._require_session(session_id)
        load = rows.load_tree if all_branches else rows.load_all
        return session, await self._call(lambda conn: load(conn, session.id))

    # lifecycle

    async def flush(self) -> bool:
        """Try to save everything kept in memory now; True when nothing is left unsaved."""
        return await self._writer.flush()

    async def close(self) -> None:
        """Save what can be saved, mark this store's unfinished replies interrupted, close the file."""
        if self._closed:
            return
        if self._writer.pending == 0 and self.mode in (Mode.READ_WRITE, Mode.MEMORY):
            await self._write(writes.interrupt_owned(self.owner))
        saved = await self._writer.flush()
        await self._writer.close()
        if not saved:
            self.report.not_saved = (
                f"{self._writer.pending} change(s) to the history could not be saved to "
                f"{self.path} ({self._writer.failing or 'it is read-only'})."
            )
            self._notify(self.report.not_saved)
        self._closed = True
        owners.release(self.owner)
        await self._conn.close()


def _redacted(redactor: Redactor, parts: Mapping[str, str] | None) -> dict[str, str] | None:
    """A reply's other parts by kind, each redacted like its text."""
    return None if parts is None else {kind: redactor.text(text) for kind, text in parts.items()}


def _plain(parts: Mapping[str, str] | None) -> dict[str, str] | None:
    return None if parts is None else dict(parts)


def _resolve(path: Path | None) -> tuple[Path, Mode]:
    resolved = Path(path).expanduser() if path is not None else paths.db_path()
    return resolved, choose_mode(resolved)


async def _connect(
    path: Path, mode: Mode, report: OpenReport, busy_ms: int
) -> tuple[aiosqlite.Connection, sqlite3.OperationalError | None]:
    """The prepared connection, and the lock that kept the upgrade or recovery from running, if one did."""
    conn = await aiosqlite.connect(uri_for(path, mode), uri=True, isolation_level=None)
    try:
        locked = await conn._execute(prepare, conn._conn, path, mode, report, busy_ms)  # type: ignore[no-untyped-call]
    except BaseException:
        await conn.close()
        raise
    return conn, locked


def _readable(error: sqlite3.DatabaseError, path: Path) -> HistoryError:
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return HistoryError(
            f"The history database {path} is damaged ({error}); restart tui-agent to move it "
            "aside and start a fresh one."
        )
    return HistoryError(f"The history database {path} could not be used ({error}).")
