"""Provides `tui-agent sessions ...`: list, show, export, search and delete saved sessions from the shell.

Everything written to stdout or stderr is sanitised, a pipe included (`tui_agent.sanitize`: terminal
escapes and bidi overrides removed; in JSON, every control and invisible character is written as a
`\\uXXXX` escape instead, so the JSON stays exact). `export -o FILE` writes the text exactly as it was
saved, to a file only its owner can read (0600). Unless `redact_secrets = false`, exports are redacted
again on the way out, for sessions saved before redaction or while it was off.

`show` and `export` give a session's active branch (the one the model gets, and `--continue` goes on with);
`show --tree` draws every branch, `export --all-branches` holds them all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tui_agent.file_diffs import change_line
from tui_agent.history.errors import HistoryError
from tui_agent.history.export import write_private
from tui_agent.history.file_rows import changed_files
from tui_agent.history.models import SearchHit, Session
from tui_agent.history.nesting import nest
from tui_agent.history.rolled_usage import RolledTally, rolled_tallies
from tui_agent.history.store import HistoryStore
from tui_agent.history.tree_text import ACTIVE, tree_lines
from tui_agent.history.usage import Tally
from tui_agent.payloads import FileChange
from tui_agent.prices import PriceTable, format_cost
from tui_agent.sanitize import escape_for_terminal, sanitize

Action = Callable[[HistoryStore, argparse.Namespace], Awaitable[int]]


def add_parser(subparsers: Any) -> None:
    """Register `sessions` and its subcommands."""
    parser = subparsers.add_parser("sessions", help="list, show, export, search or delete saved sessions")
    actions = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list", help="recent sessions, newest first (a sub-agent's session indented under its caller's)"
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.add_argument("-n", "--limit", type=int, default=50)
    listing.set_defaults(action=list_sessions)
    show = actions.add_parser("show", help="print a session as Markdown (its active branch)")
    show.add_argument("id")
    show.add_argument(
        "--tree",
        action="store_true",
        help="print every message as a tree instead, one line each (● marks the active branch)",
    )
    show.add_argument(
        "--files",
        action="store_true",
        help="list the files its tool calls changed instead, one line each (the reply's id, tool, path, "
        "+added −removed); `tui-agent rewind` takes the id",
    )
    show.set_defaults(action=show_session)
    export = actions.add_parser("export", help="export a session with its tool calls")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("id", nargs="?")
    which.add_argument("--last", action="store_true", help="the most recent session")
    export.add_argument("--format", choices=["md", "json"], default="md")
    export.add_argument("-o", "--output", type=Path, help="write to FILE instead of stdout")
    export.add_argument(
        "--all-branches",
        action="store_true",
        help="every message of every branch (each with its id and parent id), not only the active one",
    )
    export.set_defaults(action=export_session)
    search = actions.add_parser("search", help="full-text search over every session")
    search.add_argument("query")
    search.set_defaults(action=search_sessions)
    delete = actions.add_parser("delete", help="delete a session and its messages")
    delete.add_argument("id")
    delete.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(action=delete_session)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Open the history database and run the chosen action."""
    return asyncio.run(_with_store(args, args.action))


async def _with_store(args: argparse.Namespace, action: Action) -> int:
    try:
        store = await HistoryStore.open(Path(args.db) if args.db else None)
    except HistoryError as error:
        _complain(error.user_message)
        return 1
    try:
        for notice in store.report.notices():
            _complain(notice)
        return await action(store, args)
    except HistoryError as error:
        _complain(error.user_message)
        return 1
    finally:
        await store.close()


def _say(text: str) -> None:
    """Print text that may hold saved content (titles, replies, tool output) to stdout, sanitised."""
    print(sanitize(text))


def _complain(text: str) -> None:
    print(f"tui-agent: {sanitize(text)}", file=sys.stderr)


def _session_row(session: Session, rolled: RolledTally | None) -> dict[str, Any]:
    tally = None if rolled is None else rolled.tally
    cost = None if tally is None else tally.known_cost
    money = None if cost is None else format(cost.normalize(), "f")
    return {
        "id": session.id,
        "title": session.title,
        "updated_at": session.updated_at.isoformat(),
        "created_at": session.created_at.isoformat(),
        "model": session.model,
        "agent": session.agent,
        "parent_session_id": session.parent_session_id,
        "sub_agent": session.sub_agent,
        "messages": session.message_count,
        "tokens": 0 if tally is None else tally.tokens,
        "cost": money,
        "sub_agent_runs": 0 if rolled is None else rolled.sub_runs,  # tokens and cost include theirs
    }


WITH_SUBS = "  (tokens and cost with its sub-agents')"
"""After a caller's title: its cost (or tokens) counts its sub-agents' runs, each also listed under it."""


def price_table() -> PriceTable:
    """The shipped prices with the config file's `[prices]` (an invalid entry is left out; `doctor` names it)."""
    from tui_agent import paths
    from tui_agent.config import resolve_config

    return resolve_config({}, paths.config_file()).settings.price_table()


def spent(tally: Tally | None) -> str:
    """A session's cost ("$0.0123"), its tokens when a model has no price ("1,234 tok"), "-" with no usage."""
    if tally is None or not tally.tokens:
        return "-"
    cost = tally.known_cost
    return f"{tally.tokens:,} tok" if cost is None else format_cost(cost)


async def list_sessions(store: HistoryStore, args: argparse.Namespace) -> int:
    """Recent sessions, newest first, each sub-agent's run indented under its caller's (`↳`); a caller's cost
    counts its sub-agents' (said in its row), as its status line did."""
    nested = nest(await store.list_recent(args.limit), lambda session: session)
    sessions = [session for session, _ in nested]
    prices = price_table()
    ids = [session.id for session in sessions]
    tallies = await store.db.call(lambda conn: rolled_tallies(conn, ids, prices))  # a read, as list_recent's
    if args.json:
        rows = [_session_row(s, tallies.get(s.id)) for s in sessions]
        print(escape_for_terminal(json.dumps(rows, indent=2, ensure_ascii=False)))
        return 0
    if not sessions:
        print("No sessions yet. Run `tui-agent` to start one.")
    for session, depth in nested:
        when = session.updated_at.astimezone().strftime("%Y-%m-%d %H:%M")
        rolled = tallies.get(session.id)
        cost = spent(None if rolled is None else rolled.tally)
        _say(
            ("  " * depth + "↳ " if depth else "")
            + f"{session.id}  {when}  {session.message_count:>4} msgs  {cost:>12}  {session.model or '-':<16} "
            + (f"[{session.agent}] " if session.agent else "")  # the agent it runs, before its title
            + session.title
            + (WITH_SUBS if rolled is not None and rolled.sub_runs else "")  # its sub-agents are listed under it
        )
    return 0


async def _find(store: HistoryStore, session_id: str) -> Session | None:
    session = await store.get_session(session_id)
    if session is None:
        _complain(f"there is no session {session_id!r}, or several start with it (see `tui-agent sessions list`).")
    return session


def created_or_deleted(change: FileChange) -> str:
    """ "  (created)" / "  (deleted)", or nothing for a file that was changed."""
    return "  (created)" if change.before is None else "  (deleted)" if change.after is None else ""


async def show_session(store: HistoryStore, args: argparse.Namespace) -> int:
    session = await _find(store, args.id)
    if session is None:
        return 1
    if args.files:
        changes = await store.db.call(lambda conn: changed_files(conn, session.id))
        _say(f"{session.title}  ({session.id}): {len(changes)} file change(s) by tool calls")
        for tool, message_id, change in changes:
            line = f"  {message_id[:8]}  {tool or '?':<14} {change_line(change)}{created_or_deleted(change)}"
            _say(store.redactor.text(line))
        return 0
    if args.tree:
        _say(f"{session.title}  ({session.id}, {session.message_count} messages; {ACTIVE} active branch)")
        for line in tree_lines(await store.tree(session.id), session.active_leaf_id):
            _say(store.redactor.text(line))
        return 0
    _say(store.redactor.text(await store.export_markdown(args.id)))
    return 0


async def export_session(store: HistoryStore, args: argparse.Namespace) -> int:
    session_id = args.id
    if args.last:
        recent = await store.list_recent(1)
        if not recent:
            _complain("there are no sessions to export.")
            return 1
        session_id = recent[0].id
    if await _find(store, session_id) is None:
        return 1
    every = args.all_branches
    text = await (
        store.export_json(session_id, every) if args.format == "json" else store.export_markdown(session_id, every)
    )
    text = store.redactor.text(text)  # token shapes never span a JSON escape, so the JSON stays valid
    if args.output is not None:
        try:
            write_private(args.output, text + "\n")
        except OSError as error:
            _complain(f"cannot write {args.output}: {error.strerror or error}")
            return 1
        print(f"Exported session {session_id} to {sanitize(str(args.output))}", file=sys.stderr)
    elif args.format == "json":
        print(escape_for_terminal(text))
    else:
        _say(text)
    return 0


async def search_sessions(store: HistoryStore, args: argparse.Namespace) -> int:
    hits = await store.search(args.query)
    if not hits:
        _say(f"No messages match {args.query!r}.")
    by_session: dict[str, list[SearchHit]] = {}
    for hit in hits:
        by_session.setdefault(hit.session_id, []).append(hit)
    for session_id, session_hits in by_session.items():
        _say(f"{session_id}  {session_hits[0].session_title}")
        for hit in session_hits:
            _say(f"    #{hit.position} {hit.role.value}: {' '.join(hit.snippet.split())}")
    return 0


async def delete_session(store: HistoryStore, args: argparse.Namespace) -> int:
    session = await _find(store, args.id)
    if session is None:
        return 1
    if not args.yes and sys.stdin.isatty():
        what = f"{session.id} ({session.title!r}, {session.message_count} messages)"
        question = sanitize(f"Delete session {what}? [y/N] ")
        answer = await asyncio.to_thread(input, question)
        if answer.strip().lower() not in {"y", "yes"}:
            print("Nothing deleted.")
            return 1
    await store.delete_session(session.id)
    _say(f"Deleted session {session.id} ({session.title}).")
    return 0
