"""A reply cut at the token limit is marked as such under the reply, live and when the session is resumed."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from tests.ui.helpers import FIXED_NOW, chat, send, wait_until
from tests.ui.sessions_stack import build_and_resume, stack_serving
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.resume import ResumeRequest
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.messages import ErrorNotice, MessageMarker, ReplyActions

CUT = "✂ Cut off at the token limit (max_tokens = 3): the reply above is incomplete."


def app_on(server: BackgroundServer, db: Path, resume: ResumeRequest | None = None) -> TuiAgentApp:
    settings = Settings(db=db, max_tokens=3)
    choice = EndpointChoice(server.base_url, "scripted", "test-key")
    return TuiAgentApp(
        lambda: build_and_resume(settings, choice, resume),
        model=choice.model,
        endpoint=choice.label,
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
    )


def markers(app: TuiAgentApp) -> list[str]:
    return [str(marker.render()) for marker in app.screen.query(MessageMarker)]


async def test_a_cut_off_reply_is_marked_live_and_on_resume(tmp_path: Path) -> None:
    with BackgroundServer({"replies": [{"text": "one two three four five"}], "strict": True}) as server:
        app = app_on(server, tmp_path / "history.db")
        async with app.run_test(size=(140, 40)) as pilot:
            await send(pilot, "count")
            assert chat(pilot).chat_log.assistant_messages[-1].shown_text().strip() == "one two three"
            assert markers(app) == [CUT]
            assert not app.screen.query(ErrorNotice)  # the marker says it; no "Error" box for a cut reply
        app = app_on(server, tmp_path / "history.db", ResumeRequest(latest=True))
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_until(pilot, lambda: bool(markers(app)), "the resumed session shown")
            assert markers(app) == [CUT]
            assert not app.screen.query(ErrorNotice)


CUT_CALL = {"text": "", "tool_calls": [{"name": "get_current_weather", "arguments": '{"location": "Par'}]}


async def test_a_tool_call_cut_at_the_token_limit_offers_continue_instead_of_asking_again(tmp_path: Path) -> None:
    """The server's own limit cut the call while the model wrote it: the turn stops there with Continue offered
    (it used to answer the call as failed and ask the model again by itself)."""
    scenario = {"replies": [{**CUT_CALL, "finish_reason": "length"}, {"text": "Sunny in Paris."}]}
    with contextmanager(stack_serving)(tmp_path, scenario) as stack:
        app, _ = stack.app()
        async with app.run_test(size=(140, 40)) as pilot:
            await send(pilot, "weather in Paris?")
            screen = chat(pilot)
            await wait_until(pilot, lambda: bool(screen.query(ReplyActions)), "the reply's actions")
            assert len(stack.chat_requests()) == 1  # not asked again by itself
            (marker,) = markers(app)
            assert marker.startswith("✂ Cut off at the token limit while the model was writing its call to ")
            assert screen.query_one(ReplyActions).can_continue
            assert len(screen.tool_panels.panels) == 1  # the cut call, failed, not run
            await pilot.press("ctrl+g")
            await wait_until(pilot, lambda: len(stack.chat_requests()) == 2 and screen.idle, "continued")
            await wait_until(
                pilot, lambda: "Sunny in Paris." in screen.chat_log.assistant_messages[-1].shown_text(), "the answer"
            )
            assert stack.chat_requests()[-1]["messages"][-1] == {"role": "user", "content": "weather in Paris?"}
            # the cut call's panel went with the reply it was cut from (still there on its branch)
            await wait_until(pilot, lambda: not screen.tool_panels.panels, "the cut call's panel gone")
