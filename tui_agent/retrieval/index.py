"""Owns the passage index: its own SQLite file, refreshed incrementally (mtime, size, then hash) before a search.

Ranking is BM25 (SQLite FTS5); given an `Embedder`, each passage's vector is stored too (table `vectors`, keyed
by the embedding model and the passage text's hash, so an unchanged passage is never embedded twice, even when
its file changes) and a search fuses BM25's order with the cosine order (`fusion.fuse`). An endpoint that fails
leaves BM25 answering, with `embedding_problem` saying why.

Two processes may refresh at once: WAL lets readers go on, and each batch of writes is one `BEGIN IMMEDIATE`
transaction (SQLite's write lock, waited on with a busy timeout), so the index is never half-written. A file
that vanishes, cannot be read, is binary or too big is counted in the report and skipped, never fatal.
"""

from __future__ import annotations

import json
import os
import sqlite3
from array import array
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from tui_agent.retrieval import listing
from tui_agent.retrieval.ahead import ahead
from tui_agent.retrieval.embedder import BATCH, Embedder, EmbeddingError
from tui_agent.retrieval.fusion import fuse
from tui_agent.retrieval.ignored import Ignored
from tui_agent.retrieval.ranking import best
from tui_agent.retrieval.reading import MAX_FILE_BYTES as MAX_FILE_BYTES  # where callers have found it
from tui_agent.retrieval.reading import STAMP_FACTOR, STAMP_MASK, Batch, Pending, read
from tui_agent.retrieval.scope import searched

if TYPE_CHECKING:  # numpy loads with the vectors, for a hybrid search only
    from tui_agent.retrieval.vectors import Matrix

_BATCH = 200
_WAIT_MS = 30_000
"""How long a write waits for another process's (SQLite's busy timeout)."""
_SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"})

CANDIDATES = 50
"""Passages each ranking (BM25, cosine) hands to the fusion: enough that a good passage low in one is kept."""
_embedded: dict[str, int] = {}
"""How many times this process added vectors to each index file: `vectors.nearest` loads its matrix again."""
_dimensions: dict[tuple[str, str], int] = {}
"""The length of the vectors each (index file, model) last gave a question: the matrix a search computes cosines
with while BM25 ranks (a first search, not knowing it, computes them after)."""
_VERSION = 4
"""`PRAGMA user_version` of the schema below (and `listing.SCHEMA`'s); an older file (a cache) is emptied and built
anew."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, stamp INTEGER, hash TEXT, first_rowid INTEGER, last_rowid INTEGER
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    path UNINDEXED, first UNINDEXED, last UNINDEXED, digest UNINDEXED, text, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS vectors (model TEXT, digest TEXT, vector BLOB, PRIMARY KEY (model, digest)) WITHOUT ROWID;
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
    embedded: int = 0
    """Passages whose vector was computed (an `Embedder` given)."""
    embedding_problem: str | None = None
    """Why vectors could not be computed (the endpoint's error); BM25 still answers."""


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

    def __init__(self, db_file: Path, folders: list[Path], embedder: Embedder | None = None) -> None:
        """An index of `folders` (none inside another: `scope.searched`); a hit under the first is cited by its
        path relative to it, any other by its absolute path."""
        self._folders = searched(folders[0], folders[1:]) if folders else []
        self._base = folders[0].resolve() if folders else None
        self._embedder = embedder
        self.embedding_problem: str | None = None
        """Why the last search or refresh could not use vectors (None: it could, or none were asked for)."""
        # The index's own files (and their -wal/-shm) may sit inside an indexed folder: never index them.
        self._own = str(db_file.resolve())
        self._listing = "\0".join(map(str, self._folders))
        """The folder set's key in `listings`."""
        self._db = sqlite3.connect(db_file, timeout=_WAIT_MS / 1000, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        if self._db.execute("PRAGMA user_version").fetchone()[0] != _VERSION:
            self._write(self._upgrade)

    def _upgrade(self) -> None:
        """Make the schema; an older one's tables are dropped first (the index is a cache: a refresh rebuilds
        it). Inside the write lock, checked again: another process may have upgraded meanwhile."""
        if self._db.execute("PRAGMA user_version").fetchone()[0] == _VERSION:
            return
        # Vectors are kept when their table has today's shape: keyed by the passage text's hash, they stay
        # right across a new layout of the rest, and computing them again costs the endpoint's time (and money).
        columns = [row[1] for row in self._db.execute("PRAGMA table_info(vectors)")]
        kept_vectors = columns == ["model", "digest", "vector"]
        for table in ("passages", "files", *listing.TABLES, *(() if kept_vectors else ("vectors",))):
            self._db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in filter(str.strip, (_SCHEMA + listing.SCHEMA).split(";")):
            self._db.execute(statement)
        self._db.execute(f"PRAGMA user_version = {_VERSION}")

    def close(self) -> None:
        self._db.close()

    def refresh(self, progress: Callable[[Report], None] | None = None) -> Report:
        """Bring the index up to date with the folders; each batch of changes is one transaction, after which
        `progress` hears how far it has come (a first build of a big tree takes a while). The files are read and
        split by a thread of their own (`ahead`), a batch ahead of the one SQLite is storing."""
        report = Report()
        within, patterns = self._within("path")
        # One number a file (`stamp`) rather than a pair: a tuple a row was a third of an unchanged refresh.
        known = listing.listed(self._db, self._listing)
        was_listed = known is not None
        if known is None:
            known = dict(self._db.execute(f"SELECT path, stamp FROM files WHERE {within}", patterns))
        pending = self._changed(known, report)
        wrote = False
        if pending:  # an unchanged refresh starts no thread
            chunks = (pending[start : start + _BATCH] for start in range(0, len(pending), _BATCH))
            with closing(ahead(map(read, chunks))) as batches:
                for batch in batches:
                    if batch.files:
                        self._write(partial(self._put, batch))
                        wrote = True
                    _count(report, batch)
                    if progress is not None:
                        progress(report)
        gone = list(known)  # the folders' files the walk did not find (those it found were taken out)
        if gone:  # no write transaction when nothing went: an unchanged refresh only reads
            self._write(lambda: self._forget(gone))
            wrote = True
        report.removed = len(gone)
        if wrote or not was_listed:
            self._list(within, patterns)
        if report.changed or report.removed:  # vectors of passages no file has any more
            self._write(
                partial(self._db.execute, "DELETE FROM vectors WHERE digest NOT IN (SELECT digest FROM passages)")
            )
        if self._embedder is not None:
            self._embed_missing(self._embedder, report)
        return report

    def _embed_missing(self, embedder: Embedder, report: Report) -> None:
        """Compute the vectors the folders' passages lack, a batch at a time (each batch its own transaction:
        what was embedded before a failure is kept)."""
        within, patterns = self._within("p.path")
        missing = self._db.execute(
            f"SELECT DISTINCT p.digest, p.text FROM passages p WHERE ({within}) AND NOT EXISTS"
            " (SELECT 1 FROM vectors v WHERE v.model = ? AND v.digest = p.digest)",
            (*patterns, embedder.model),
        ).fetchall()
        for start in range(0, len(missing), BATCH):
            batch = missing[start : start + BATCH]
            try:
                vectors = embedder.embed([text for _digest, text in batch])
            except EmbeddingError as error:
                report.embedding_problem = self.embedding_problem = str(error)
                return
            rows = [
                (embedder.model, digest, vector.tobytes())
                for (digest, _text), vector in zip(batch, vectors, strict=True)
            ]
            self._write(partial(self._db.executemany, "INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)", rows))
            report.embedded += len(rows)
            _embedded[self._own] = _embedded.get(self._own, 0) + 1  # kept matrices are out of date

    def counts(self, folder: Path | None = None) -> tuple[int, int]:
        """Files and passages indexed under the folders (or under `folder`, one of them)."""
        under = [folder.resolve()] if folder is not None else self._folders
        pattern = " OR ".join("path GLOB ?" for _ in under) or "0"
        globs = [f"{_glob_escaped(str(each))}/*" for each in under]
        # A skipped file (binary, huge) is recorded without a hash, so it is not read again: not an indexed one.
        files = self._db.execute(f"SELECT count(*) FROM files WHERE ({pattern}) AND hash IS NOT NULL", globs)
        files = files.fetchone()[0]
        passages = self._db.execute(f"SELECT count(*) FROM passages WHERE {pattern}", globs).fetchone()[0]
        return int(files), int(passages)

    def forget_all(self) -> int:
        """Drop everything indexed under the folders (the next refresh indexes it anew); how many files."""
        within, patterns = self._within("path")
        keys = [key for (key,) in self._db.execute(f"SELECT path FROM files WHERE {within}", patterns)]
        self._write(lambda: self._forget(keys))
        return len(keys)

    def search(self, query: str, k: int = 8) -> list[Hit]:
        """Return the `k` passages ranking best for `query`: under BM25, or, with an `Embedder`, fused with the
        passages' cosine to the query (BM25 alone when the endpoint fails: `embedding_problem` says why)."""
        if self._embedder is None or not query.strip():
            return self._bm25(query, k)
        # deferred: numpy takes ~150 ms to import, and only a hybrid search needs it (not start-up, not BM25)
        from tui_agent.retrieval.vectors import closest

        embedder = self._embedder
        kept = self._matrix(embedder.model)

        def embedded() -> tuple[array[float], list[tuple[int, str, float]] | None]:
            """The question's vector and, with a matrix of its length at hand, its nearest passages."""
            (wanted,) = embedder.embed([query])
            fits = kept is not None and len(wanted) == kept.matrix.shape[1]
            return wanted, closest(kept, wanted, CANDIDATES) if kept is not None and fits else None

        # The question is embedded and its cosines computed (numpy) while BM25 ranks (the request waits on the
        # endpoint, SQLite and numpy release the GIL): a search takes the longer of the two, not their sum.
        with ThreadPoolExecutor(1, thread_name_prefix="embed-question") as pool:
            asked = pool.submit(embedded)
            lexical = self._bm25(query, CANDIDATES)
            try:
                wanted, found = asked.result()
            except EmbeddingError as error:
                self.embedding_problem = str(error)
                return lexical[:k]  # BM25's order: its first k of more are its k
        self.embedding_problem = None
        _dimensions[(self._own, embedder.model)] = len(wanted)
        dense = self._nearest(wanted, embedder.model, CANDIDATES, found)
        by_citation = {hit.citation: hit for hit in (*lexical, *dense)}
        orders = [[hit.citation for hit in lexical], [hit.citation for hit in dense]]
        return [replace(by_citation[citation], score=score) for citation, score in fuse(orders, k)]

    def _bm25(self, query: str, k: int) -> list[Hit]:
        words = list(dict.fromkeys(f'"{word}"' for word in query.replace('"', " ").split()))
        within, patterns = self._within("path")
        return self._hits(best(self._db, words, k, within, patterns))

    def _matrix(self, model: str) -> Matrix | None:
        """The passages' vectors of `model`, of the length its vectors last had here (None: not asked yet)."""
        # deferred: numpy takes ~150 ms to import, and only a hybrid search needs it (not start-up, not BM25)
        from tui_agent.retrieval.vectors import matrix

        dimensions = _dimensions.get((self._own, model))
        if dimensions is None:
            return None
        within, patterns = self._within("path")
        return matrix(self._db, self._place, model, dimensions, within, patterns, _embedded.get(self._own, 0))

    def _nearest(
        self, wanted: array[float], model: str, k: int, found: list[tuple[int, str, float]] | None = None
    ) -> list[Hit]:
        """The `k` passages whose vectors are closest to `wanted`, closest first (`vectors.nearest`: one matrix
        product over vectors kept in memory while the index is unchanged); `found`: that product's answer, when
        computed already (`vectors.closest`)."""
        # deferred: numpy takes ~150 ms to import, and only a hybrid search needs it (not start-up, not BM25)
        from tui_agent.retrieval.vectors import forget, nearest

        within, patterns = self._within("path")
        if found is None:
            found = nearest(self._db, self._place, model, wanted, k, within, patterns, _embedded.get(self._own, 0))
        hits = self._hits([(rowid, score) for rowid, _digest, score in found], [digest for _r, digest, _s in found])
        if len(hits) < len(found):  # a passage changed under a matrix kept from before: load it again, once
            forget(self._own)
            found = nearest(self._db, self._place, model, wanted, k, within, patterns, _embedded.get(self._own, 0))
            hits = self._hits([(rowid, score) for rowid, _digest, score in found])
        return hits

    @property
    def _place(self) -> tuple[str, tuple[str, ...]]:
        """The index file and its folders: with a model, the name of a kept matrix of vectors."""
        return self._own, tuple(str(folder) for folder in self._folders)

    def _hits(self, ranked: list[tuple[int, float]], digests: list[str] | None = None) -> list[Hit]:
        """The passages of `ranked` (rowid, score), in its order; with `digests`, only those still of that text."""
        if not ranked:
            return []
        marks = ", ".join("?" * len(ranked))
        rows = self._db.execute(
            f"SELECT rowid, path, first, last, text, digest FROM passages WHERE rowid IN ({marks})",
            [rowid for rowid, _score in ranked],
        )
        found = {row[0]: row for row in rows}
        hits = []
        for number, (rowid, score) in enumerate(ranked):
            row = found.get(rowid)
            if row is None or (digests is not None and row[5] != digests[number]):
                continue
            hits.append(Hit(self._shown(row[1]), int(row[2]), int(row[3]), row[4], score))
        return hits

    def _within(self, column: str) -> tuple[str, list[str]]:
        """A condition keeping the paths under this index's folders, and its parameters."""
        within = " OR ".join(f"{column} GLOB ?" for _ in self._folders) or "0"
        return within, [f"{_glob_escaped(str(folder))}/*" for folder in self._folders]

    def _shown(self, key: str) -> str:
        # Keys are the walk's own strings under the resolved folders: a prefix says it (a `Path` a hit cost more).
        if self._base is not None:
            base = str(self._base).rstrip(os.sep) + os.sep
            if key.startswith(base):
                return key[len(base) :]
        return key  # a docs folder's file: absolute, so the citation opens from anywhere

    @property
    def folders(self) -> list[Path]:
        """The folders this index covers (resolved; none inside another)."""
        return list(self._folders)

    def _changed(self, known: dict[str, int], report: Report) -> list[Pending]:
        """The files under the folders that are new or changed since `known` (path: stamp; each file found is
        taken out of it, so what is left is gone), less the always-skipped folders and what their `.gitignore`s
        ignore; the unchanged ones are counted in `report`. One loop for the walk and the comparison, paths
        kept as strings: a `Path` an entry, or a generator's step a file, was a good part of an unchanged
        refresh's time (the walk itself is the floor: a stat a file)."""
        stack = [(str(folder), Ignored.under(folder)) for folder in self._folders]
        # The index's own files are looked for only where they can be: under one of the folders.
        own = self._own if any(self._own.startswith(f"{folder}{os.sep}") for folder in self._folders) else None
        pop = known.pop
        pending: list[Pending] = []
        unchanged = 0
        while stack:
            folder, ignored = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue
            if any(entry.name == ".gitignore" for entry in entries):
                ignored = ignored.with_file_in(Path(folder))
            covers = ignored.covers if ignored.specs else None
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in _SKIPPED_FOLDERS and not (covers and covers(entry.path, True)):
                            stack.append((entry.path, ignored))
                        continue
                    key = entry.path
                    if (
                        not entry.is_file(follow_symlinks=False)
                        or (own and key.startswith(own))
                        or (covers and covers(key, False))
                    ):
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:  # gone between the listing and the stat: the next refresh sees it
                    continue
                old = pop(key, None)
                if old == (info.st_mtime_ns * STAMP_FACTOR + info.st_size) & STAMP_MASK:  # `stamp`, inlined
                    unchanged += 1
                else:
                    pending.append((key, info, old is not None))
        report.unchanged += unchanged
        return pending

    def _list(self, within: str, patterns: list[str]) -> None:
        """Make the folders' listing for the next refresh (`listing.py`), unless another process is writing: not
        worth waiting for, the next refresh makes it."""
        self._db.execute("PRAGMA busy_timeout = 0")
        try:
            self._write(partial(listing.record, self._db, self._listing, within, patterns))
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {_WAIT_MS}")

    def _put(self, batch: Batch) -> None:
        """Store a batch of files' passages in a few statements (a skipped file, `None` for its digest, is
        recorded with none); a file whose bytes are those indexed (only touched) keeps its passages."""
        # A file's passages take consecutive rowids, after every file's (one writer at a time): its range finds
        # them again, where a `path = ?` on the FTS5 table (an unindexed column) would read every passage.
        base = self._db.execute("SELECT coalesce(max(last_rowid), 0) + 1 FROM files").fetchone()[0]
        # Read inside the write lock: another process may have indexed these files since our listing.
        olds: dict[str, tuple[str | None, int, int]] = {}
        keys = [row[0] for row in batch.files]
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT path, hash, first_rowid, last_rowid FROM files WHERE path IN ({marks})"
            found = self._db.execute(query, chunk)
            olds.update((row[0], (row[1], row[2], row[3])) for row in found)
        touched: list[tuple[int, str]] = []
        replaced: list[tuple[int, int]] = []
        files: list[tuple[object, ...]] = []
        for key, stamp, digest, offset, count in batch.files:
            old = olds.get(key)
            if old is not None and old[0] == digest:  # touched, not changed: its passages stand
                touched.append((stamp, key))
                continue
            if old is not None:
                replaced.append((old[1], old[2]))
            files.append((key, stamp, digest, base + offset, base + offset + count - 1))
        self._db.executemany("UPDATE files SET stamp = ? WHERE path = ?", touched)
        self._db.executemany("DELETE FROM passages WHERE rowid BETWEEN ? AND ?", replaced)
        # The touched files' passages are in the batch too (they were read): left out, as their rowids are taken.
        kept = " WHERE json_extract(value, '$[1]') NOT IN (SELECT value FROM json_each(?4))" if touched else ""
        self._db.execute(
            "INSERT INTO passages (rowid, path, first, last, digest, text) SELECT ?3 + json_extract(value, '$[0]'),"
            " json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),"
            " json_extract(value, '$[4]'),"
            " CAST(substr(?2, json_extract(value, '$[5]'), json_extract(value, '$[6]')) AS TEXT)"
            f" FROM json_each(?1){kept}",
            (batch.places, batch.texts, base, *([json.dumps([key for _stamp, key in touched])] if touched else [])),
        )
        self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", files)
        listing.changed(self._db)

    def _forget(self, keys: list[str]) -> None:
        listing.changed(self._db)
        for key in keys:
            old = self._db.execute("SELECT first_rowid, last_rowid FROM files WHERE path = ?", (key,)).fetchone()
            if old is not None:
                self._db.execute("DELETE FROM passages WHERE rowid BETWEEN ? AND ?", old)
                self._db.execute("DELETE FROM files WHERE path = ?", (key,))

    def _write(self, work: Callable[[], object]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")


def _count(report: Report, batch: Batch) -> None:
    """Add what reading `batch` met to `report`."""
    report.added += batch.added
    report.changed += batch.changed
    report.skipped_binary += batch.skipped_binary
    report.skipped_huge += batch.skipped_huge
    report.unreadable += batch.unreadable


def _glob_escaped(text: str) -> str:
    """`text` matched literally by GLOB (its `*`, `?` and `[` in brackets)."""
    return "".join(f"[{char}]" if char in "*?[" else char for char in text)
