"""The index's faster shapes keep its answers: words in half the passages left out of the match, one stamp a file
for mtime and size, a touched file's passages kept, a changed file's passages found again by their rowids."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tui_agent.retrieval.common_words import weighty
from tui_agent.retrieval.index import MAX_FILE_BYTES, PassageIndex


def test_words_in_half_the_passages_are_left_out_of_the_match_not_the_answers(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for number in range(10):
        rare = " The zebra grazes." if number in (3, 7) else ""
        (root / f"note{number}.md").write_text(f"# Note {number}\n\nThe project keeps note {number}.{rare}\n")
    index = PassageIndex(tmp_path / "index.db", [root])
    index.refresh()
    db = index._db  # the index's own connection: what the ranking counts against
    assert weighty(db, "passages", ['"the"', '"zebra"', '"project"', '"grazes"']) == ['"zebra"', '"grazes"']
    assert weighty(db, "passages", ['"the"', '"unicorn"']) == []  # in every passage, in none
    assert len(index.search("unicorn project", 20)) == 10  # not lost to a word in none
    assert {hit.path for hit in index.search("the zebra", 2)} == {"note3.md", "note7.md"}
    # Passages holding only "the" (BM25 scores of 1e-6 or so) are no answers beside those holding "zebra".
    assert {hit.path for hit in index.search("the zebra", 5)} == {"note3.md", "note7.md"}
    assert len(index.search("the project", 20)) == 10  # common words alone are matched in full
    index.close()


def test_a_file_of_the_same_mtime_and_another_size_is_read_again_and_a_touched_one_kept(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# Alpha\n\nOne apple.\n")
    (root / "b.md").write_text("# Beta\n\nBananas here.\n")
    os.utime(root / "a.md", ns=(5, 5))
    index = PassageIndex(tmp_path / "index.db", [root])
    index.refresh()

    def rowids(name: str) -> tuple[int, int]:
        row = index._db.execute("SELECT first_rowid, last_rowid FROM files WHERE path = ?", (str(root / name),))
        found: tuple[int, int] = row.fetchone()
        return found

    before = rowids("b.md")
    (root / "a.md").write_text("# Alpha\n\nOne apricot.\n")
    os.utime(root / "a.md", ns=(5, 5))  # the same time, another size
    os.utime(root / "b.md", ns=(7, 7))  # another time, the same bytes
    report = index.refresh()
    assert (report.changed, report.unchanged) == (2, 0)
    assert [hit.citation for hit in index.search("apricot")] == ["a.md:1-3"] and index.search("apple") == []
    assert rowids("b.md") == before  # touched, not changed: its passages stand
    assert [hit.citation for hit in index.search("bananas")] == ["b.md:1-3"]
    (root / "a.md").write_text("# Alpha\n\nCherries only.\n")
    index.refresh()
    assert index.search("apricot") == []
    assert {hit.path for hit in index.search("bananas cherries", 5)} == {"a.md", "b.md"}
    assert index.counts() == (2, 2)
    index.close()


def test_binary_and_huge_files_are_read_once_not_on_every_refresh(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "logo.png").write_bytes(b"\x89PNG\0\0" * 100)
    (root / "dump.log").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    (root / "a.md").write_text("# Alpha\n\nApples.\n")
    index = PassageIndex(tmp_path / "index.db", [root])
    first = index.refresh()
    assert (first.added, first.skipped_binary, first.skipped_huge) == (1, 1, 1)
    again = index.refresh()
    assert (again.unchanged, again.skipped_binary, again.skipped_huge) == (3, 0, 0)
    assert index.counts() == (1, 1)
    (root / "logo.png").write_text("# Logo\n\nNow a text file.\n")  # a skipped file that changes is read again
    assert index.refresh().changed == 1 and [hit.path for hit in index.search("logo")] == ["logo.png"]
    (root / "logo.png").unlink()
    assert index.refresh().removed == 1 and index.search("logo") == []
    index.close()


def test_vectors_outlive_an_upgrade_of_the_other_tables(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    with sqlite3.connect(db) as old:  # schema 2: files keyed by mtime and size, vectors as today
        old.executescript(
            "CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, hash TEXT);"
            "CREATE VIRTUAL TABLE passages USING fts5(path UNINDEXED, first UNINDEXED, last UNINDEXED,"
            " digest UNINDEXED, text);"
            "CREATE TABLE vectors (model TEXT, digest TEXT, vector BLOB, PRIMARY KEY (model, digest)) WITHOUT ROWID;"
            "INSERT INTO vectors VALUES ('m', 'd', x'00000000');"
            "PRAGMA user_version = 2;"
        )
    index = PassageIndex(db, [tmp_path])
    assert index._db.execute("SELECT model, digest FROM vectors").fetchall() == [("m", "d")]  # paid for: kept
    assert [row[1] for row in index._db.execute("PRAGMA table_info(files)")][:2] == ["path", "stamp"]
    index.close()
