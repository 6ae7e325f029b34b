"""Provides `best`: the top `k` passages under FTS5's BM25 for a question, scoring the few passages that can
rank rather than every passage holding one of its words.

A question's words are far from equal: "how do I cancel a running asyncio task" holds "a" (in a third of a code
base's passages) and "asyncio" (in a few hundred). FTS5 scores every passage matching any word, about 5 µs a
passage, so the question's common words set its cost (300 ms over 100,000 passages) while adding little to the
passages that rank. This is MaxScore (Turtle & Flood, 1995), with FTS5 doing the scoring:
  - the words, rarest first, are split into essential (the rarest `j`) and the rest;
  - the passages holding an essential word get their full score from FTS5 itself: `E` scores them on the
    essential words, `(E) AND (R)` those also holding one of the rest on every word (the same phrases, so the
    same idf, and each counted once);
  - a passage holding none of the essential words scores at most the sum, over the rest, of a word's most
    (BM25 tends to idf * (k1 + 1) as its count grows, never reaching it). When that is below the k-th best
    score found, no such passage can rank: the answer is exact. Otherwise, since that k-th score only rises as
    words become essential, the next round makes essential the fewest words whose rest is below it, and scores
    only the passages holding one of its new essential words and none of the earlier ones (`NOT`).
The order is FTS5's own `ORDER BY rank` (ties by rowid); `tests/unit/retrieval/test_ranking.py` checks them equal.
Words in half the passages or more weigh nothing (`common_words.py`) and are left out, as before.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections.abc import Sequence

from tui_agent.retrieval.common_words import held
from tui_agent.retrieval.fts_state import passages, state

K1 = 1.2
"""FTS5's bm25() constant k1 (fts5_aux.c): a word's weight in a passage tends to idf * (K1 + 1)."""
_MARGIN = 1.0 + 1e-9
"""A word's bound is raised by this much: floating-point sums must never make a bound too low."""


def best(
    db: sqlite3.Connection, words: Sequence[str], k: int, within: str, patterns: Sequence[str]
) -> list[tuple[int, float]]:
    """The rowids and BM25 scores of the `k` passages of table `passages` (matching `within`, a condition on
    `path`, with `patterns`) ranking best for the OR of `words` (each a quoted one-word FTS5 phrase), best first."""
    if not words:
        return []
    total = passages(state(db, "passages"))  # FTS5's own count, its idf's N (a count(*) read every row: ~5 ms)
    counts = held(db, "passages", words)
    weighty = sorted((count, word) for word, count in zip(words, counts, strict=True) if 0 < 2 * count < total)
    if not weighty:  # only common words (or none the index holds): the question is matched in full
        return _ranked(db, " OR ".join(words), k, within, patterns)
    bounds = [(K1 + 1.0) * _idf(count, total) * _MARGIN for count, _word in weighty]
    ordered = [word for _count, word in weighty]
    # rest[j]: the most a passage holding only words from the j-th on can score.
    rest = [sum(bounds[j:]) for j in range(len(ordered))] + [0.0]
    # The first round's essential words: the rarest (at least one; together in at most a twentieth of the
    # passages), whose passages are few enough to score on every word, for a first k-th best score.
    essential = 1
    while essential < len(ordered) and sum(count for count, _word in weighty[: essential + 1]) <= total // 20:
        essential += 1
    scores: dict[int, float] = {}
    scored = 0  # the words whose passages `scores` holds, each passage scored on every word
    while True:
        # Only the passages holding a word made essential this round but none made so before: the others' scores
        # are already full, and FTS5 scoring them again was half of a second round's cost.
        new = " OR ".join(ordered[scored:essential])
        if scored:
            new = f"({new}) NOT ({' OR '.join(ordered[:scored])})"
        found = dict(db.execute(_SCORED, (new,)))
        if essential < len(ordered) and found:  # those holding one of the rest too, scored on every word
            found |= dict(db.execute(_SCORED, (_both(new, ordered[essential:]),)))
        scores |= found
        scored = essential
        top = _best_within(db, scores, k, within, patterns)
        floor = top[-1][1] if len(top) == k else 0.0
        if essential == len(ordered) or rest[essential] < floor:
            return top
        # More essential words bring more passages, so the k-th best score never falls: the next round makes
        # essential the fewest words whose rest is below this one's.
        essential = next((j for j in range(essential + 1, len(ordered)) if rest[j] < floor), len(ordered))


_SCORED = "SELECT rowid, -rank FROM passages WHERE passages MATCH ?"


def _both(new: str, rest: list[str]) -> str:
    """The passages matching `new` (an essential word) and holding one of the rest: FTS5 scores them on every
    word, once each (a word under NOT adds nothing to a passage, which lacks it)."""
    return f"({new}) AND ({' OR '.join(rest)})"


def _idf(count: int, total: int) -> float:
    """FTS5's idf of a word in `count` of `total` passages (fts5_aux.c: floored at 1e-6)."""
    idf = math.log((total - count + 0.5) / (count + 0.5))
    return idf if idf > 0.0 else 1e-6


def _best_within(
    db: sqlite3.Connection, scores: dict[int, float], k: int, within: str, patterns: Sequence[str]
) -> list[tuple[int, float]]:
    """The `k` best of `scores` (rowid: score) whose passages are under the folders, best first. The folders are
    checked for the best few only: a path condition in the scoring query reads every match's row from the
    content table, which costs more than scoring it."""
    wanted = k
    while True:
        ranked = _first(scores, wanted)
        kept = _kept(db, [rowid for rowid, _score in ranked], within, patterns)
        top = [pair for pair in ranked if pair[0] in kept][:k]
        if len(top) == k or len(ranked) == len(scores):
            return top
        wanted *= 4  # another project's passages ranked among the best: look further down


def _first(scores: dict[int, float], wanted: int) -> list[tuple[int, float]]:
    """The `wanted` best of `scores` (rowid: score), best first, ties by rowid: `ORDER BY rank`'s order. The
    `wanted`-th best score is found among the bare floats (compared in C), and only those reaching it sorted: a
    key function a passage (`heapq.nsmallest` on thousands) was a tenth of a search."""
    if len(scores) > wanted:
        least = heapq.nlargest(wanted, scores.values())[-1]
        chosen = [pair for pair in scores.items() if pair[1] >= least]
    else:
        chosen = list(scores.items())
    chosen.sort(key=lambda pair: (-pair[1], pair[0]))
    return chosen[:wanted]


def _kept(db: sqlite3.Connection, rowids: list[int], within: str, patterns: Sequence[str]) -> set[int]:
    """Those of `rowids` whose passages are under the folders."""
    kept: set[int] = set()
    for start in range(0, len(rowids), 500):
        chunk = rowids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = db.execute(f"SELECT rowid FROM passages WHERE rowid IN ({marks}) AND ({within})", (*chunk, *patterns))
        kept.update(rowid for (rowid,) in rows)
    return kept


def _ranked(
    db: sqlite3.Connection, match: str, k: int, within: str, patterns: Sequence[str]
) -> list[tuple[int, float]]:
    """FTS5's own ranking of `match`, the first `k` under the folders. `rank` (BM25 by default) rather than a bm25()
    call: FTS5 sorts by it without calling back into SQL per row; and the folders are checked a batch of the
    best at a time, not in the query, which would read every match's row from the content table."""
    rows = db.execute("SELECT rowid, -rank FROM passages WHERE passages MATCH ? ORDER BY rank", (match,))
    top: list[tuple[int, float]] = []
    while len(top) < k:
        batch = rows.fetchmany(4 * k)
        if not batch:
            break
        kept = _kept(db, [rowid for rowid, _score in batch], within, patterns)
        top += [(int(rowid), float(score)) for rowid, score in batch if rowid in kept]
    return top[:k]
