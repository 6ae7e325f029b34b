"""Provides `tui-agent rewind`: a session's files brought back to a point of its conversation from a script, as
the TUI's "rewind to here" does — shown first with `--dry-run`, the person's own edits kept unless named.

`tui-agent rewind SESSION --to MESSAGE` (ids or unique prefixes, as `sessions show ID --tree` / `--files` print
them): a prompt goes back to before itself, a reply to the end of its turn; the files of the session's active
branch are brought there. `--undo` takes the session's last restore back. A file changed outside tui-agent since
the agent last wrote it is a conflict: kept as it is unless `--overwrite PATH` (or `--overwrite-all`) names it;
a kept or failed file makes the exit code 1. The conversation itself is left as it is (in the TUI, the rewound
prompt comes back into the prompt box to be sent again).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tui_agent.agent.rewind import FilesPlan, FileStep, plan_files, plan_undo, restore_files, rewind_point
from tui_agent.file_diffs import unified_diff
from tui_agent.history.errors import HistoryError
from tui_agent.history.models import Message, Session
from tui_agent.history.store import HistoryStore
from tui_agent.sanitize import sanitize


def add_parser(subparsers: Any) -> None:
    """Register `rewind`."""
    parser = subparsers.add_parser(
        "rewind",
        help="bring a session's files back to a point of its conversation (or undo the last rewind)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    parser.add_argument("session", help="the session's id (or a unique prefix)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--to", metavar="MESSAGE", help="the message to rewind to (id or unique prefix)")
    which.add_argument("--undo", action="store_true", help="take the session's last rewind back")
    parser.add_argument("--dry-run", action="store_true", help="show what would change on disk; change nothing")
    parser.add_argument("--diff", action="store_true", help="with the plan, print each file's diff")
    parser.add_argument(
        "--overwrite", action="append", default=[], metavar="PATH", help="overwrite this conflicting file too"
    )
    parser.add_argument("--overwrite-all", action="store_true", help="overwrite every conflicting file")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_rewind(args))


async def _rewind(args: argparse.Namespace) -> int:
    try:
        store = await HistoryStore.open(Path(args.db) if args.db else None)
    except HistoryError as error:
        return _complain(error.user_message)
    try:
        session = await store.get_session(args.session)
        if session is None:
            return _complain(f"no session {args.session!r} (or several start with it): see `tui-agent sessions list`.")
        plan = await _plan(store, session, args)
        if plan is None:
            return 1
        _show(plan, args)
        if args.dry_run or plan.empty:
            return 0
        overwrite = {step.shown for step in plan.conflicts} if args.overwrite_all else set(args.overwrite)
        outcome = await restore_files(store, plan, overwrite)
        if args.json:
            print(json.dumps({"restored": outcome.restored, "kept": outcome.kept, "failed": outcome.failed}))
        else:
            print(sanitize(outcome.summary()))
        return 1 if outcome.kept or outcome.failed else 0
    except HistoryError as error:
        return _complain(error.user_message)
    finally:
        await store.close()


async def _plan(store: HistoryStore, session: Session, args: argparse.Namespace) -> FilesPlan | None:
    if args.undo:
        undo = await plan_undo(store, session.id)
        if undo is None:
            _complain("this session has no rewind to undo.")
        return undo
    tree = await store.tree(session.id)
    chosen = _message(tree, args.to)
    if chosen is None:
        _complain(f"no message {args.to!r} in this session (or several start with it): see `sessions show --tree`.")
        return None
    try:
        point, _ = rewind_point(tree, session.active_leaf_id, chosen.id)
    except LookupError:
        _complain("that message is not on the session's active branch (switch to its branch in the TUI first).")
        return None
    return await plan_files(store, session.id, session.active_leaf_id, point)


def _message(tree: list[Message], prefix: str) -> Message | None:
    found = [message for message in tree if message.id.startswith(prefix)]
    return found[0] if len(found) == 1 else None


def _show(plan: FilesPlan, args: argparse.Namespace) -> None:
    if args.json:
        rows = [{"path": s.shown, "action": s.action, "conflict": s.conflict} for s in plan.steps]
        print(json.dumps({"dry_run": bool(args.dry_run), "files": rows}))
        return
    if plan.empty:
        print("Nothing to rewind: the files are already as they were at that point.")
        return
    print(f"{'Would change' if args.dry_run else 'Changing'} {len(plan.steps)} file(s):")
    for step in plan.steps:
        print(sanitize(f"  {step.shown}  {step.action}{_conflict_note(step)}"))
        if args.diff and step.problem is None:
            print(sanitize(unified_diff(step.change)))


def _conflict_note(step: FileStep) -> str:
    if not step.conflict:
        return ""
    return f"  — changed outside tui-agent since: kept unless --overwrite {step.shown}"


def _complain(text: str) -> int:
    print(f"tui-agent: {sanitize(text)}", file=sys.stderr)
    return 1
