"""Prices: the arithmetic against a fixture table, which pattern wins, user overrides, unknown models."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from tui_agent.config import load_settings, resolve_config
from tui_agent.history.models import Usage
from tui_agent.prices import Price, PriceTable, cost, price_from, shipped_prices

FIXTURE = Path(__file__).parent.parent / "fixtures" / "prices.toml"


@pytest.fixture
def table() -> PriceTable:
    raw = tomllib.loads(FIXTURE.read_text())
    return PriceTable({pattern: price_from(values) for pattern, values in raw.items()})


@dataclass(frozen=True)
class CachedUsage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int


def test_cost_is_input_and_output_tokens_at_their_price_per_million(table: PriceTable) -> None:
    assert table.cost("model-a", Usage(1_000_000, 0)) == Decimal("2")
    assert table.cost("model-a", Usage(1234, 567)) == Decimal("0.007004")  # 1234*2 + 567*8 = 7004 per million


def test_cached_prompt_tokens_are_billed_at_the_cached_price(table: PriceTable) -> None:
    assert table.cost("model-a", CachedUsage(1000, 100, 400)) == Decimal("0.0022")  # 600*2 + 400*0.5 + 100*8 = 2200
    assert table.cost("model-zzz", CachedUsage(1000, 0, 400)) == Decimal("0.001")  # no cached price: full input


def test_cache_writes_are_billed_at_the_cache_write_price_and_claudes_are_a_quarter_over_input() -> None:
    table = PriceTable(
        {"m": Price(Decimal(2), Decimal(8), Decimal("0.5"), Decimal("2.5")), "n": Price(Decimal(2), Decimal(8))}
    )
    usage = Usage(1000, 100, cached_tokens=200, cache_write_tokens=300)
    assert table.cost("m", usage) == Decimal("0.00265")  # 500*2 + 200*0.5 + 300*2.5 + 100*8 = 2650
    assert table.cost("n", usage) == Decimal("0.0028")  # no cache prices: all input, 1000*2 + 100*8
    claude = {pattern: price for pattern, price in shipped_prices().items() if pattern.startswith("claude")}
    assert claude and all(
        price.cache_write == price.input * Decimal("1.25") and price.cached_input == price.input / 10
        for price in claude.values()
    )


def test_an_exact_name_beats_a_glob_and_the_more_specific_glob_wins(table: PriceTable) -> None:
    assert table.lookup("model-a") == Price(Decimal("2.00"), Decimal("8.00"), Decimal("0.50"))
    assert table.lookup("model-big") == Price(Decimal("0.10"), Decimal("0.40"))  # model-b* over model-*
    assert table.lookup("model-c") == Price(Decimal("1.00"), Decimal("3.00"))
    assert table.lookup("model-aa") == Price(Decimal("1.00"), Decimal("3.00"))  # "model-a" is no glob


def test_an_unknown_model_has_no_price_never_a_guess(table: PriceTable) -> None:
    assert table.cost("other", Usage(10, 10)) is None
    assert table.cost(None, Usage(10, 10)) is None
    assert cost("surely-no-such-model-anywhere", Usage(10, 10)) is None


def test_the_shipped_table_prices_a_known_model() -> None:
    assert "gpt-4o-mini" in shipped_prices()
    assert cost("gpt-4o-mini", Usage(1_000_000, 1_000_000)) == Decimal("0.75")  # 0.15 + 0.60
    assert cost("claude-sonnet-4-20250514", Usage(1_000_000, 0)) == Decimal("3")


def test_a_user_price_overrides_the_shipped_one_and_adds_new_models() -> None:
    settings = load_settings(
        {"prices": {"gpt-4o-mini": {"input": 1, "output": 2}, "my-local-*": {"input": 0, "output": 0.075}}}, environ={}
    )
    prices = settings.price_table()
    assert prices.cost("gpt-4o-mini", Usage(1_000_000, 1_000_000)) == Decimal("3")
    assert prices.cost("my-local-7b", Usage(0, 1_000_000)) == Decimal("0.075")
    assert prices.cost("gpt-4.1", Usage(1_000_000, 0)) == Decimal("2")  # the rest of the shipped table stays
    written = load_settings({"prices": {"my-*": {"input": 1, "output": 1, "cache_write": 1.25}}}, environ={})
    assert written.price_table().cost("my-x", Usage(1_000_000, 0, cache_write_tokens=1_000_000)) == Decimal("1.25")


def test_an_invalid_user_price_is_dropped_whole_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "x"\n\n[prices."my-*"]\ninput = -1\noutput = 2\n')
    resolved = resolve_config({}, path, environ={})
    assert "my-*" not in resolved.settings.prices
    assert resolved.settings.model == "x"
    assert [f.where for f in resolved.fallbacks] == ["prices.my-*.input (line 4)"]
