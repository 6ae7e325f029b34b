"""Cost, the context gauge and compaction in the app, on the real stack (the strict offline model over HTTP,
the real agent, a real SQLite file): the status line's figures, compacting from the palette and before a turn
once the context is full, the view of a compacted session, and resume."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import Built, chat, chat_ready, send, wait_until
from tests.ui.helpers import make_app as scripted_app
from tests.ui.sessions_stack import resumed_app
from tests.ui.test_palette import run_command
from tui_agent.agent.conversation import SUMMARY_HEADING
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.meter import Meter
from tui_agent.agent.resume import ResumeRequest
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.prices import format_cost
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.messages import CompactedMessage, SummaryMessage, SystemLine, UserMessage
from tui_agent.ui.widgets.status_bar import StatusBar

SIZE = (200, 40)
PRICED = {"offline": {"input": 1.0, "output": 2.0}}


@pytest.fixture
def server() -> Iterator[BackgroundServer]:
    """The offline model, strict, saying a window of 2,000 tokens (words) in its `/v1/models`."""
    running = BackgroundServer(strict_scenario({"context_window": 2000}))
    running.start()
    try:
        yield running
    finally:
        running.stop()


def make_app(
    server: BackgroundServer, db: Path, resume: ResumeRequest | None = None, **values: Any
) -> tuple[TuiAgentApp, Built]:
    app = resumed_app(Settings(db=db, **values), EndpointChoice(server.base_url, "offline", "test-key"), resume)
    return app, Built(app)


def status(pilot: Pilot[None]) -> str:
    return str(chat(pilot).status_bar.render())


def chat_bodies(server: BackgroundServer) -> list[dict[str, Any]]:
    return [request.body for request in server.requests if request.body is not None]


async def test_the_status_line_shows_what_replies_cost_and_how_full_the_context_is(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, built = make_app(server, tmp_path / "history.db", prices=PRICED)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Name a river in Europe")
        await send(pilot, "And another one")
        agent = await built.ready()

        def said() -> list[str]:
            meter = agent.meter
            return [
                f"tokens in {meter.tokens_in:,} ({meter.cached_in:,} cached) / out {meter.tokens_out:,}",
                f"{format_cost(meter.last_cost)} last · {format_cost(meter.session_cost)} session",
                f"context {meter.context_tokens} / 2k ({meter.context_tokens / 2000:.0%})",  # the server's window
            ]

        # The line is drawn again once the turn's last writes are done, a moment after the screen is idle.
        await wait_until(
            pilot, lambda: all(part in status(pilot) for part in said()), lambda: f"{said()} in {status(pilot)}"
        )
        meter = agent.meter
        in_, out = meter.tokens_in, meter.tokens_out
        assert meter.session_cost == (Decimal(in_) * 1 + Decimal(out) * 2) / 1_000_000
        line = status(pilot)
        assert f"tokens in {in_:,} ({meter.cached_in:,} cached) / out {out:,}" in line  # the 2nd repeats the 1st
        assert f"{format_cost(meter.last_cost)} last · {format_cost(meter.session_cost)} session" in line
        share = meter.context_tokens / 2000
        assert f"context {meter.context_tokens} / 2k ({share:.0%})" in line  # the server's window
        assert meter.context_tokens == sum(usage_of(server.requests[-1].body))


CACHED_PRICED = {"offline": {"input": 1.0, "cached_input": 0.25, "output": 2.0}}


async def test_cached_prompt_tokens_are_kept_so_a_resumed_session_costs_what_it_did_live(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, built = make_app(server, tmp_path / "history.db", prices=CACHED_PRICED)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Name a river in Europe")
        await send(pilot, "And another one")  # begins as the first request did: its prefix is cached
        live = (await built.ready()).meter
    assert 0 < live.cached_in < live.tokens_in
    in_, cached, out = Decimal(live.tokens_in), Decimal(live.cached_in), Decimal(live.tokens_out)
    assert live.session_cost == ((in_ - cached) * 1 + cached * Decimal("0.25") + out * 2) / 1_000_000

    app, built = make_app(server, tmp_path / "history.db", ResumeRequest(latest=True), prices=CACHED_PRICED)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(chat(pilot).query(UserMessage)) == 2, "the resumed conversation")
        resumed = (await built.ready()).meter
        assert (resumed.tokens_in, resumed.cached_in, resumed.session_cost) == (
            live.tokens_in,
            live.cached_in,
            live.session_cost,
        )
        await wait_until(pilot, lambda: f"({live.cached_in:,} cached)" in status(pilot), "the cached tokens shown")


async def test_a_resumed_session_shows_the_servers_window_in_the_gauge_before_any_prompt(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, _ = make_app(server, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "Name a river in Europe")
        shown = re.search(r"context \d+ / 2k \(\d+%\)", status(pilot))
        assert shown is not None
    app, _ = make_app(server, tmp_path / "history.db", ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(chat(pilot).query(UserMessage)) == 1, "the resumed conversation")
        await wait_until(pilot, lambda: shown.group(0) in status(pilot), f"{shown.group(0)!r} in {status(pilot)!r}")


def after_the_system_prompt(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What follows the agent's system prompt (which leads every request)."""
    return messages[1:] if messages and messages[0]["role"] == "system" else messages


def usage_of(body: dict[str, Any] | None) -> tuple[int, int]:
    """What the offline model counts for a request (words in) and its default reply (words out)."""
    from tui_agent.offline.behaviour import default_reply
    from tui_agent.offline.server import _usage

    assert body is not None
    return _usage(body, default_reply(body))


async def test_a_model_without_a_price_or_window_shows_tokens_only(tmp_path: Path) -> None:
    quiet = BackgroundServer(strict_scenario({"context_window": None}))
    quiet.start()
    try:
        app, _ = make_app(quiet, tmp_path / "history.db")
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "hello")
            line = status(pilot)
    finally:
        quiet.stop()
    assert "$" not in line  # never a made-up price
    assert re.search(r"tokens in \d+ / out \d+", line)
    assert re.search(r"context \d+(?!\s*/)", line)  # no window: the tokens alone


async def compacted_screen(pilot: Pilot[None], before: ChatScreen) -> ChatScreen:
    await wait_until(
        pilot,
        lambda: pilot.app.screen is not before and bool(pilot.app.screen.query(SummaryMessage)),
        lambda: (
            f"the conversation drawn again with its summary (screen replaced: {pilot.app.screen is not before}, "
            f"turn lock held: {before.turns.turn_lock.locked()}, status: {before.status_bar.render()}, "
            f"notices: {notices(pilot.app)}, workers: {[(w.description, w.state.name) for w in pilot.app.workers]})"
        ),
    )
    screen = chat(pilot)

    def noted() -> bool:  # the note is added once the history is drawn, a little after the summary shows up
        return any("compacted" in line.text for line in screen.query(SystemLine))

    await wait_until(pilot, lambda: noted() and screen.idle, "the note said and the screen idle")
    return screen


async def test_compacting_from_the_palette_collapses_the_older_turns_and_the_chat_goes_on(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, _ = make_app(server, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in ("Name a river in Europe", "Name a mountain", "Name a lake"):
            await send(pilot, prompt)
        await run_command(pilot, "Compact conversation")
        screen = await compacted_screen(pilot, before)
        compacted = [(widget.who, widget.text) for widget in screen.query(CompactedMessage)]
        assert [text for who, text in compacted if who == "you"] == ["Name a river in Europe", "Name a mountain"]
        assert [u.prompt for u in screen.query(UserMessage)] == ["Name a lake"]  # the latest turn is kept whole
        assert "Name a river in Europe" in screen.query_one(SummaryMessage).text
        assert "4 older messages were compacted" in " ".join(line.text for line in screen.query(SystemLine))
        assert "context ~" in status(pilot)  # an estimate until the server counts the compacted path
        await send(pilot, "Name a sea")
        sent = after_the_system_prompt(chat_bodies(server)[-1]["messages"])
        assert sent[0]["content"].startswith(SUMMARY_HEADING)
        assert [m["content"] for m in sent if m["role"] == "user"][1:] == ["Name a sea"]
        assert server.requests[-1].outcome == "ok"  # valid for a strict chat template

    app, _ = make_app(server, tmp_path / "history.db", ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:  # resumed: the same view, the same request
        await wait_until(pilot, lambda: bool(chat(pilot).query(SummaryMessage)), "the resumed summary")
        screen = chat(pilot)
        assert len(screen.query(CompactedMessage)) == 4
        assert [u.prompt for u in screen.query(UserMessage)] == ["Name a lake", "Name a sea"]
        await send(pilot, "Name a desert")
        sent = after_the_system_prompt(chat_bodies(server)[-1]["messages"])
        assert sent[0]["content"].startswith(SUMMARY_HEADING)
        assert [m["content"] for m in sent if m["role"] == "user"][1:] == ["Name a sea", "Name a desert"]


async def test_the_compact_key_moves_with_a_keys_override(server: BackgroundServer, tmp_path: Path) -> None:
    app, _ = make_app(server, tmp_path / "history.db")
    app._apply_keys({"compact": "f8"})  # as `[keys] compact = "f8"` in the config file does
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in ("Name a river in Europe", "Name a mountain", "Name a lake"):
            await send(pilot, prompt)
        await pilot.press("f9")  # the default key: moved away
        await pilot.pause()
        assert pilot.app.screen is before and not before.query(CompactedMessage)
        await pilot.press("f8")
        screen = await compacted_screen(pilot, before)
        assert len(screen.query(CompactedMessage)) == 4
        await send(pilot, "Name a sea")
        sent = after_the_system_prompt(chat_bodies(server)[-1]["messages"])
        assert sent[0]["content"].startswith(SUMMARY_HEADING)
        assert server.requests[-1].outcome == "ok"


async def test_f9_compacts_by_default(server: BackgroundServer, tmp_path: Path) -> None:
    app, _ = make_app(server, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in ("Name a river in Europe", "Name a mountain"):
            await send(pilot, prompt)
        await pilot.press("f9")
        screen = await compacted_screen(pilot, before)
        assert [text for who, text in ((w.who, w.text) for w in screen.query(CompactedMessage)) if who == "you"] == [
            "Name a river in Europe"
        ]


async def test_the_tokens_asked_for_a_summary_count_in_the_session_as_they_do_after_a_resume(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, built = make_app(server, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in ("Name a river in Europe", "Name a mountain"):
            await send(pilot, prompt)
        await run_command(pilot, "Compact conversation")
        await compacted_screen(pilot, before)
        agent = await built.ready()
        live = agent.session_usage
        assert live == (agent.meter.tokens_in, agent.meter.tokens_out)  # the summary's tokens in both
        assert f"tokens in {live[0]:,} (" in status(pilot)

    app, built = make_app(server, tmp_path / "history.db", ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(chat(pilot).query(SummaryMessage)), "the resumed summary")
        assert (await built.ready()).session_usage == live


async def test_a_fork_of_a_compacted_session_sends_the_summary_not_the_compacted_messages(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, built = make_app(server, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        for prompt in ("Name a river in Europe", "Name a mountain", "Name a lake"):
            await send(pilot, prompt)
        await run_command(pilot, "Compact conversation")
        await compacted_screen(pilot, before)
        await send(pilot, "Name a sea")
        original, compacted = (await built.ready()).current_session_id, chat(pilot)
        await pilot.press("ctrl+up")
        cursor = compacted.message_cursor
        await wait_until(pilot, lambda: cursor.active and cursor.selected is not None, "the newest reply selected")
        await pilot.press("f")  # fork at the newest reply: the summary comes with it
        await wait_until(pilot, lambda: (built.agent and built.agent.current_session_id) != original, "the fork")
        await wait_until(pilot, lambda: chat(pilot) is not compacted and chat(pilot).idle, "the fork drawn")
        await wait_until(pilot, lambda: len(chat(pilot).query(CompactedMessage)) == 4, "compacted in the fork too")
        await send(pilot, "Name a desert")
        sent = after_the_system_prompt(chat_bodies(server)[-1]["messages"])
        assert sent[0]["content"].startswith(SUMMARY_HEADING)
        said = [str(m.get("content")) for m in sent]
        assert not any("Name a river" in text or "Name a mountain" in text for text in said[1:])
        assert [m["content"] for m in sent if m["role"] == "user"][1:] == ["Name a sea", "Name a desert"]
        assert server.requests[-1].outcome == "ok"


async def test_a_full_context_is_compacted_before_the_next_prompt_is_sent_and_the_app_says_so(
    server: BackgroundServer, tmp_path: Path
) -> None:
    app, _ = make_app(server, tmp_path / "history.db", context_windows={"offline": 250}, compact_at=0.5)
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        await send(pilot, "Name a river in Europe")
        await send(pilot, "Name a mountain")
        await wait_until(  # the line is drawn again once the turn's last writes are done (after idle)
            pilot,
            lambda: "context" in status(pilot) and chat(pilot).backend.meter.needs_compaction,  # type: ignore[union-attr]
            lambda: f"the context full ({status(pilot)})",
        )
        requests = len(chat_bodies(server))
        await send(pilot, "Name a lake", wait=False)
        screen = await compacted_screen(pilot, before)
        note = " ".join(line.text for line in screen.query(SystemLine))
        assert "The context had reached" in note and "of the model's 250 tokens" in note
        bodies = chat_bodies(server)[requests:]
        assert len(bodies) == 2  # the summary, then the prompt
        assert "Summarise the conversation" in bodies[0]["messages"][-1]["content"]
        assert after_the_system_prompt(bodies[1]["messages"])[0]["content"].startswith(SUMMARY_HEADING)
        assert bodies[1]["messages"][-1]["content"] == "Name a lake"
        assert [u.prompt for u in screen.query(UserMessage)] == ["Name a mountain", "Name a lake"]
        assert server.requests[-1].outcome == "ok"


async def test_nothing_to_compact_is_said_and_nothing_changes(server: BackgroundServer, tmp_path: Path) -> None:
    app, _ = make_app(server, tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        before = await chat_ready(pilot)
        await send(pilot, "only one turn")
        await run_command(pilot, "Compact conversation")
        await wait_until(pilot, lambda: "Nothing to compact" in " ".join(notices(pilot.app)), "the reason said")
        assert pilot.app.screen is before and not before.query(CompactedMessage)
        await send(pilot, "still chatting")
        assert [u.prompt for u in before.query(UserMessage)] == ["only one turn", "still chatting"]


def notices(app: App[Any]) -> list[str]:
    from tui_agent.ui.textual_private import notifications

    return [str(notification.message) for notification in notifications(app)]


async def test_a_narrow_terminal_keeps_the_gauge_and_cost_in_view() -> None:
    app, _ = scripted_app()
    async with app.run_test(size=(200, 30)) as pilot:
        bar = (await chat_ready(pilot)).query_one(StatusBar)
        title = "A long session title about rivers, mountains and the weather in many cities"
        bar.show(model="gpt-4o-mini", endpoint="https://api.openai.com/v1", title=title)
        bar.set_agent("assistant")
        meter = Meter(500, 80, last_cost=Decimal("0.0012"), session_cost=Decimal("0.0345"))
        bar.set_meter(dataclasses.replace(meter, context_tokens=3400, context_window=128_000))
        await pilot.pause()
        line = str(bar.render())
        assert "context 3.4k / 128k (3%)" in line and "$0.0345 session" in line
        assert "gpt-4o-mini" in line and "api.openai.com" in line, "the model and host stay while the title can give"
        assert title not in line and "A long session" in line, "the title, shortened"
        assert "$0.0012 last" not in line, "after the last reply's cost"
        bar.show(model="gpt-4o-mini", endpoint="api.openai.com", title="Weather in Paris and Tokyo")
        bar.set_meter(dataclasses.replace(meter, context_tokens=3400, context_window=128_000, cached_in=400))
        bar.set_usage(12_345, 2_345)
        wide = bar.size.width
        await pilot.resize_terminal(160, 30)
        await wait_until(pilot, lambda: bar.size.width < wide, lambda: f"the status line laid out again ({bar.size})")
        line = str(bar.render())
        for kept in ("gpt-4o-mini", "api.openai.com", "Weather in Paris", "$0.0345 session", "(3%)"):
            assert kept in line, f"{kept!r} kept at 160 columns: {line!r}"
        wide = bar.size.width
        await pilot.resize_terminal(150, 30)
        await wait_until(pilot, lambda: bar.size.width < wide, lambda: f"the status line laid out again ({bar.size})")
        line = str(bar.render())
        assert "context 3.4k / 128k (3%)" in line and "$0.0345 session" in line and len(line) <= 148
