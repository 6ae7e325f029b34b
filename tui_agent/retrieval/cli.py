"""Provides `tui-agent index [FOLDER...] [--rebuild] [--status] [--json]`: the passage index `search_docs` reads.

With no option it brings the index of the folders (the working directory by default) up to date — what
`search_docs` does before each search — and says what changed, with a progress line on stderr while a first
build of a big tree goes on. `--status` only counts what is indexed; `--rebuild` drops the folders' entries and
indexes them anew. The index is one SQLite file in the data folder (`paths.retrieval_index_path`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tui_agent.paths import retrieval_index_path
from tui_agent.retrieval.index import PassageIndex, Report

PROGRESS_EVERY = 1000
"""Files between two progress lines of a build."""


def add_parser(subparsers: Any) -> None:
    """Register `index`."""
    parser = subparsers.add_parser("index", help="update or show the passage index that search_docs reads")
    parser.add_argument("folders", nargs="*", type=Path, help="folders to index (default: the working directory)")
    parser.add_argument("--rebuild", action="store_true", help="drop these folders' entries and index them anew")
    parser.add_argument("--status", action="store_true", help="only count what is indexed; change nothing")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folders = [folder.expanduser() for folder in args.folders] or [Path.cwd()]
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        print(f"tui-agent index: not a folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    database = retrieval_index_path()
    index = PassageIndex(database, folders)
    try:
        dropped = index.forget_all() if args.rebuild and not args.status else 0
        report = None if args.status else index.refresh(_progress)
        files, passages = index.counts()
    finally:
        index.close()
    facts: dict[str, Any] = {
        "index": str(database),
        "folders": [str(folder.resolve()) for folder in folders],
        "files": files,
        "passages": passages,
        "rebuilt": dropped if args.rebuild else None,
        "refresh": None if report is None else _as_dict(report),
    }
    print(json.dumps(facts, indent=2) if args.json else _sentences(facts))
    return 0


def _progress(report: Report) -> None:
    done = report.added + report.changed
    if sys.stderr.isatty() and done % PROGRESS_EVERY < 200:
        print(f"\rindexing: {done:,} files…", end="", file=sys.stderr, flush=True)


def _as_dict(report: Report) -> dict[str, Any]:
    return {
        "added": report.added,
        "changed": report.changed,
        "removed": report.removed,
        "unchanged": report.unchanged,
        "skipped_binary": report.skipped_binary,
        "skipped_huge": report.skipped_huge,
        "unreadable": report.unreadable,
    }


def _sentences(facts: dict[str, Any]) -> str:
    lines = [
        f"Index: {facts['index']}",
        f"Folders: {', '.join(facts['folders'])}",
        f"Indexed: {facts['files']:,} files, {facts['passages']:,} passages",
    ]
    if facts["rebuilt"] is not None:
        lines.append(f"Rebuilt: {facts['rebuilt']:,} files dropped and indexed anew")
    refresh = facts["refresh"]
    if refresh is not None:
        lines.append(
            f"Refreshed: {refresh['added']:,} added, {refresh['changed']:,} changed, {refresh['removed']:,} removed, "
            f"{refresh['unchanged']:,} unchanged"
        )
        skipped = f"{refresh['skipped_binary']:,} binary and {refresh['skipped_huge']:,} huge files skipped"
        lines.append(f"Skipped: {skipped}; {len(refresh['unreadable']):,} unreadable")
        lines += [f"  unreadable: {line}" for line in refresh["unreadable"][:20]]
    return "\n".join(lines)
