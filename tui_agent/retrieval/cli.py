"""Provides `tui-agent index [FOLDER...] [--rebuild] [--status] [--json]`: the passage index `search_docs` reads.

With no option it brings the index of the folders (by default the working directory and the docs folders,
`[retrieval] folders` and `--docs`: what `search_docs` searches) up to date — what `search_docs` does before
each search — and says which folders it covers, what each holds and what changed, with a progress line on
stderr while a first build of a big tree goes on. `--status` only counts what is indexed; `--rebuild` drops the
folders' entries and indexes them anew. The index is one SQLite file in the data folder (`paths.retrieval_index_path`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tui_agent.paths import config_file, retrieval_index_path
from tui_agent.retrieval import scope
from tui_agent.retrieval.index import PassageIndex, Report

PROGRESS_EVERY = 1000
"""Files between two progress lines of a build."""


def add_parser(subparsers: Any) -> None:
    """Register `index`."""
    parser = subparsers.add_parser("index", help="update or show the passage index that search_docs reads")
    parser.add_argument(
        "folders", nargs="*", type=Path, help="folders to index (default: the working directory and the docs folders)"
    )
    parser.add_argument("--rebuild", action="store_true", help="drop these folders' entries and index them anew")
    parser.add_argument("--status", action="store_true", help="only count what is indexed; change nothing")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.folders:
        folders = [folder.expanduser() for folder in args.folders]
        missing = [str(folder) for folder in folders if not folder.is_dir()]
        if missing:
            print(f"tui-agent index: not a folder: {', '.join(missing)}", file=sys.stderr)
            return 2
    else:
        docs = _docs_folders(getattr(args, "docs", None) or [])
        for notice in scope.missing(docs):
            print(notice, file=sys.stderr)
        folders = [Path.cwd(), *docs]
    database = retrieval_index_path()
    index = PassageIndex(database, folders)
    try:
        dropped = index.forget_all() if args.rebuild and not args.status else 0
        report = None if args.status else index.refresh(_progress)
        each = {str(folder): index.counts(folder) for folder in index.folders}
    finally:
        index.close()
    facts: dict[str, Any] = {
        "index": str(database),
        "folders": [{"folder": name, "files": files, "passages": passages} for name, (files, passages) in each.items()],
        "files": sum(files for files, _ in each.values()),
        "passages": sum(passages for _, passages in each.values()),
        "rebuilt": dropped if args.rebuild else None,
        "refresh": None if report is None else _as_dict(report),
    }
    print(json.dumps(facts, indent=2) if args.json else _sentences(facts))
    return 0


def _docs_folders(flags: list[str]) -> list[Path]:
    """`[retrieval] folders` of the config file, then `--docs`'s (a config file that cannot be read adds none)."""
    # deferred: pydantic (the settings' validation) only when no folder is named
    from tui_agent.config import resolve_settings

    settings, _problems = resolve_settings({}, config_file())
    return scope.resolved([*settings.retrieval.folders, *flags])


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
        "Folders:",
        *(f"  {each['folder']}: {each['files']:,} files, {each['passages']:,} passages" for each in facts["folders"]),
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
