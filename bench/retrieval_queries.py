"""The query lines of bench/retrieval.py: BM25 and hybrid searches over 10,000 files, against same-run floors.

Why two corpora. bench/retrieval.py's generated tree has a 50-word vocabulary, each word in ~80% of the passages:
no word is rarer than another, so every query scores nearly every passage. That is no text anyone searches, so its
line is kept only as the worst case, against FTS5's own bare `MATCH ... ORDER BY rank LIMIT k` over the same words
(the floor: nothing can rank every passage for less). The target lines run over real text: 10,000 files sampled
evenly from this Python's standard library and installed packages (code, docstrings, READMEs, licences), with the
questions people ask of such a tree ("how do I cancel a running asyncio task"), common words and all. Their
baseline is that same bare FTS5 query, asked of the same index in the same round (the two take turns).

  - bm25_query_ms: the median, over the questions and three rounds, of `PassageIndex.search` (value <= 50 ms);
  - hybrid_query_ms: the same questions with an `Embedder`: the question embedded by the offline model over HTTP
    (127.0.0.1), then fused with BM25 (value <= 100 ms); its baseline is that embedding request alone. Every
    passage has a stored 256-float vector (random, seeded: the offline model's length; embedding 100,000 passages
    through it would take minutes and the speed does not depend on the values). The first hybrid query, which
    loads the vectors into memory, is printed apart;
  - bm25_uniform_query_ms: the uniform tree's queries, against the bare FTS5 query (ratio).
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import sysconfig
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from tui_agent.offline.server import BackgroundServer
from tui_agent.retrieval.embedder import Embedder
from tui_agent.retrieval.index import PassageIndex

QUESTIONS = [
    "how do I cancel a running asyncio task",
    "parse a date string with a timezone offset",
    "read a gzip compressed file line by line",
    "set a timeout on a socket connection",
    "copy a directory tree but ignore some files",
    "what happens to duplicate keys when decoding json",
    "temporary file deleted when it is closed",
    "retry when the sqlite database is locked",
    "how to escape html in a template",
    "the default encoding when opening a text file",
    "validate an email address field in a model",
    "where are the terminal colours and styles defined",
    "send an http request with a bearer token header",
    "why does the event loop warn about a coroutine never awaited",
    "format a number with thousands separators",
    "how is the config file found and loaded",
    "kill a subprocess after a timeout",
    "what licence is this package under",
]
_TEXT = (".py", ".pyi", ".md", ".rst", ".txt")


def real_tree(root: Path, files: int) -> int:
    """Copy `files` text files sampled evenly from this Python's library and packages into `root`; their bytes."""
    found: list[Path] = []
    for top in dict.fromkeys((sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"])):
        for folder, folders, names in os.walk(top):
            folders[:] = sorted(name for name in folders if name != "__pycache__")
            found += [Path(folder, name) for name in sorted(names) if name.endswith(_TEXT)]
    found = sorted(set(found))
    size = 0
    for number in range(min(files, len(found))):
        source = found[number * len(found) // min(files, len(found))]
        target = root / f"{number // 100:03d}" / f"{number}-{source.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        target.write_bytes(data)
        size += len(data)
    return size


def _bare(index_db: Path) -> Callable[[str], object]:
    """FTS5's own query of the same words, on its own connection: the floor of any BM25 ranking of them."""
    db = sqlite3.connect(index_db)

    def run(question: str) -> object:
        match = " OR ".join(dict.fromkeys(f'"{word}"' for word in question.replace('"', " ").split()))
        return db.execute(
            "SELECT rowid, rank FROM passages WHERE passages MATCH ? ORDER BY rank LIMIT 8", (match,)
        ).fetchall()

    return run


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def _store_vectors(index_db: Path, model: str, dimensions: int) -> int:
    """A random unit vector of `model` for every passage of the index (as `PassageIndex` stores them)."""
    rng = np.random.default_rng(7)
    with sqlite3.connect(index_db) as db:
        digests = [digest for (digest,) in db.execute("SELECT DISTINCT digest FROM passages")]
        vectors = rng.standard_normal((len(digests), dimensions)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
            ((model, digest, vector.tobytes()) for digest, vector in zip(digests, vectors, strict=True)),
        )
    return len(digests)


def realistic(folder: Path, files: int, result: Callable[[str, float, float, str], None]) -> None:
    """Index the real tree and print the BM25 and hybrid lines."""
    tree = folder / "real"
    tree.mkdir()
    size = real_tree(tree, files)
    index_db = folder / "real.db"
    index = PassageIndex(index_db, [tree])
    build_s = _timed(index.refresh) / 1000
    count, passages = index.counts()
    bare = _bare(index_db)
    index.search(QUESTIONS[0])  # the first query pays for opening the FTS tables
    bare(QUESTIONS[0])
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(3):
        for question in QUESTIONS:
            ours.append(_timed(partial(index.search, question, 8)))
            floor.append(_timed(partial(bare, question)))
    index.close()
    bm25_ms, floor_ms = statistics.median(ours), statistics.median(floor)
    print(
        f"real text: {count:,} files, {size / 1e6:.1f} MB, {passages:,} passages (indexed in {build_s:.1f} s); "
        f"{len(QUESTIONS)} questions x 3: median {bm25_ms:.1f} ms (worst {max(ours):.0f}) against FTS5's bare "
        f"query {floor_ms:.1f} ms (worst {max(floor):.0f})"
    )
    with BackgroundServer() as server:
        embedder = Embedder(server.base_url, "bench-embed")
        dimensions = len(embedder.embed(["dimensions"])[0])
        _store_vectors(index_db, embedder.model, dimensions)
        hybrid = PassageIndex(index_db, [tree], embedder)
        first_ms = _timed(lambda: hybrid.search(QUESTIONS[0], 8))
        mixed: list[float] = []
        wire: list[float] = []
        for _ in range(3):
            for question in QUESTIONS:
                mixed.append(_timed(partial(hybrid.search, question, 8)))
                wire.append(_timed(partial(embedder.embed, [question])))
        hybrid.close()
    hybrid_ms, wire_ms = statistics.median(mixed), statistics.median(wire)
    print(
        f"hybrid ({dimensions} floats a vector): median {hybrid_ms:.1f} ms (worst {max(mixed):.0f}), of which "
        f"embedding the question {wire_ms:.1f} ms; the first query, loading the vectors, {first_ms:.0f} ms"
    )
    result("bm25_query_ms", bm25_ms, floor_ms, "value<=50")
    result("hybrid_query_ms", hybrid_ms, wire_ms, "value<=100")


def uniform(
    index: PassageIndex, index_db: Path, queries: list[str], result: Callable[[str, float, float, str], None]
) -> None:
    """The generated tree's queries (every word in ~80% of the passages) against the bare FTS5 query."""
    bare = _bare(index_db)
    index.search(queries[0])
    bare(queries[0])
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(6):
        for query in queries:
            ours.append(_timed(partial(index.search, query, 8)))
            floor.append(_timed(partial(bare, query)))
    result("bm25_uniform_query_ms", statistics.median(ours), statistics.median(floor), "ratio<=1.2")
