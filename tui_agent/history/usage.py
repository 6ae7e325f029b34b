"""Provides token usage and cost read from history: the `Tally` of some replies (per session, with its sub-agents', for
`sessions list`: `rolled_usage.py`) and per day and model (for `tui-agent usage`).

Every reply that reported usage counts, on every branch: a retried reply was paid for too. A reply's model is
its own, or its session's when it has none. Costs come from a `PriceTable`; a model without a price adds
tokens and no cost, and a total that includes any such tokens says so (`priced` is False).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tui_agent.history.models import Usage
from tui_agent.history.rows import CACHE_WRITES_VERSION, CACHED_VERSION
from tui_agent.history.schema import user_version
from tui_agent.prices import PriceTable

_BY_MODEL = """
    SELECT {key}, COALESCE(m.model, s.model), SUM(COALESCE(m.prompt_tokens, 0)), SUM(COALESCE(m.completion_tokens, 0)),
        SUM(COALESCE({cached}, 0)), SUM(COALESCE({written}, 0))
    FROM messages m JOIN sessions s ON s.id = m.session_id
    WHERE (m.prompt_tokens IS NOT NULL OR m.completion_tokens IS NOT NULL) {where}
    GROUP BY 1, 2 ORDER BY 1, 2
"""


def _by_model(conn: sqlite3.Connection, key: str, where: str) -> str:
    """The usage query grouped by `key` and model (cached tokens as none in a database older than step 9,
    which `sessions list` may read without upgrading it)."""
    version = user_version(conn)
    cached = "m.cached_tokens" if version >= CACHED_VERSION else "NULL"
    written = "m.cache_write_tokens" if version >= CACHE_WRITES_VERSION else "NULL"
    return _BY_MODEL.format(key=key, where=where, cached=cached, written=written)


@dataclass
class Tally:
    """Tokens and cost of some replies."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Of `prompt_tokens`, those served from the provider's cache (priced at the cached-input price)."""
    cost: Decimal = Decimal(0)
    priced: bool = True
    """False when some of the tokens are of a model without a price (`cost` leaves them out)."""

    def add(self, model: str | None, usage: Usage, prices: PriceTable) -> None:
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.cached_tokens += usage.cached_tokens
        amount = prices.cost(model, usage)
        if amount is None:
            self.priced = False
        else:
            self.cost += amount

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def known_cost(self) -> Decimal | None:
        """The cost when every token has a price; None otherwise (show tokens only)."""
        return self.cost if self.priced and self.tokens else None


@dataclass(frozen=True)
class UsageRow:
    """One day's use of one model."""

    day: str
    """YYYY-MM-DD, in UTC."""
    model: str | None
    tally: Tally


def daily_usage(
    conn: sqlite3.Connection, prices: PriceTable, days: int | None = None, now: datetime | None = None
) -> list[UsageRow]:
    """Tokens and cost per UTC day and model, oldest first; `days`: only the last N days (today included)."""
    where, params = "", []
    if days is not None:
        start = (now or datetime.now(UTC)).astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        where = "AND m.created_at >= ?"
        params.append((start - timedelta(days=max(days, 1) - 1)).timestamp())
    day = "strftime('%Y-%m-%d', m.created_at, 'unixepoch')"
    rows = []
    for when, model, prompt, completion, cached, written in conn.execute(_by_model(conn, key=day, where=where), params):
        tally = Tally()
        tally.add(model, Usage(prompt, completion, cached, written), prices)
        rows.append(UsageRow(when, model, tally))
    return rows
