"""Provides `tui-agent usage [--days N]`: tokens and cost per day and per model, read from history.

A model without a price shows its tokens and "-" for cost (`tui_agent.prices`: never a made-up price); a
total that leaves such tokens out says so.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from tui_agent.history.cli import _say, _with_store, price_table
from tui_agent.history.store import HistoryStore
from tui_agent.history.usage import Tally, UsageRow, daily_usage
from tui_agent.prices import format_cost


def add_parser(subparsers: Any) -> None:
    """Register `usage`."""
    parser = subparsers.add_parser("usage", help="tokens and cost per day and per model, from history")
    parser.add_argument("--days", type=int, metavar="N", help="only the last N days (today included)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_with_store(args, show_usage))


async def show_usage(store: HistoryStore, args: argparse.Namespace) -> int:
    prices = price_table()
    rows = await store.db.call(lambda conn: daily_usage(conn, prices, args.days))  # a read, as list_recent's
    if not rows:
        _say("No token usage recorded" + (f" in the last {args.days} days." if args.days else " yet."))
        return 0
    _say(f"{'day':<10}  {'model':<28} {'input':>12} {'cached':>12} {'output':>12} {'cost':>12}")
    total = Tally()
    for row in rows:
        _say(_line(row.day, row.model or "-", row.tally))
        _merge(total, row)
    _say(_line("total", "", total))
    if not total.priced:
        _say('(models without a price count tokens only: add them as [prices."model"] in the config file)')
    return 0


def _line(day: str, model: str, tally: Tally) -> str:
    cost = format_cost(tally.cost) if tally.priced else (format_cost(tally.cost) + "+" if tally.cost else "-")
    tokens = f"{tally.prompt_tokens:>12,} {tally.cached_tokens:>12,} {tally.completion_tokens:>12,}"
    return f"{day:<10}  {model:<28} {tokens} {cost:>12}"


def _merge(total: Tally, row: UsageRow) -> None:
    total.prompt_tokens += row.tally.prompt_tokens
    total.completion_tokens += row.tally.completion_tokens
    total.cached_tokens += row.tally.cached_tokens
    total.cost += row.tally.cost
    total.priced = total.priced and row.tally.priced
