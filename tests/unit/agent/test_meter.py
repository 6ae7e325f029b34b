"""Cost and context for the status line: the meter's arithmetic against the fixture price table, where a
model's context window comes from, what the server's `/v1/models` entries and usage chunks say."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.meter import Meter, SessionMeter, estimate_tokens
from tui_agent.history.models import Message, Usage
from tui_agent.llm.assembler import StreamAssembler
from tui_agent.llm.events import Usage as LiveUsage
from tui_agent.llm.served_context import served_window
from tui_agent.prices import PriceTable, WindowTable, format_tokens, price_from
from tui_agent.status import MessageStatus, Role

FIXTURE = Path(__file__).parent.parent.parent / "fixtures" / "prices.toml"


@pytest.fixture
def meter() -> SessionMeter:
    raw = tomllib.loads(FIXTURE.read_text())
    prices = PriceTable({pattern: price_from(values) for pattern, values in raw.items()})
    return SessionMeter(prices=prices, windows=WindowTable({"model-*": 1000, "model-a": 4000}))


def test_each_reply_and_the_session_cost_what_the_table_says(meter: SessionMeter) -> None:
    meter.add("model-a", LiveUsage(1000, 100, cached_tokens=400))  # 600*2 + 400*0.5 + 100*8 = 2200 per million
    meter.add("model-b1", LiveUsage(2000, 500))  # 2000*0.1 + 500*0.4 = 400 per million
    shown = meter.snapshot("model-a")
    assert shown.last_cost == Decimal("0.0004")
    assert shown.session_cost == Decimal("0.0026")
    assert (shown.tokens_in, shown.tokens_out, shown.cached_in) == (3000, 600, 400)


def test_a_model_without_a_price_shows_tokens_only_never_a_made_up_cost(meter: SessionMeter) -> None:
    meter.add("model-a", LiveUsage(1000, 100))
    meter.add("unknown-llm", LiveUsage(500, 50))
    shown = meter.snapshot("unknown-llm")
    assert shown.last_cost is None
    assert shown.session_cost is None  # part of the session has no price: no total either
    assert (shown.tokens_in, shown.tokens_out) == (1500, 150)
    assert SessionMeter(prices=PriceTable({})).snapshot("x").session_cost is None  # nothing yet: no cost


def test_the_context_is_what_the_server_counted_last_against_the_models_window(meter: SessionMeter) -> None:
    meter.add("model-a", LiveUsage(700, 100))
    meter.add("model-a", LiveUsage(2900, 300))
    shown = meter.snapshot("model-a")
    assert (shown.context_tokens, shown.context_window, shown.context_estimated) == (3200, 4000, False)
    assert shown.context_share == pytest.approx(0.8)
    assert shown.needs_compaction  # at compact_at (0.8) of the window
    assert not Meter(context_tokens=3199, context_window=4000).needs_compaction
    assert meter.snapshot("model-b").context_window == 1000  # the glob
    meter.add_aside("model-a", LiveUsage(1000, 100))  # an MCP server's sampling: paid for, not the context
    aside = meter.snapshot("model-a")
    assert (aside.context_tokens, aside.tokens_in, aside.tokens_out) == (3200, 4600, 500)
    assert aside.session_cost is not None and shown.session_cost is not None and aside.session_cost > shown.session_cost
    unknown = meter.snapshot("someone-elses-model")
    assert unknown.context_window is None and unknown.context_share is None and not unknown.needs_compaction


def test_the_window_comes_from_the_config_then_the_server_then_the_shipped_table(meter: SessionMeter) -> None:
    meter.served_windows["model-a"] = 8192
    assert meter.window("model-a") == 8192  # the server knows its own limit better than a table
    meter.user_windows = WindowTable({"model-a*": 2048})
    assert meter.window("model-a") == 2048  # the person's word beats both
    assert meter.window("model-zz") == 1000
    shipped = WindowTable.with_overrides()
    assert shipped.lookup("gpt-4o-mini") == 128000 and shipped.lookup("offline") is None


def test_a_resumed_path_is_counted_again_and_a_summary_after_the_last_count_makes_it_an_estimate(
    meter: SessionMeter,
) -> None:
    path = [message(Role.USER), message(Role.ASSISTANT, Usage(900, 100), "model-a")]
    meter.load(path, None, estimate=42)
    assert meter.snapshot("model-a").context_tokens == 1000 and meter.snapshot("model-a").session_cost is not None
    meter.measure([*path, message(Role.SYSTEM)], estimate=42)  # compacted after the last reply
    shown = meter.snapshot("model-a")
    assert (shown.context_tokens, shown.context_estimated) == (42, True)


def test_estimates_count_text_and_tool_arguments() -> None:
    sent: list[dict[str, Any]] = [
        {"role": "user", "content": "x" * 40},
        {"role": "assistant", "content": None, "tool_calls": [{"function": {"arguments": "y" * 8}}]},
    ]
    assert estimate_tokens(sent) == 12


def test_token_counts_are_short_in_the_status_line() -> None:
    assert [format_tokens(n) for n in (950, 1000, 12_345, 128_000, 131_072, 1_047_576)] == [
        "950",
        "1k",
        "12.3k",
        "128k",
        "131k",
        "1.05M",
    ]


@pytest.mark.parametrize(
    ("entry", "window"),
    [
        ({"id": "m", "context_length": 32768}, 32768),  # OpenRouter, LM Studio, the offline model
        ({"id": "m", "max_model_len": 8192}, 8192),  # vLLM
        ({"id": "m", "meta": {"n_ctx_train": 4096}}, None),  # llama.cpp: trained with, not served (`/props`)
        ({"id": "m", "meta": {"n_ctx_train": 32768, "n_ctx": 2048}}, 2048),  # llama.cpp builds that say it
        ({"id": "m", "context_length": True, "max_model_len": -1}, None),  # nonsense is not a window
        ({"id": "m", "context_length": "lots"}, None),
        ({"id": "gpt-4o", "object": "model"}, None),  # OpenAI says nothing
    ],
)
def test_a_servers_model_entry_gives_its_window_where_it_has_one(entry: dict[str, object], window: int | None) -> None:
    assert served_window(entry) == window


def test_cached_prompt_tokens_are_read_from_the_usage_chunk() -> None:
    assembler = StreamAssembler()
    usage = {"prompt_tokens": 1000, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 768}}
    assembler.feed({"choices": [], "usage": usage})
    assert assembler.usage == LiveUsage(1000, 20, 768)
    assembler.feed({"choices": [], "usage": {**usage, "prompt_tokens_details": {"cached_tokens": "many"}}})
    assert assembler.usage == LiveUsage(1000, 20, 0)


def message(role: Role, usage: Usage | None = None, model: str | None = None) -> Message:
    now = datetime.now(UTC)
    return Message("id", "s", 0, role, "text", MessageStatus.COMPLETE, None, model, usage, now, now)
