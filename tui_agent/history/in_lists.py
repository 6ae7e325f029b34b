"""Provides `rows_in`: a query's rows for a long list of values, put in its `IN (...)` list a chunk at a time.

SQLite caps the parameters of one statement (999 in older builds), so history's reads by many ids or hashes
run one statement a chunk; each chunk's rows come in the statement's own order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

IN_CHUNK = 500
"""Values per `IN (...)` list."""


def rows_in(
    conn: sqlite3.Connection, sql: str, values: Sequence[object], leading: Sequence[object] = ()
) -> Iterator[Any]:
    """The rows of `sql` for all of `values`: `{marks}` in it stands for one chunk's placeholders (its last
    parameters), `leading` for the parameters before them."""
    for start in range(0, len(values), IN_CHUNK):
        chunk = values[start : start + IN_CHUNK]
        yield from conn.execute(sql.replace("{marks}", ",".join("?" * len(chunk))), (*leading, *chunk))
