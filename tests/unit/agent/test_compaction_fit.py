"""Compaction against the model's served window, on the real stack (the strict offline model imitating llama.cpp
over HTTP, a real SQLite file): the window read from `/props`, a prompt over it refused with an offer to compact,
the summary asked in pieces that fit, a summary cut off never kept, and automatic compaction paused after a
failure."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.compaction import SUMMARY_REQUEST, CompactionFailedError
from tui_agent.agent.compaction_backoff import CompactionBackoff
from tui_agent.agent.events import TurnEndReason, TurnFinished
from tui_agent.offline.server import BackgroundServer, words
from tui_agent.status import Role

WINDOW = 400
LLAMA = {"serves_like": "llama.cpp", "context_window": WINDOW, "enforce_window": True, "strict": True}
PROMPTS = ("Name a river in Europe", "Name a mountain", "Name a lake", "Name a sea", "Name a desert")


def summary_requests(server: BackgroundServer, since: int = 0) -> list[Any]:
    return [
        record
        for record in server.requests[since:]
        if record.body and SUMMARY_REQUEST in str(record.body["messages"][-1].get("content"))
    ]


def prompt_words(record: Any) -> int:
    return sum(words(message.get("content")) for message in record.body["messages"])


async def ask(built: Any, prompt: str) -> TurnFinished:
    finished = (await collect(built.agent.send(prompt)))[-1]
    assert isinstance(finished, TurnFinished)
    return finished


async def filled(built: Any) -> TurnFinished:
    """Turns until the server refuses one for being over its window; that turn's end."""
    for prompt in (*PROMPTS, "Name a forest", "Name a city", "Name a river in Asia"):
        finished = await ask(built, prompt)
        if finished.reason is TurnEndReason.ERROR:
            return finished
    raise AssertionError("the window never filled")


@pytest.mark.parametrize("offline_server", [LLAMA], indirect=True)
async def test_the_gauge_shows_the_window_llama_cpp_serves_not_the_one_the_model_was_trained_with(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await built.agent.learn_context_windows()
    assert built.agent.meter.context_window == WINDOW  # not the 32,768 of `meta.n_ctx_train`
    await ask(built, "Name a river in Europe")
    assert built.agent.meter.context_share == pytest.approx(built.agent.meter.context_tokens / WINDOW)


OLLAMA_COLD = {"serves_like": "ollama", "context_window": 2048, "ollama_loaded": False, "ollama_num_ctx": False}


@pytest.mark.parametrize("offline_server", [OLLAMA_COLD], indirect=True)
async def test_ollama_is_asked_again_once_the_first_reply_has_loaded_the_model(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await built.agent.learn_context_windows()
    assert built.agent.meter.context_window is None  # not loaded, no num_ctx: Ollama says nothing yet
    await ask(built, "Name a river in Europe")
    await ask(built, "Name a mountain")
    assert built.agent.meter.context_window == 2048  # what `/api/ps` says the loaded model has
    await ask(built, "Name a lake")
    paths = [record.path for record in offline_server.requests]
    assert paths.count("/v1/models") == 2 and paths.count("/api/ps") == 2  # asked again once, not every turn


@pytest.mark.parametrize("offline_server", [LLAMA], indirect=True)
async def test_a_prompt_over_the_window_offers_compaction_which_summarises_in_pieces_that_fit(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    refused = await filled(built)
    assert refused.error is not None and "longer than the context window" in refused.error
    assert "press F9 to compact the conversation" in refused.error
    assert built.agent.meter.context_window == WINDOW  # learnt from the refusal (no `learn_context_windows`)
    assert built.agent.meter.context_tokens > WINDOW  # the size the server counted
    before = len(offline_server.requests)

    done = await built.agent.compact()
    asked = summary_requests(offline_server, before)
    assert done.pieces == len(asked) > 1
    assert [record.outcome for record in offline_server.requests[before:]] == ["ok"] * len(asked)
    assert all(prompt_words(record) < WINDOW for record in asked)
    for earlier, later in zip(asked, asked[1:], strict=False):  # each piece is sent with the summary so far
        assert str(later.body["messages"][1]["content"]).startswith("Summary of the conversation so far")
        assert earlier is not later
    for prompt in PROMPTS:  # the last summary stands for every piece
        assert prompt in done.summary.content

    after = await ask(built, "Name a waterfall")
    assert after.reason is TurnEndReason.DONE, after.error
    sent = offline_server.requests[-1].body
    assert sent is not None and prompt_words(offline_server.requests[-1]) < WINDOW


@pytest.mark.parametrize(
    "offline_server", [{**LLAMA, "serves_like": "openai", "context_window": 100_000}], indirect=True
)
async def test_a_server_that_says_no_window_is_summarised_in_pieces_once_it_refuses(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    for prompt in (*PROMPTS, "Name a forest", "Name a city"):
        await ask(built, prompt)
    assert built.agent.meter.context_window is None  # OpenAI's `/v1/models` says none
    served = offline_server.server
    served.scenario = served.scenario.model_copy(update={"context_window": WINDOW})  # under the conversation
    before = len(offline_server.requests)
    done = await built.agent.compact()
    outcomes = [record.outcome for record in offline_server.requests[before:]]
    assert outcomes[0] == "status 400" and set(outcomes[1:]) == {"ok"}  # asked whole once, then in pieces
    assert done.pieces == len(outcomes) - 1 > 1
    assert all(prompt in done.summary.content for prompt in PROMPTS)


@pytest.mark.parametrize("offline_server", [{"strict": True}], indirect=True)
async def test_a_summary_cut_off_at_the_token_limit_is_not_kept(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    for prompt in PROMPTS[:3]:
        await ask(built, prompt)
    offline_server.server.script([{"text": "The person asked 3 things: - Name a", "finish_reason": "length"}])
    with pytest.raises(CompactionFailedError, match=r"summary was cut off by the reply's token limit"):
        await built.agent.compact()
    session = built.agent.session
    assert session is not None
    path = await built.agent.store.load_tail(session.id, 100)
    assert all(m.compacted_by is None and m.role is not Role.SYSTEM for m in path)  # nothing compacted
    await ask(built, "Name a sea")
    sent = [m["content"] for m in offline_server.requests[-1].body["messages"] if m["role"] == "user"]  # type: ignore[index]
    assert sent == [*PROMPTS[:3], "Name a sea"]  # the model still sees every turn


@pytest.mark.parametrize("offline_server", [{"strict": True}], indirect=True)
async def test_a_summary_cut_at_max_tokens_says_to_raise_it(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, max_tokens=5)
    offline_server.server.script([{"text": "One."}, {"text": "Two."}])
    for prompt in PROMPTS[:2]:
        await ask(built, prompt)
    with pytest.raises(CompactionFailedError, match=r"\(max_tokens = 5\).*raise max_tokens"):
        await built.agent.compact()


@pytest.mark.parametrize("offline_server", [LLAMA], indirect=True)
async def test_a_summary_cut_by_the_full_window_is_asked_again_in_smaller_pieces(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    for prompt in PROMPTS[:4]:
        await ask(built, prompt)
    await built.agent.learn_context_windows()
    # The summary request fits, but its summary is longer than the room left: it is cut where the window is full.
    offline_server.server.script([{"text": " ".join(["note"] * WINDOW)}])
    before = len(offline_server.requests)
    done = await built.agent.compact()
    asked = summary_requests(offline_server, before)
    assert asked[0].outcome == "ok" and prompt_words(asked[0]) < WINDOW  # sent whole, answered, cut
    assert len(asked) == done.pieces + 1 and done.pieces >= 2  # then asked again, in smaller pieces
    assert "note note" not in done.summary.content
    assert all(prompt in done.summary.content for prompt in PROMPTS[:3])  # the fourth turn is kept whole


@pytest.mark.parametrize("offline_server", [{"strict": True}], indirect=True)
async def test_a_failed_automatic_compaction_is_not_tried_again_before_every_prompt(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, context_windows={"offline": 1000}, compact_at=0.2)
    for prompt in PROMPTS[:3]:
        await ask(built, prompt)
    assert built.agent.meter.compacts_first
    offline_server.server.script([{"status": 500, "retry_after": 0.01}] * 3)  # retried at once
    with pytest.raises(CompactionFailedError, match="The next prompts are sent without compacting until"):
        await built.agent.compact(auto=True)
    meter = built.agent.meter
    assert meter.needs_compaction and meter.compaction_paused and not meter.compacts_first
    await ask(built, "Name a sea")  # a little more: still paused
    assert not built.agent.meter.compacts_first
    done = await built.agent.compact()  # F9 is always tried, and a success ends the pause
    assert done.summary.content and not built.agent.meter.compaction_paused


def test_the_pause_ends_when_the_context_grows_or_time_passes() -> None:
    now = [1000.0]
    backoff = CompactionBackoff(clock=lambda: now[0])
    assert not backoff.paused(900, 1000)
    backoff.failed(900)
    assert backoff.paused(900, 1000) and backoff.paused(999, 1000)
    assert not backoff.paused(1000, 1000)  # grown by a tenth of the window
    now[0] += 299
    assert backoff.paused(950, 1000)
    now[0] += 1
    assert not backoff.paused(950, 1000)  # five minutes later
    backoff.failed(950)
    backoff.succeeded()
    assert not backoff.paused(950, 1000)
