"""Owns the passage index: its own SQLite file, refreshed incrementally (mtime, size, then hash) before a search.

Two processes may refresh at once: WAL lets readers go on, and each batch of writes is one `BEGIN IMMEDIATE`
transaction (SQLite's write lock, waited on with a busy timeout), so the index is never half-written. A file
that vanishes, cannot be read, is binary or too big is counted in the report and skipped, never fatal.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.retrieval.ignored import Ignored
from tui_agent.retrieval.passages import split

MAX_FILE_BYTES = 2_000_000
"""Bigger files (logs, dumps, minified bundles) are skipped: they would drown every search."""

_BATCH = 200
_SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"})
_MARKDOWN = frozenset({".md", ".markdown", ".rst", ".txt"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, hash TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    path UNINDEXED, first UNINDEXED, last UNINDEXED, text, tokenize = 'porter unicode61'
);
"""


@dataclass
class Report:
    """What a refresh did: counts a user can read in `tui-agent index` or a tool result."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped_binary: int = 0
    skipped_huge: int = 0
    unreadable: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Hit:
    """One passage found, with the citation `path:first-last`."""

    path: str
    first: int
    last: int
    text: str
    score: float

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.first}-{self.last}"


class PassageIndex:
    """An index of the text files under some folders, in one SQLite file."""

    def __init__(self, db_file: Path, folders: list[Path]) -> None:
        self._folders = [folder.resolve() for folder in folders]
        # The index's own files (and their -wal/-shm) may sit inside an indexed folder: never index them.
        self._own = str(db_file.resolve())
        self._db = sqlite3.connect(db_file, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def refresh(self, progress: Callable[[Report], None] | None = None) -> Report:
        """Bring the index up to date with the folders; each batch of changes is one transaction, after which
        `progress` hears how far it has come (a first build of a big tree takes a while)."""
        report = Report()
        known = {row[0]: (row[1], row[2], row[3]) for row in self._db.execute("SELECT * FROM files")}
        seen: set[str] = set()
        pending: list[tuple[str, os.stat_result, Path]] = []
        for path, info in self._walk():
            key = str(path)
            seen.add(key)
            old = known.get(key)
            if old is not None and old[0] == info.st_mtime_ns and old[1] == info.st_size:
                report.unchanged += 1
                continue
            pending.append((key, info, path))
            if len(pending) >= _BATCH:
                self._store(pending, known, report)
                pending = []
                if progress is not None:
                    progress(report)
        self._store(pending, known, report)
        gone = [key for key in known if key not in seen and self._covers(key)]
        self._write(lambda: self._forget(gone))
        report.removed = len(gone)
        return report

    def counts(self) -> tuple[int, int]:
        """Files and passages indexed under the folders."""
        keys = [key for (key,) in self._db.execute("SELECT path FROM files") if self._covers(key)]
        passages = sum(
            self._db.execute("SELECT count(*) FROM passages WHERE path = ?", (key,)).fetchone()[0] for key in keys
        )
        return len(keys), passages

    def forget_all(self) -> int:
        """Drop everything indexed under the folders (the next refresh indexes it anew); how many files."""
        keys = [key for (key,) in self._db.execute("SELECT path FROM files") if self._covers(key)]
        self._write(lambda: self._forget(keys))
        return len(keys)

    def search(self, query: str, k: int = 8) -> list[Hit]:
        """Return the `k` passages ranking best for `query` under BM25."""
        match = " OR ".join(f'"{word}"' for word in query.replace('"', " ").split())
        if not match:
            return []
        # One index file serves every project: only passages under this index's folders are answers.
        within = " OR ".join("path GLOB ?" for _ in self._folders) or "0"
        patterns = [f"{_glob_escaped(str(folder))}/*" for folder in self._folders]
        rows = self._db.execute(
            # `rank` (FTS5's own, BM25 by default) rather than a bm25() call: FTS5 sorts by it without calling
            # back into SQL per row (about half the time on a 28,000-passage index, bench/retrieval.py).
            "SELECT path, first, last, text, rank FROM passages WHERE passages MATCH ?"
            f" AND ({within}) ORDER BY rank LIMIT ?",
            (match, *patterns, k),
        ).fetchall()
        return [Hit(self._shown(row[0]), int(row[1]), int(row[2]), row[3], -float(row[4])) for row in rows]

    def _shown(self, key: str) -> str:
        path = Path(key)
        for folder in self._folders:
            if path.is_relative_to(folder):
                return str(path.relative_to(folder))
        return key

    def _covers(self, key: str) -> bool:
        return any(Path(key).is_relative_to(folder) for folder in self._folders)

    def _walk(self) -> Iterator[tuple[Path, os.stat_result]]:
        """Every file under the folders, less the always-skipped folders and what their `.gitignore`s ignore."""
        stack = [(folder, Ignored.under(folder)) for folder in self._folders]
        while stack:
            folder, ignored = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            ignored = ignored.with_file_in(folder)
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    if ignored.covers(entry.path, is_dir):
                        continue
                    if is_dir:
                        if entry.name not in _SKIPPED_FOLDERS:
                            stack.append((Path(entry.path), ignored))
                    elif entry.is_file(follow_symlinks=False) and not entry.path.startswith(self._own):
                        yield Path(entry.path), entry.stat(follow_symlinks=False)
                except OSError:  # gone between the listing and the stat: the next refresh sees it
                    continue

    def _store(
        self, pending: list[tuple[str, os.stat_result, Path]], known: Mapping[str, object], report: Report
    ) -> None:
        rows: list[tuple[str, os.stat_result, str, list[tuple[int, int, str]]]] = []
        for key, info, path in pending:
            if info.st_size > MAX_FILE_BYTES:
                report.skipped_huge += 1
                continue
            try:
                data = path.read_bytes()
            except OSError as error:  # deleted mid-index, or not readable by us
                report.unreadable.append(f"{key}: {error.strerror or error}")
                continue
            if b"\0" in data[:8192]:
                report.skipped_binary += 1
                continue
            text = data.decode("utf-8", errors="replace")
            digest = hashlib.blake2b(data, digest_size=16).hexdigest()
            markdown = path.suffix.lower() in _MARKDOWN
            parts = [(p.first, p.last, p.text) for p in split(text, markdown=markdown)]
            rows.append((key, info, digest, parts))
            if key in known:
                report.changed += 1
            else:
                report.added += 1
        if rows:
            self._write(lambda: self._put(rows))

    def _put(self, rows: list[tuple[str, os.stat_result, str, list[tuple[int, int, str]]]]) -> None:
        for key, info, digest, parts in rows:
            # Checked inside the write lock: another process may have indexed this file since our listing.
            # (Deleting from FTS5 by an unindexed column scans it, so only when there is something to delete.)
            if self._db.execute("SELECT 1 FROM files WHERE path = ?", (key,)).fetchone():
                self._db.execute("DELETE FROM passages WHERE path = ?", (key,))
            self._db.executemany(
                "INSERT INTO passages (path, first, last, text) VALUES (?, ?, ?, ?)",
                [(key, first, last, text) for first, last, text in parts],
            )
            self._db.execute(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", (key, info.st_mtime_ns, info.st_size, digest)
            )

    def _forget(self, keys: list[str]) -> None:
        for key in keys:
            self._db.execute("DELETE FROM passages WHERE path = ?", (key,))
            self._db.execute("DELETE FROM files WHERE path = ?", (key,))

    def _write(self, work: Callable[[], None]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")


def _glob_escaped(text: str) -> str:
    """`text` matched literally by GLOB (its `*`, `?` and `[` in brackets)."""
    return "".join(f"[{char}]" if char in "*?[" else char for char in text)
