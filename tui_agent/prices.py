"""Provides model prices and the cost of a reply: `cost(model, usage)`, from the table shipped in the package
(`prices.toml`) with the user's `[prices."pattern"]` overrides on top; and models' context windows
(`WindowTable`, from `context_windows.toml` with the user's `[context_windows]` on top), looked up the same way.

An unknown model has no price: `cost` returns None and callers show tokens only; a cost is never made up.
Money is `Decimal` throughout, so sums over a month of replies stay exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fnmatch import fnmatchcase
from functools import cache
from typing import Any, Protocol, TypeVar

MILLION = Decimal(1_000_000)
WILDCARDS = frozenset("*?[")
T = TypeVar("T")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None
    """Prompt tokens served from the provider's cache; None: billed as `input`."""
    cache_write: Decimal | None = None
    """Prompt tokens written to the provider's cache (Anthropic: 1.25 times `input`); None: billed as `input`."""


class TokenCounts(Protocol):
    """What `cost` reads of a reply's usage (`tui_agent.history.models.Usage` is one); `cached_tokens` and
    `cache_write_tokens`, when the usage has them, are the parts of `prompt_tokens` read from the cache and
    written to it."""

    @property
    def prompt_tokens(self) -> int: ...

    @property
    def completion_tokens(self) -> int: ...


def price_from(values: Mapping[str, Any]) -> Price:
    """A `Price` from a TOML table (`input`, `output`, optional `cached_input` and `cache_write`); numbers read
    through `str`, so a float 0.075 stays 0.075."""
    cached, written = values.get("cached_input"), values.get("cache_write")
    return Price(
        _money(values["input"]),
        _money(values["output"]),
        None if cached is None else _money(cached),
        None if written is None else _money(written),
    )


def _money(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"a price is a number of dollars per million tokens, not {value!r}")
    amount = Decimal(str(value))
    if amount < 0:
        raise ValueError("a price cannot be negative")
    return amount


@cache
def shipped_prices() -> Mapping[str, Price]:
    """The table shipped in the package (read once; imported here so the config's import stays light)."""
    import tomllib
    from importlib import resources

    text = resources.files("tui_agent").joinpath("prices.toml").read_text(encoding="utf-8")
    return {pattern: price_from(values) for pattern, values in tomllib.loads(text).items()}


class PriceTable:
    """Patterns -> prices; `lookup` picks the most specific pattern matching a model name."""

    def __init__(self, prices: Mapping[str, Price]) -> None:
        self._prices = dict(prices)

    @classmethod
    def with_overrides(
        cls, overrides: Mapping[str, Price] | None = None, base: Mapping[str, Price] | None = None
    ) -> PriceTable:
        """The shipped table (or `base`) with the user's prices added; a user pattern replaces the same one."""
        return cls({**(shipped_prices() if base is None else base), **(overrides or {})})

    def lookup(self, model: str | None) -> Price | None:
        """The price of `model`: an exact pattern first, then the glob with the most literal characters (ties:
        the longer pattern); None when nothing matches."""
        return best_match(self._prices, model)

    def cost(self, model: str | None, usage: TokenCounts) -> Decimal | None:
        """Dollars `usage` cost on `model`; None for a model without a price."""
        price = self.lookup(model)
        if price is None:
            return None
        cached = min(int(getattr(usage, "cached_tokens", 0) or 0), usage.prompt_tokens)
        written = min(int(getattr(usage, "cache_write_tokens", 0) or 0), usage.prompt_tokens - cached)
        cached_price = price.input if price.cached_input is None else price.cached_input
        write_price = price.input if price.cache_write is None else price.cache_write
        total = (
            (usage.prompt_tokens - cached - written) * price.input
            + cached * cached_price
            + written * write_price
            + usage.completion_tokens * price.output
        )
        return total / MILLION


def best_match(table: Mapping[str, T], model: str | None) -> T | None:
    """The entry of `table` (fnmatch patterns) for `model`: an exact pattern first, then the glob with the most
    literal characters (ties: the longer pattern); None when nothing matches."""
    if not model:
        return None
    if model in table and not WILDCARDS.intersection(model):
        return table[model]
    matching = [pattern for pattern in table if fnmatchcase(model, pattern)]
    if not matching:
        return None
    return table[max(matching, key=_specificity)]


def _specificity(pattern: str) -> tuple[int, int]:
    literal = sum(1 for char in pattern if char not in WILDCARDS)
    return literal, len(pattern)


def cost(model: str | None, usage: TokenCounts, table: PriceTable | None = None) -> Decimal | None:
    """Dollars `usage` cost on `model` by `table` (default: the shipped prices alone); None when unknown."""
    return (table or PriceTable.with_overrides()).cost(model, usage)


def format_cost(amount: Decimal | None) -> str:
    """ "$0.0123" (4 decimals under a dollar, cents above), "-" for no price."""
    if amount is None:
        return "-"
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


@cache
def shipped_windows() -> Mapping[str, int]:
    """Context windows shipped in the package (`context_windows.toml`: pattern = tokens), read once."""
    import tomllib
    from importlib import resources

    text = resources.files("tui_agent").joinpath("context_windows.toml").read_text(encoding="utf-8")
    return {pattern: int(tokens) for pattern, tokens in tomllib.loads(text).items()}


class WindowTable:
    """Patterns -> context windows (tokens a request and its reply may hold together); `lookup` as prices'."""

    def __init__(self, windows: Mapping[str, int]) -> None:
        self._windows = dict(windows)

    @classmethod
    def with_overrides(
        cls, overrides: Mapping[str, int] | None = None, base: Mapping[str, int] | None = None
    ) -> WindowTable:
        """The shipped table (or `base`) with the user's windows added; a user pattern replaces the same one."""
        return cls({**(shipped_windows() if base is None else base), **(overrides or {})})

    def lookup(self, model: str | None) -> int | None:
        return best_match(self._windows, model)


def format_tokens(count: int) -> str:
    """ "950", "12.3k", "128k", "1.05M": a token count short enough for the status line."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        thousands = count / 1000
        return f"{thousands:.1f}k".replace(".0k", "k") if thousands < 100 else f"{round(thousands)}k"
    return f"{count / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
