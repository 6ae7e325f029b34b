"""BM25 that scores only the passages that can rank (`ranking.best`) answers as FTS5's own `ORDER BY rank` does,
on a corpus of Zipf-like text with common, middling and rare words, under the index's folders only."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from tui_agent.retrieval.index import PassageIndex
from tui_agent.retrieval.ranking import best

# Words by how often they come: the first few in most passages, the last in a handful.
VOCABULARY = (
    "the a to of how is in when file read write open close socket timeout retry lock backup restore parser token "
    "stream cache index query passage schedule nightly database compaction summary budget theme plugin zebra"
).split()


def _text(rng: random.Random, words: int) -> str:
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(VOCABULARY))]
    return " ".join(rng.choices(VOCABULARY, weights, k=words)).capitalize() + "."


def _tree(root: Path, files: int, seed: int) -> None:
    rng = random.Random(seed)
    root.mkdir()
    for number in range(files):
        sections = [f"# Part {part}\n\n{_text(rng, rng.randint(4, 60))}\n" for part in range(4)]
        (root / f"note{number}.md").write_text("\n".join(sections))


def _fts5(db: sqlite3.Connection, words: list[str], k: int, folder: Path) -> list[int]:
    """FTS5's own ranking of the OR of `words`, under `folder`: what `best` must answer."""
    rows = db.execute(
        "SELECT rowid FROM passages WHERE passages MATCH ? AND path GLOB ? ORDER BY rank, rowid LIMIT ?",
        (" OR ".join(words), f"{folder}/*", k),
    )
    return [rowid for (rowid,) in rows]


def test_best_ranks_as_fts5_does_scoring_fewer_passages(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    _tree(theirs, 60, seed=2)  # another project in the same index file: its passages are never answers
    _tree(ours, 120, seed=1)
    db_file = tmp_path / "index.db"
    PassageIndex(db_file, [theirs]).refresh()
    index = PassageIndex(db_file, [ours])
    index.refresh()
    db = index._db  # the index's own connection: the ranking's
    within, patterns = index._within("path")
    matches: list[str] = []
    db.set_trace_callback(matches.append)
    rng = random.Random(3)
    pruned = 0
    for _ in range(40):
        question = rng.sample(VOCABULARY[:4], 2) + rng.sample(VOCABULARY[4:], rng.randint(1, 4))
        words = [f'"{word}"' for word in question]
        for k in (1, 8):
            matches.clear()
            got = best(db, words, k, within, patterns)
            # Words in half the passages or more weigh nothing (common_words.py): FTS5 ranks the rest alike.
            total = db.execute("SELECT count(*) FROM passages_docsize").fetchone()[0]
            counted = [
                db.execute("SELECT count(*) FROM passages WHERE passages MATCH ?", (w,)).fetchone()[0] for w in words
            ]
            weighty = [w for w, n in zip(words, counted, strict=True) if 0 < 2 * n < total] or words
            expected = _fts5(db, weighty, k, ours)
            assert [rowid for rowid, _score in got] == expected, question
            assert all(score > 0 for _rowid, score in got)
            scored = [m for m in matches if "rowid, -rank" in m and " AND (" not in m and "OR" in m]
            # Some questions were answered without scoring every passage holding one of their words.
            pruned += all(m.count('"') < 2 * len(weighty) for m in scored)
    assert pruned > 0
    # Through the index: the citations are the passages' own, from our folder.
    hits = index.search("how to read a file when the socket is in timeout", 5)
    assert hits and all(hit.path.startswith("note") and not hit.path.startswith("/") for hit in hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    index.close()


def test_the_best_passages_of_another_project_are_passed_over(tmp_path: Path) -> None:
    """A hundred of the other project's passages outrank ours: the answer goes further down FTS5's order."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    for number in range(100):
        (theirs / f"t{number}.md").write_text("# Zebra\n\nzebra zebra stripes zebra\n")
    (ours / "mine.md").write_text("# Animals\n\nOne zebra among many horses and other animals in the field today.\n")
    for number in range(300):  # "zebra" stays under half of the passages
        (ours / f"other{number}.md").write_text(f"# Other\n\nNothing about stripes here, note {number}.\n")
    db_file = tmp_path / "index.db"
    PassageIndex(db_file, [theirs]).refresh()
    index = PassageIndex(db_file, [ours])
    index.refresh()
    assert [hit.citation for hit in index.search("zebra", 3)] == ["mine.md:1-3"]
    assert [hit.citation for hit in index.search("zebra stripes", 3)][:1] == ["mine.md:1-3"]
    index.close()
