"""The served context window in the app, on the real stack (the offline model imitating a llama.cpp server
started with a small `-c`, over HTTP; the real agent and a real SQLite file): the gauge shows the served window
and a full context compacts before the next prompt, a prompt over the window offers F9, whose compaction is
made in pieces that fit, and a failing summary endpoint is not asked again before every prompt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import chat, chat_ready, send, wait_until
from tests.ui.test_cost_context import SIZE, compacted_screen, make_app, status
from tui_agent.agent.compaction import SUMMARY_REQUEST
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import ErrorNotice, SystemLine, UserMessage

WINDOW = 400
PROMPTS = ("Name a river in Europe", "Name a mountain", "Name a lake", "Name a sea", "Name a desert")


@pytest.fixture
def llama() -> Iterator[BackgroundServer]:
    """llama.cpp serving 400 tokens (words) of a model trained on 32,768, refusing what does not fit."""
    scenario = {"serves_like": "llama.cpp", "context_window": WINDOW, "train_window": 32768, "enforce_window": True}
    running = BackgroundServer(strict_scenario(scenario))
    running.start()
    try:
        yield running
    finally:
        running.stop()


def summaries_asked(server: BackgroundServer, since: int = 0) -> int:
    return sum(
        1
        for record in server.requests[since:]
        if record.body and SUMMARY_REQUEST in str(record.body["messages"][-1].get("content"))
    )


def refusals(server: BackgroundServer) -> int:
    return sum(1 for record in server.requests if record.outcome == "status 400")


async def test_the_gauge_shows_the_served_window_and_a_full_context_compacts_before_the_prompt(
    llama: BackgroundServer, tmp_path: Path
) -> None:
    app, built = make_app(llama, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in PROMPTS:
            await send(pilot, prompt)
        agent = await built.ready()
        await wait_until(pilot, lambda: agent.meter.compacts_first, lambda: f"the context full ({agent.meter})")
        await wait_until(pilot, lambda: f" / {WINDOW} (" in status(pilot), lambda: status(pilot))  # not / 32.8k
        asked = len(llama.requests)
        await send(pilot, "Name a forest", wait=False)
        screen = await compacted_screen(pilot, before)
        await wait_until(pilot, lambda: len(screen.query(UserMessage)) == 2 and screen.idle, "the prompt answered")
        assert summaries_asked(llama, asked) >= 1
        assert refusals(llama) == 0  # nothing was ever sent over the window
        note = " ".join(line.text for line in screen.query(SystemLine))
        assert f"of the model's {WINDOW} tokens" in note


@pytest.fixture
def quiet() -> Iterator[BackgroundServer]:
    """A server that says no window before it refuses a request over its 400 tokens (words), as OpenAI's does."""
    scenario = {"serves_like": "openai", "context_window": WINDOW, "enforce_window": True}
    running = BackgroundServer(strict_scenario(scenario))
    running.start()
    try:
        yield running
    finally:
        running.stop()


async def test_a_prompt_over_the_window_offers_f9_which_compacts_in_pieces(
    quiet: BackgroundServer, tmp_path: Path
) -> None:
    app, _ = make_app(quiet, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in (*PROMPTS, "Name a forest", "Name a city"):  # the last one is refused
            await send(pilot, prompt)
        await wait_until(pilot, lambda: bool(before.query(ErrorNotice)), "the refusal shown")
        errors = [notice.message for notice in before.query(ErrorNotice)]
        assert errors and "longer than the context window" in errors[-1], errors
        assert "press F9 to compact the conversation" in errors[-1]
        await pilot.press("f9")
        screen = await compacted_screen(pilot, before)
        note = " ".join(line.text for line in screen.query(SystemLine))
        assert "pieces, as together they do not fit the model's context window" in note
        await send(pilot, "Name a waterfall", wait=False)

        def answered() -> bool:
            last = quiet.requests[-1]
            said = str(last.body["messages"][-1]["content"]) if last.body else ""
            return said.endswith("Name a waterfall") and last.outcome == "ok" and chat(pilot).idle

        await wait_until(pilot, answered, lambda: f"the prompt answered ({quiet.requests[-1]})")


class Heard:
    """Every notice shown while the test waits, by identity: a notice lasts 5 s, and under load a turn takes
    longer, so what was said is gathered at each look rather than read once at the end."""

    def __init__(self, app: TuiAgentApp) -> None:
        self._app = app
        self._said: dict[str, str] = {}

    def __call__(self) -> list[str]:
        self._said.update((shown.identity, str(shown.message)) for shown in notifications(self._app))
        return list(self._said.values())

    def count(self, text: str) -> int:
        return sum(text in notice for notice in self())


async def test_a_failing_summary_endpoint_is_not_asked_again_before_every_prompt(
    llama: BackgroundServer, tmp_path: Path
) -> None:
    app, built = make_app(llama, tmp_path / "history.db", context_windows={"offline": 1000}, compact_at=0.2)
    async with app.run_test(size=SIZE) as pilot:
        heard = Heard(app)
        await chat_ready(pilot)
        for prompt in PROMPTS[:3]:
            await send(pilot, prompt)
        agent = await built.ready()
        await wait_until(pilot, lambda: agent.meter.compacts_first, "the context full")
        llama.server.script([{"status": 500, "retry_after": 0.01}] * 3)  # the summary fails, retries (at once) included
        await send(pilot, "Name a sea", wait=False)
        await wait_until(pilot, lambda: heard.count("The next prompts are sent without compacting until") > 0, "said")
        assert heard.count("The prompt is sent as it is.") == 1

        def answered(prompt: str) -> bool:
            last = llama.requests[-1]
            said = str(last.body["messages"][-1]["content"]) if last.body else ""
            return said == prompt and last.outcome == "ok" and chat(pilot).idle and bool(heard())

        await wait_until(pilot, lambda: answered("Name a sea"), "the prompt answered")
        failed = [record.outcome for record in llama.requests].count("status 500")
        assert failed == 3
        asked = len(llama.requests)
        await send(pilot, "Name a desert", wait=False)  # still full: sent at once, no summary asked
        await wait_until(pilot, lambda: answered("Name a desert"), "the prompt answered")
        assert summaries_asked(llama, asked) == 0 and len(llama.requests) == asked + 1
        assert heard.count("sent without compacting") == 1  # told once
