"""FTS5's own records stand for a count of the passages and for the index's state: the counts `common_words` keeps
follow every change, by this connection or another, even one that leaves the passages' count and rowids as they
were."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tui_agent.retrieval.common_words import held
from tui_agent.retrieval.fts_state import passages, state
from tui_agent.retrieval.index import PassageIndex


def test_the_averages_record_counts_the_rows_and_every_write_changes_the_state() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    assert passages(state(db, "t")) == 0
    seen = {state(db, "t")}
    for rows in (3, 200, 20_000):  # one-, two- and three-byte varints
        db.executemany("INSERT INTO t VALUES (?)", [("a b",)] * rows)
        seen.add(state(db, "t"))
        assert passages(state(db, "t")) == db.execute("SELECT count(*) FROM t_docsize").fetchone()[0]
    db.execute("DELETE FROM t WHERE rowid < 100")
    assert passages(state(db, "t")) == 20_203 - 99
    seen.add(state(db, "t"))
    db.execute("UPDATE t SET x = 'c d' WHERE rowid = 500")  # the same count of rows and of tokens
    seen.add(state(db, "t"))
    assert len(seen) == 6  # the empty table, three inserts, a delete, an update


def test_kept_word_counts_follow_the_index_through_changes_that_keep_its_size(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for number in range(6):
        (root / f"n{number}.md").write_text(f"# N{number}\n\nPlain note {number} about apples.\n")
    (root / "z.md").write_text("# Z\n\nA zebra grazes.\n")
    db_file = tmp_path / "index.db"
    index = PassageIndex(db_file, [root])
    index.refresh()
    db = index._db  # the index's own connection: what the ranking counts against
    assert held(db, "passages", ['"zebra"', '"apples"', '"unicorn"']) == [1, 4, 0]  # "apples" stops at half
    # The last file goes and another of as many passages comes: the same count, the same rowids, other words.
    (root / "z.md").unlink()
    index.refresh()
    (root / "u.md").write_text("# U\n\nA unicorn grazes.\n")
    index.refresh()
    assert held(db, "passages", ['"zebra"', '"unicorn"']) == [0, 1]
    # Another process's write (another connection) is seen too.
    (root / "u.md").write_text("# U\n\nA zebra and a unicorn.\n")
    other = PassageIndex(db_file, [root])
    other.refresh()
    other.close()
    assert held(db, "passages", ['"zebra"', '"unicorn"', '"grazes"']) == [1, 1, 0]
    assert [hit.path for hit in index.search("zebra", 3)] == ["u.md"]
    index.close()
