"""Provides `nearest`: the passages whose stored vectors are closest (cosine) to a question's, with one numpy matrix
product over vectors kept in memory between searches.

Reading and decoding every vector from SQLite costs far more than the product (about a second against a few ms for
100,000 passages), so the folders' vectors are loaded once into a float32 matrix and kept in this process, keyed
by the index file, the model and the folders (`search_docs` opens a new `PassageIndex` per call). Every search
checks a signature of the index first — FTS5's own records of the passages (`fts_state`: any write changes them)
and how many times this process added vectors (`generation`) — which any refresh that adds, removes or embeds
changes, and loads the matrix again when it differs. (Vectors another process adds for passages already indexed
are used once the index next changes; `search_docs` refreshes, and so embeds what is missing, in its own process
before each search.)
Each hit's digest is returned too: the caller drops a hit whose passage no longer has that text (`forget`), so a
stale matrix can miss a passage but never cite the wrong one.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui_agent.retrieval.fts_state import state

_KEPT = 4
"""Matrices kept (the least recently used goes): one a project and model, a few projects a process."""


@dataclass(frozen=True)
class Matrix:
    """The vectors of one model of an index's passages, kept in memory while the index is unchanged."""

    signature: tuple[object, ...]
    rowids: npt.NDArray[np.int64]
    digests: list[str]
    matrix: npt.NDArray[np.float32]
    """One unit vector a row; all of the query's length (vectors of another length cannot be compared)."""


_loaded: dict[tuple[str, str, tuple[str, ...], int], Matrix] = {}


def nearest(
    db: sqlite3.Connection,
    place: tuple[str, tuple[str, ...]],
    model: str,
    wanted: array[float],
    k: int,
    within: str,
    patterns: Sequence[str],
    generation: int = 0,
) -> list[tuple[int, str, float]]:
    """The rowid, digest and cosine of the `k` passages (matching `within`, a condition on `path`, with
    `patterns`) whose vectors of `model` are closest to `wanted`, closest first; only cosines above 0 (nothing
    in common is no answer). `place`: the index file and its folders, which with `model` name the matrix;
    `generation`: how many times this process added vectors to that file (a new one loads the matrix again)."""
    return closest(matrix(db, place, model, len(wanted), within, patterns, generation), wanted, k)


def matrix(
    db: sqlite3.Connection,
    place: tuple[str, tuple[str, ...]],
    model: str,
    dimensions: int,
    within: str,
    patterns: Sequence[str],
    generation: int = 0,
) -> Matrix:
    """The vectors of `model` with `dimensions` floats of the passages `nearest` names, loaded or kept."""
    return _fresh(db, (place[0], model, place[1], dimensions), model, within, patterns, generation)


def closest(loaded: Matrix, wanted: array[float], k: int) -> list[tuple[int, str, float]]:
    """`nearest`'s answer from a matrix already at hand: numpy alone (which releases the GIL), no SQLite, so it can
    run on another thread while the SQLite connection ranks BM25."""
    if not loaded.digests:
        return []
    cosines = loaded.matrix @ np.frombuffer(wanted.tobytes(), dtype=np.float32)
    count = min(k, len(cosines))
    picked = np.argpartition(-cosines, count - 1)[:count]
    picked = picked[np.argsort(-cosines[picked], kind="stable")]
    return [(int(loaded.rowids[row]), loaded.digests[row], float(cosines[row])) for row in picked if cosines[row] > 0.0]


def forget(db_file: str) -> None:
    """Drop the matrices of the index file `db_file` (a hit showed one stale)."""
    for key in [key for key in _loaded if key[0] == db_file]:
        del _loaded[key]


def _fresh(
    db: sqlite3.Connection,
    key: tuple[str, str, tuple[str, ...], int],
    model: str,
    within: str,
    patterns: Sequence[str],
    generation: int,
) -> Matrix:
    # Not a count of the vectors (their table holds the blobs in its b-tree, so counting reads them all: ~1 s), nor
    # of the passages (~5 ms a search).
    signature = (*state(db, "passages"), generation)
    loaded = _loaded.pop(key, None)
    if loaded is None or loaded.signature != signature:
        loaded = _load(db, signature, model, key[3], within, patterns)
    _loaded[key] = loaded  # last: the most recently used
    while len(_loaded) > _KEPT:
        del _loaded[next(iter(_loaded))]
    return loaded


def _load(
    db: sqlite3.Connection,
    signature: tuple[object, ...],
    model: str,
    dimensions: int,
    within: str,
    patterns: Sequence[str],
) -> Matrix:
    # Two scans, matched here, rather than a join: a vector looked up a passage at a time reads the table's pages
    # out of order (15 s against 2 s for 100,000 passages).
    stored = db.execute(
        "SELECT digest, vector FROM vectors WHERE model = ? AND length(vector) = ?", (model, 4 * dimensions)
    ).fetchall()
    where = {digest: number for number, (digest, _vector) in enumerate(stored)}
    passages = [
        (rowid, digest, where[digest])
        for rowid, digest in db.execute(f"SELECT rowid, digest FROM passages WHERE {within}", patterns)
        if digest in where
    ]
    # One join of the blobs and one decode: a numpy array a row would cost more than the rows' reading.
    every = np.frombuffer(b"".join(vector for _digest, vector in stored), dtype=np.float32)
    every = every.reshape(len(stored), dimensions)
    rows = np.fromiter((row[2] for row in passages), dtype=np.int64, count=len(passages))
    rowids = np.fromiter((row[0] for row in passages), dtype=np.int64, count=len(passages))
    return Matrix(signature, rowids, [row[1] for row in passages], every[rows])
