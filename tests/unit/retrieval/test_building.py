"""The index's build path: files read a batch ahead by a thread (`ahead`), each batch stored in one statement from
a blob of texts and a JSON list of places. Real files, a real SQLite file: every passage lands at its lines with
its exact text, touched files keep their passages, and bad input (unreadable files, a name that is not UTF-8, a
file deleted mid-build, the write lock held by another process) is reported, with the reading thread stopped and
the index sound."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_agent.retrieval.ahead import ahead
from tui_agent.retrieval.index import PassageIndex, Report
from tui_agent.retrieval.passages import split


def _readers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "retrieval-ahead"]


def _sound(index: PassageIndex) -> None:
    """SQLite's and FTS5's own checks of the index file find nothing wrong."""
    assert index._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    index._db.execute("INSERT INTO passages (passages) VALUES ('integrity-check')")  # raises when corrupt


def test_ahead_hands_over_every_item_then_the_producers_error_and_stops_when_closed() -> None:
    assert list(ahead(iter(range(50)), depth=2)) == list(range(50))

    def failing() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("disk gone")

    got: list[int] = []
    with pytest.raises(ValueError, match="disk gone"):
        for item in ahead(failing()):
            got.append(item)
    assert got == [1, 2]

    made: list[int] = []

    def endless() -> Iterator[int]:
        number = 0
        while True:
            made.append(number)
            yield number
            number += 1

    items = ahead(endless(), depth=2)
    assert [next(items) for _ in range(3)] == [0, 1, 2]
    items.close()  # the consumer stops early: the thread ends, a few items ahead at most
    assert _readers() == [] and len(made) <= 3 + 2 + 1


def test_a_build_of_several_batches_stores_exact_texts_at_their_lines_and_keeps_touched_files(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    texts = {}
    for number in range(450):  # three batches
        text = f"# Note {number}\n\nword{number} café ☕ naïve\n\n## Part\n\nsecond part of {number}\n"
        texts[f"note{number}.md"] = text
        (root / f"note{number}.md").write_text(text)
    (root / "windows.md").write_bytes(b"# Crlf\r\n\r\nline ends\r\nhere\r\n")
    (root / "late_nul.txt").write_bytes(b"# Late\n\n" + b"a" * 9000 + b"\0 nul after the binary check\n")
    index = PassageIndex(tmp_path / "index.db", [root])
    heard: list[int] = []
    report = index.refresh(lambda report: heard.append(report.added))
    assert (report.added, report.unreadable) == (452, [])
    assert heard == sorted(heard) and heard[-1] == 452 and len(heard) == 3  # progress after each batch
    assert _readers() == []
    stored = {
        (Path(path).name, first, last): text
        for path, first, last, text in index._db.execute("SELECT path, first, last, text FROM passages")
    }
    for name in ("note0.md", "note199.md", "note200.md", "note449.md", "windows.md", "late_nul.txt"):
        raw = (root / name).read_bytes().decode()
        for part in split(raw, markdown=True):
            assert stored[(name, part.first, part.last)] == part.text  # byte-exact: accents, emoji, \r, NUL
    assert [hit.citation for hit in index.search("word321")] == ["note321.md:1-3"]
    assert [hit.citation for hit in index.search("line ends")] == ["windows.md:1-4"]

    def rowids(name: str) -> tuple[int, int]:
        query = "SELECT first_rowid, last_rowid FROM files WHERE path = ?"
        found: tuple[int, int] = index._db.execute(query, (str(root / name),)).fetchone()
        return found

    before = rowids("note10.md")
    for number in range(0, 450, 3):  # touched (same bytes, another time) in the same batches as changed ones
        os.utime(root / f"note{number}.md", ns=(number + 1, number + 1))
    for number in range(1, 450, 3):
        (root / f"note{number}.md").write_text(f"# Note {number}\n\nrewritten{number} entirely\n")
    report = index.refresh()
    assert (report.changed, report.added, report.unchanged) == (300, 0, 152)
    assert rowids("note10.md") != before and rowids("note9.md")[0] > 0
    assert [hit.citation for hit in index.search("word9")] == ["note9.md:1-3"]  # touched: still found, once
    assert index.search("word10") == [] and [h.path for h in index.search("rewritten10")] == ["note10.md"]
    assert index.counts() == (452, 2 * 300 + 150 + 2)
    _sound(index)
    index.close()


def test_bad_files_in_a_build_are_reported_and_tried_again_and_the_index_stays_sound(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for number in range(450):
        (root / f"note{number}.md").write_text(f"# Note {number}\n\nword{number}\n")
    odd = os.path.join(os.fsencode(root), b"caf\xe9.md")  # Latin-1 bytes: a name that is not UTF-8
    with open(odd, "wb") as file:
        file.write(b"# Odd\n\nzebra\n")
    doomed = root / "note449.md"  # in the last batch: deleted while the first is being stored

    def delete_once(report: Report) -> None:
        doomed.unlink(missing_ok=True)

    index = PassageIndex(tmp_path / "index.db", [root])
    report = index.refresh(delete_once)
    assert report.unreadable[0].endswith("caf\\xe9.md: its name is not UTF-8")
    # The reader is a batch or two ahead: the file was read before it went, or is reported unreadable.
    assert report.added + len(report.unreadable) == 451
    again = index.refresh()
    assert again.unreadable == report.unreadable[:1]  # tried again, reported again, never fatal
    assert index.search("word449") == [] and index.counts()[0] == 449
    _sound(index)

    # Another process holds the write lock past the wait: the refresh fails with SQLite's error, the reading
    # thread stops, nothing is half-written, and the next refresh does the work.
    for number in range(450, 700):
        (root / f"note{number}.md").write_text(f"# Note {number}\n\nword{number}\n")
    other = sqlite3.connect(tmp_path / "index.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    index._db.execute("PRAGMA busy_timeout = 50")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        index.refresh()
    assert _readers() == []
    other.execute("ROLLBACK")
    other.close()
    assert index.counts()[0] == 449
    assert index.refresh().added == 250 and [hit.path for hit in index.search("word650")] == ["note650.md"]
    _sound(index)
    index.close()


def test_an_index_file_inside_the_indexed_folder_is_never_indexed(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nzebra\n")
    index = PassageIndex(tmp_path / "index.db", [tmp_path])
    index.refresh()
    report = index.refresh()  # by now the index's -wal and -shm files are there too
    assert (report.unchanged, report.added, report.skipped_binary) == (1, 0, 0)
    assert [Path(path).name for (path,) in index._db.execute("SELECT path FROM files")] == ["notes.md"]
    index.close()
