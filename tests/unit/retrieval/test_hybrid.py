"""Hybrid ranking on a small corpus with known answers: BM25 fused with the offline model's embeddings over real
HTTP, vectors stored in the index's own SQLite file, embedded once, and BM25 answering when the endpoint fails."""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_agent.offline.server import BackgroundServer
from tui_agent.retrieval import index as index_module
from tui_agent.retrieval import vectors
from tui_agent.retrieval.embedder import Embedder, EmbeddingError
from tui_agent.retrieval.fusion import fuse
from tui_agent.retrieval.index import PassageIndex

GUIDE = """# Install

Run pip install to get it.

# Backups

The backup job copies the database every night.
Restore from a backup with the restore command.

# Colours

Themes change the colours of the app.
"""

FAQ = """# Keyboard

Press ctrl+q to quit the app.

# Sessions

Every conversation is kept in the history file.
"""


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    with BackgroundServer() as running:
        yield running


def _corpus(root: Path) -> None:
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "guide.md").write_text(GUIDE)
    (root / "faq.md").write_text(FAQ)


def _vectors(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT count(*) FROM vectors").fetchone()[0])


def test_hybrid_finds_what_bm25_misses_and_keeps_its_answers(tmp_path: Path, server: BackgroundServer) -> None:
    root, db = tmp_path / "docs", tmp_path / "index.db"
    _corpus(root)
    embedder = Embedder(server.base_url, "offline-embed")
    index = PassageIndex(db, [root], embedder)
    report = index.refresh()
    assert (report.added, report.embedded, report.embedding_problem) == (2, 5, None)
    assert _vectors(db) == 5  # in the index's own file, one per passage
    # "color" shares no word (nor Porter stem) with the Colours passage: BM25 alone finds nothing...
    assert PassageIndex(db, [root]).search("color") == []
    # ...the vectors find it first, and it keeps its citation.
    assert index.search("color", 3)[0].citation == "notes/guide.md:10-12"
    # Where BM25 knows the answer, the fusion keeps it first.
    assert index.search("how do I restore a backup")[0].citation == "notes/guide.md:5-8"
    assert index.search("quit keyboard")[0].citation == "faq.md:1-3"
    hits = index.search("history sessions", 2)
    assert len(hits) == 2 and hits[0].citation == "faq.md:5-7"
    assert hits[0].score > hits[1].score
    assert index.search("   ") == []  # no words: no vector to compare, no answer
    # Unchanged files are not embedded again; an edited file only its new passage.
    assert index.refresh().embedded == 0
    (root / "faq.md").write_text(FAQ.replace("ctrl+q", "ctrl+c twice"))
    report = index.refresh()
    assert (report.changed, report.embedded) == (1, 1)
    assert _vectors(db) == 5  # the old passage's vector is gone
    assert index.search("twice")[0].citation == "faq.md:1-3"
    index.close()


def test_an_endpoint_that_fails_leaves_bm25_answering(tmp_path: Path, server: BackgroundServer) -> None:
    root, db = tmp_path / "docs", tmp_path / "index.db"
    _corpus(root)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    index = PassageIndex(db, [root], Embedder(closed, "offline-embed", timeout=5))
    report = index.refresh()
    assert report.added == 2 and report.embedded == 0
    assert report.embedding_problem is not None and "could not be reached" in report.embedding_problem
    assert index.search("backup")[0].citation == "notes/guide.md:5-8"
    assert index.embedding_problem is not None
    index.close()
    # A status from an endpoint without the route is a problem in its words, not a crash.
    with pytest.raises(EmbeddingError, match="answered 404: No route POST"):
        Embedder(server.base_url + "/elsewhere", "m").embed(["text"])
    # The same index, once the endpoint answers, gets its vectors.
    index = PassageIndex(db, [root], Embedder(server.base_url, "offline-embed"))
    assert index.refresh().embedded == 5
    assert index.search("color")[0].citation == "notes/guide.md:10-12"
    assert index.embedding_problem is None
    index.close()


def test_an_index_of_the_older_schema_is_rebuilt(tmp_path: Path) -> None:
    root, db = tmp_path / "docs", tmp_path / "index.db"
    _corpus(root)
    with sqlite3.connect(db) as old:  # schema 1: passages without a digest, no vectors, no user_version
        old.executescript(
            "CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, hash TEXT);"
            "CREATE VIRTUAL TABLE passages USING fts5(path UNINDEXED, first UNINDEXED, last UNINDEXED, text);"
            f"INSERT INTO files VALUES ('{root / 'faq.md'}', 1, 1, 'x');"
        )
    index = PassageIndex(db, [root])
    assert index.refresh().added == 2
    assert index.search("backup")[0].citation == "notes/guide.md:5-8"
    index.close()


def test_fusion_rewards_agreement() -> None:
    fused = fuse([["a", "b", "c"], ["b", "d"]], 3)
    assert [item for item, _score in fused] == ["b", "a", "d"]
    assert fuse([[], []], 5) == []


def test_vectors_are_kept_in_memory_while_the_index_is_unchanged(tmp_path: Path, server: BackgroundServer) -> None:
    """`search_docs` opens a new index per call: the matrix outlives it, and any change to the index loads it
    again; a passage whose text changed under a kept matrix is never cited with the old vector's rank."""
    root, db = tmp_path / "docs", tmp_path / "index.db"
    _corpus(root)
    embedder = Embedder(server.base_url, "offline-embed")
    first = PassageIndex(db, [root], embedder)
    first.refresh()
    assert first.search("color", 1)[0].citation == "notes/guide.md:10-12"
    first.close()
    kept = dict(vectors._loaded)
    second = PassageIndex(db, [root], embedder)
    assert second.refresh().embedded == 0
    assert second.search("color", 1)[0].citation == "notes/guide.md:10-12"
    assert [id(matrix) for matrix in vectors._loaded.values()] == [id(matrix) for matrix in kept.values()]
    # A new file: a new matrix, holding the new passage's vector.
    (root / "paint.md").write_text("# Paint\n\nColor the walls grey.\n")
    assert second.refresh().embedded == 1
    wanted = embedder.embed(["colors"])[0]
    assert "paint.md:1-3" in [hit.citation for hit in second._nearest(wanted, "offline-embed", 5)]
    assert [id(matrix) for matrix in vectors._loaded.values()] != [id(matrix) for matrix in kept.values()]
    # A passage's text changed without the counts changing (another process's edit between two of ours): the
    # kept matrix still holds the old vector at that rowid. The hit is checked against its digest and dropped.
    with sqlite3.connect(db) as other:
        other.execute("UPDATE passages SET digest = 'elsewhere' WHERE path GLOB '*paint.md'")
    assert "paint.md" not in [hit.path for hit in second._nearest(wanted, "offline-embed", 5)]
    second.close()


def test_cosines_computed_beside_bm25_answer_as_those_computed_after(tmp_path: Path, server: BackgroundServer) -> None:
    """A search that knows the length of the model's vectors computes the cosines on the embedding's thread while
    BM25 ranks; the first (not knowing it) computes them after. Both give the same answers, and a kept matrix's
    stale passage is dropped either way."""
    root, db = tmp_path / "docs", tmp_path / "index.db"
    _corpus(root)
    (root / "paint.md").write_text("# Paint\n\nColor the walls grey.\n")
    index = PassageIndex(db, [root], Embedder(server.base_url, "offline-embed"))
    index.refresh()
    questions = ["color", "how do I restore a backup", "history sessions", "grey walls of the app"]
    after = []
    for question in questions:
        index_module._dimensions.clear()  # as a first search: the cosines after BM25
        after.append(index.search(question, 4))
    assert (str(db.resolve()), "offline-embed") in index_module._dimensions
    beside = [index.search(question, 4) for question in questions]
    assert beside == after and all(beside)
    wanted = Embedder(server.base_url, "offline-embed").embed(["colors"])[0]
    kept = index._matrix("offline-embed")  # as a search takes it before BM25 ranks
    assert kept is not None
    with sqlite3.connect(db) as other:  # another process changes a passage's text meanwhile
        other.execute("UPDATE passages SET digest = 'elsewhere' WHERE path GLOB '*paint.md'")
    found = vectors.closest(kept, wanted, 5)
    assert "paint.md" in [index._shown(path) for (path,) in _paths(db, [rowid for rowid, _d, _s in found])]
    assert "paint.md" not in [hit.path for hit in index._nearest(wanted, "offline-embed", 5, found)]
    index.close()


def _paths(db: Path, rowids: list[int]) -> list[tuple[str]]:
    with sqlite3.connect(db) as connection:
        marks = ", ".join("?" * len(rowids))
        return connection.execute(f"SELECT path FROM passages WHERE rowid IN ({marks})", rowids).fetchall()
