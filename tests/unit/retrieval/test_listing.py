"""The folder set's listing (`listing.py`): an unchanged refresh reads the index's paths and stamps from one row,
trusts it only while no write has touched the files since, and never waits on another process to make it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tui_agent.retrieval.index import PassageIndex


def _tree(root: Path, count: int) -> None:
    root.mkdir()
    for number in range(count):
        (root / f"note{number}.md").write_text(f"# Note {number}\n\nword{number}\n")


def test_an_unchanged_refresh_reads_the_listing_not_a_row_a_file(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    _tree(root, 30)
    index = PassageIndex(tmp_path / "index.db", [root])
    index.refresh()
    statements: list[str] = []
    index._db.set_trace_callback(statements.append)
    report = index.refresh()
    index._db.set_trace_callback(None)
    assert report.unchanged == 30
    assert not [line for line in statements if "FROM files" in line]  # one row of the listing, no write
    assert not [line for line in statements if "BEGIN" in line]
    (root / "note3.md").write_text("# Note 3\n\nrewritten\n")
    (root / "note4.md").unlink()
    report = index.refresh()
    assert (report.changed, report.removed, report.unchanged) == (1, 1, 28)
    assert index.refresh().unchanged == 29 and [hit.path for hit in index.search("rewritten")] == ["note3.md"]
    index._db.execute("UPDATE listings SET stamps = x'00'")  # a row this code did not make: read as none
    assert index.refresh().unchanged == 29
    index.close()


def test_a_listing_made_before_another_index_wrote_is_not_trusted(tmp_path: Path) -> None:
    root, other = tmp_path / "docs", tmp_path / "other"
    _tree(root, 5)
    _tree(other, 2)
    db = tmp_path / "index.db"
    ours = PassageIndex(db, [root])
    both = PassageIndex(db, [root, other])  # another folder set (another listing) over the same files
    ours.refresh()
    both.refresh()
    (root / "note1.md").write_text("# Note 1\n\nchanged by the other index\n")
    os.utime(root / "note2.md", ns=(9, 9))
    assert both.refresh().changed == 2  # written by the other index: our listing's stamps are out of date
    report = ours.refresh()
    # Trusting the old listing would read both files as changed again; the index already holds them.
    assert (report.changed, report.unchanged) == (0, 5)
    assert [hit.path for hit in ours.search("changed other")] == ["note1.md"]
    both.close()
    ours.close()


def test_a_refresh_does_not_wait_on_another_process_to_make_its_listing(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    _tree(root, 5)
    db = tmp_path / "index.db"
    PassageIndex(db, [root]).refresh()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("DELETE FROM listings")
    other.execute("BEGIN IMMEDIATE")  # another process writing (its busy timeout would be 30 s)
    index = PassageIndex(db, [root])
    assert index.refresh().unchanged == 5  # read from the files table, the listing left for later
    other.execute("ROLLBACK")
    other.close()
    assert index.refresh().unchanged == 5
    assert index._db.execute("SELECT count(*) FROM listings").fetchone() == (1,)
    index.close()
