"""Provides `rolled_tallies`: what a session cost with its sub-agents', for `sessions list` and the session
screen's rows.

A caller's row counts the tokens and cost of every sub-agent run below it (every level down, as its status line
did live), each reply priced by its own model; the sub-agents' rows, listed under it, keep their own. A fork is
not a sub-agent run: it counts alone.

A session's own replies are summed by one flat read over the page's ids as given (`json_each`: a page of them is
scattered over the sessions' id index, and a lookup each was a third of the session screen's first page); its
sub-agent runs are walked down from the ones that have a sub-agent (few: the recursive walk from every session was
another third). Both are summed per (session, model) before pricing, as one `GROUP BY` would. A session's model is
read only for the replies that name none.
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

_SUBS = (
    "WITH RECURSIVE subs(root, id, depth) AS (SELECT s.parent_session_id, s.id, 1 FROM sessions s "
    f"WHERE s.parent_session_id IN (SELECT value FROM json_each(:ids)) AND {IS_SUB} "
    "UNION SELECT subs.root, s.id, subs.depth + 1 FROM sessions s JOIN subs ON s.parent_session_id = subs.id "
    f"WHERE subs.depth < :depth AND {IS_SUB}) "
)
_SUMS = (
    "COALESCE(m.model, (SELECT s.model FROM sessions s WHERE s.id = m.session_id)), "
    "SUM(COALESCE(m.prompt_tokens, 0)), SUM(COALESCE(m.completion_tokens, 0)), SUM(COALESCE({cached}, 0)), "
    "SUM(COALESCE({written}, 0))"
)
_REPLIED = "m.prompt_tokens IS NOT NULL OR m.completion_tokens IS NOT NULL"


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
    params: dict[str, object] = {
        "ids": json.dumps(list(dict.fromkeys(session_ids))),
        "prefix": DELEGATE_PREFIX,
        "depth": MAX_DEPTH,
    }
    version = user_version(conn)
    sums = _SUMS.format(
        cached="m.cached_tokens" if version >= CACHED_VERSION else "NULL",
        written="m.cache_write_tokens" if version >= CACHE_WRITES_VERSION else "NULL",
    )
    totals: dict[tuple[str, str | None], list[int]] = {}
    own = f"SELECT value, {sums} FROM json_each(:ids) JOIN messages m ON m.session_id = value WHERE {_REPLIED}"
    below = f"SELECT subs.root, {sums} FROM subs JOIN messages m ON m.session_id = subs.id WHERE {_REPLIED}"
    # One statement for both: on the session screen's first read each statement is prepared anew, which cost
    # as much as its walk.
    for root, model, *counts in conn.execute(f"{_SUBS}{own} GROUP BY 1, 2 UNION ALL {below} GROUP BY 1, 2", params):
        total = totals.setdefault((root, model), [0, 0, 0, 0])
        for n, count in enumerate(counts):
            total[n] += count
    rolled: dict[str, RolledTally] = {}
    for (root, model), counts in sorted(totals.items(), key=_in_sql_order):
        rolled.setdefault(root, RolledTally()).tally.add(model, Usage(*counts), prices)
    if not count_runs:
        return rolled
    runs = conn.execute(f"{_SUBS}SELECT root, COUNT(DISTINCT id) FROM subs GROUP BY root", params)
    for root, count in runs:
        if root in rolled:
            rolled[root].sub_runs = int(count)
    return rolled


def _in_sql_order(item: tuple[tuple[str, str | None], list[int]]) -> tuple[str, bool, str]:
    """By session, then model (no model first), as `ORDER BY` sorted them: the costs are added in that order."""
    (root, model), _ = item
    return root, model is not None, model or ""
