"""Provides `weighty`: the words of a question that carry weight in FTS5's BM25, leaving out those in at least half of
the passages ("the", "a", a project's own name).

FTS5 computes a word's idf as log((N - n + 0.5) / (n + 0.5)) for n passages holding it out of N, and floors it at
1e-6 where that is not positive, i.e. from n >= N / 2 on: such a word adds at most 2.2e-6 to any score. Yet matching
it makes FTS5 score every passage it is in (most of the index), and scoring is what a query costs (about 1 µs a
passage). Leaving those words out of the match changes no passage's score by more than that and no order but ties,
while scoring only the passages holding a rarer word; the passages holding only common words, which would have
scored 1e-6 or so, are no answers (a question of common words only is matched in full). A word's count stops at N /
2: counting a doclist is some twenty times cheaper than scoring it, and the count need go no further.

The counts are kept in this process per index file and its state (`fts_state`: FTS5's own records, which every
write changes): a question's common words ("a", "the", "in") cost some 5 ms each to count over 100,000 passages,
on every question, for the same answer until the index changes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from tui_agent.retrieval.fts_state import State, passages, state

_KEPT = 4
"""Index files whose counts are kept (the least recently used goes)."""
_counts: dict[tuple[str, str], tuple[State, dict[str, int]]] = {}
"""(index file, table): (its state, {word: passages holding it, up to half}); see `_known`."""


def weighty(db: sqlite3.Connection, table: str, words: Sequence[str]) -> list[str]:
    """Those of `words` (each a one-word FTS5 phrase, quoted) in some of `table`'s passages but fewer than half.
    (A word in none weighs nothing either: "backup zebra" in a two-file project is "backup", matched in full.)"""
    total = passages(state(db, table))
    return [word for word, count in zip(words, held(db, table, words), strict=True) if 0 < 2 * count < total]


def held(db: sqlite3.Connection, table: str, words: Sequence[str]) -> list[int]:
    """How many of `table`'s passages hold each of `words` (quoted FTS5 phrases), counted up to half of them: a
    count of half or more says only that the word weighs nothing."""
    now = state(db, table)
    known = _known(db, table, now)
    missing = [word for word in dict.fromkeys(words) if word not in known]
    if missing:
        half = (passages(now) + 1) // 2
        query = f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)"
        for word in missing:
            known[word] = int(db.execute(query, (word, half)).fetchone()[0])
    return [known[word] for word in words]


def _known(db: sqlite3.Connection, table: str, now: State) -> dict[str, int]:
    """The counts kept for `table` of `db`'s file while it is in state `now` (a new dict when it has changed). An
    in-memory or temporary database (no file name) keeps nothing."""
    name = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not name:
        return {}
    kept = _counts.pop((name, table), None)
    counts = kept[1] if kept is not None and kept[0] == now else {}
    _counts[(name, table)] = (now, counts)  # last: the most recently used
    while len(_counts) > _KEPT:
        del _counts[next(iter(_counts))]
    return counts
