"""Provides `rolled_tallies`: what a session cost with its sub-agents', for `sessions list` and the session
screen's rows.

A caller's row counts the tokens and cost of every sub-agent run below it (every level down, as its status line
did live), each reply priced by its own model; the sub-agents' rows, listed under it, keep their own. A fork is
not a sub-agent run: it counts alone.

The sessions asked about are the tree's roots as given (`json_each`), not looked up: a page of them is scattered
over the sessions' id index, and one lookup each was a third of the session screen's first page. A session's
model is read only for the replies that name none.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from tui_agent.history.models import Usage
from tui_agent.history.rows import CACHE_WRITES_VERSION, CACHED_VERSION
from tui_agent.history.schema import user_version
from tui_agent.history.sub_sessions import DELEGATE_PREFIX, IS_SUB, MAX_DEPTH
from tui_agent.history.usage import Tally
from tui_agent.prices import PriceTable

_TREE = (
    "WITH RECURSIVE tree(root, id, depth) AS (SELECT value, value, 0 FROM json_each(:ids) "
    "UNION SELECT tree.root, s.id, tree.depth + 1 FROM sessions s JOIN tree ON s.parent_session_id = tree.id "
    f"WHERE tree.depth < :depth AND {IS_SUB}) "
)


@dataclass
class RolledTally:
    """A session's tokens and cost with its sub-agents' (`tally`), and how many sub-agent runs they include."""

    tally: Tally = field(default_factory=Tally)
    sub_runs: int = 0


def rolled_tallies(
    conn: sqlite3.Connection, session_ids: list[str], prices: PriceTable, *, count_runs: bool = True
) -> dict[str, RolledTally]:
    """Session id -> its replies' and its sub-agent runs' tokens and cost (sessions without usage are absent);
    `sub_runs` is counted only with `count_runs` (a row of the session screen does not show it)."""
    if not session_ids:
        return {}
    params: dict[str, object] = {"ids": json.dumps(session_ids), "prefix": DELEGATE_PREFIX, "depth": MAX_DEPTH}
    version = user_version(conn)
    cached = "m.cached_tokens" if version >= CACHED_VERSION else "NULL"
    written = "m.cache_write_tokens" if version >= CACHE_WRITES_VERSION else "NULL"
    rolled: dict[str, RolledTally] = {}
    usage_rows = conn.execute(
        f"{_TREE}SELECT tree.root, COALESCE(m.model, (SELECT s.model FROM sessions s WHERE s.id = m.session_id)), "
        f"SUM(COALESCE(m.prompt_tokens, 0)), SUM(COALESCE(m.completion_tokens, 0)), SUM(COALESCE({cached}, 0)), "
        f"SUM(COALESCE({written}, 0)) FROM tree JOIN messages m ON m.session_id = tree.id "
        "WHERE m.prompt_tokens IS NOT NULL OR m.completion_tokens IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2",
        params,
    )
    for root, model, prompt, completion, cached_tokens, written_tokens in usage_rows:
        usage = Usage(prompt, completion, cached_tokens, written_tokens)
        rolled.setdefault(root, RolledTally()).tally.add(model, usage, prices)
    if not count_runs:
        return rolled
    runs = conn.execute(f"{_TREE}SELECT root, COUNT(DISTINCT id) FROM tree WHERE depth > 0 GROUP BY root", params)
    for root, count in runs:
        if root in rolled:
            rolled[root].sub_runs = int(count)
    return rolled
