"""Pilot tests of the chat screen driven by a scripted backend: streaming, errors, Esc, injection, prompt."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from textual import events
from textual.pilot import Pilot

from tests.ui.helpers import (
    SIZE,
    chat,
    chat_idle,
    conversation_keys,
    make_app,
    pressed,
    read_to_the_bottom,
    scroll_to_the_top,
    send,
    showing,
    shown,
    wait_until,
)
from tui_agent.agent.events import (
    AgentEvent,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantTextDelta,
    MessageStatus,
    TurnEndReason,
    TurnFinished,
)
from tui_agent.testing.scripted import Gate, Script, ScriptedBackend, reply_script
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.attach_paste import AttachPasteScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.log_window import TRIM_AT
from tui_agent.ui.widgets.messages import ErrorNotice, MessageMarker, UserMessage

REPLY = "# Plan\n\nFirst **bold** step.\n\n```python\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"


def chunks(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


async def test_send_streams_reply_as_markdown() -> None:
    app, backend = make_app([reply_script(chunks(REPLY), usage=(11, 22))])
    async with app.run_test() as pilot:
        await send(pilot, "make a plan")
        screen = chat(pilot)
        assert backend.prompts == ["make a plan"]
        assert [str(w.render()) for w in screen.query(UserMessage)] == ["make a plan"]
        [message] = screen.chat_log.assistant_messages
        assert message.text == REPLY
        assert message.status is MessageStatus.COMPLETE
        text = shown(message)
        assert "print('hi')" in text and "**" not in text and "Plan" in text
        assert screen.status_bar.tokens_in == 11 and screen.status_bar.tokens_out == 22
        assert screen.prompt_input.text == ""


async def test_streamed_render_equals_whole_render() -> None:
    app, _ = make_app([reply_script(chunks(REPLY, 3))])
    async with app.run_test() as pilot:
        await send(pilot, "go")
        message = chat(pilot).chat_log.assistant_messages[0]
        streamed = shown(message)
        message.set_text(message.text)  # re-render the finished text in one piece
        assert shown(message) == streamed


async def test_failed_message_shows_marker_and_one_inline_error() -> None:
    error = "No API key: set OPENAI_API_KEY or run with --offline."
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "partial"),
        AssistantMessageFinished("m1", MessageStatus.FAILED, error),
        TurnFinished(TurnEndReason.ERROR, error),
    ]
    app, _ = make_app([script])
    async with app.run_test() as pilot:
        await send(pilot, "hello")
        screen = chat(pilot)
        [notice] = screen.query(ErrorNotice)
        assert str(notice.render()) == error
        assert [marker.has_class("-failed") for marker in screen.query(MessageMarker)] == [True]
        assert screen.chat_log.assistant_messages[0].text == "partial"


async def test_budget_end_is_shown() -> None:
    app, _ = make_app([[TurnFinished(TurnEndReason.BUDGET, "Stopped after 10 tool rounds.")]])
    async with app.run_test() as pilot:
        await send(pilot, "loop")
        [notice] = chat(pilot).query(ErrorNotice)
        assert "10 tool rounds" in str(notice.render())


async def test_backend_exception_is_inline_and_app_stays_usable() -> None:
    class Broken(Exception):
        user_message = "The endpoint refused the connection: is the server running?"

    app, backend = make_app()

    async def broken_send(prompt: str, attachments: Sequence[object] = ()) -> AsyncIterator[AgentEvent]:
        raise Broken("raw")
        yield  # pragma: no cover

    original = backend.send
    backend.send = broken_send  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await send(pilot, "hi")
        screen = chat(pilot)
        assert Broken.user_message in [str(n.render()) for n in screen.query(ErrorNotice)]
        backend.send = original  # type: ignore[method-assign]
        await send(pilot, "again")
        assert backend.prompts == ["again"]
        assert screen.chat_log.assistant_messages[-1].text == "You said: again"


async def test_escape_mid_stream_interrupts_at_once_and_next_prompt_works() -> None:
    gate = Gate()
    first: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "Half a rep"),
        gate,
        AssistantTextDelta("m1", "ly never shown"),
        AssistantMessageFinished("m1", MessageStatus.COMPLETE),
    ]
    app, backend = make_app([first, reply_script(["second answer"], message_id="m2")])
    async with app.run_test() as pilot:
        await send(pilot, "long one", wait=False)
        screen = chat(pilot)
        await wait_until(pilot, lambda: gate.reached, "stream paused mid-reply")
        await pilot.press("escape")
        await wait_until(pilot, lambda: backend.cancel_count == 1, "the reply stopped")
        assert not screen.busy  # at once: with the cancel, not when the backend's last events come
        message = screen.chat_log.assistant("m1")
        assert message is not None and message.status is MessageStatus.INTERRUPTED
        assert message.text == "Half a rep"
        await wait_until(pilot, lambda: screen.idle, "cancelled turn drained")
        assert len(screen.query(MessageMarker)) == 1
        await send(pilot, "next")
        second = screen.chat_log.assistant("m2")
        assert second is not None and second.text == "second answer"
        assert message.text == "Half a rep"


async def test_escape_when_idle_does_nothing() -> None:
    app, backend = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        assert backend.cancel_count == 0


async def test_markup_and_escape_injection_is_shown_literally() -> None:
    evil = (
        "[bold]x[/bold] [/INST] [link=http://e]y[/link] \x1b]52;c;ZXZpbA==\x07\x1b[31mred\x1b[0m \x1b]0;title\x1b\\done"
    )
    app, _ = make_app([reply_script([evil[:25], evil[25:40], evil[40:]])])
    async with app.run_test() as pilot:
        await send(pilot, "[red]user[/red] \x1b[2J")
        screen = chat(pilot)
        text = shown(screen.chat_log.assistant_messages[0])
        assert "[bold]x[/bold] [/INST]" in text and "red done" in text
        assert "\x1b" not in text and "ZXZpbA" not in text and "title" not in text
        assert str(screen.query_one(UserMessage).render()) == "[red]user[/red] "
        assert "\x1b" not in app.export_screenshot()


async def test_newline_keys_insert_and_enter_sends() -> None:
    app, backend = make_app()
    async with app.run_test() as pilot:
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        await wait_until(pilot, lambda: chat(pilot).prompt_input.text == "a\nb\nc", "three lines typed")
        assert backend.prompts == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert backend.prompts == ["a\nb\nc"]


async def test_up_and_down_recall_earlier_prompts() -> None:
    app, _ = make_app()
    async with app.run_test() as pilot:
        await send(pilot, "one")
        await send(pilot, "two")
        prompt = chat(pilot).prompt_input
        await pilot.press("d", "r", "a", "f", "t")
        await wait_until(pilot, lambda: prompt.text == "draft", "the draft typed")
        for key, text in [("up", "two"), ("up", "one"), ("up", "one"), ("down", "two"), ("down", "draft")]:
            # (Up at the oldest stays there: the Down after it shows it was handled)
            await pressed(pilot, key, lambda text=text: prompt.text == text, f"{text!r} recalled")  # type: ignore[misc]


async def paste_anyway(pilot: Pilot[None]) -> None:
    """Past `[ui] attach_paste_over` a paste is offered as an attachment: put it in the box anyway."""
    await wait_until(pilot, lambda: showing(pilot.app, AttachPasteScreen), "offered as an attachment")
    await pilot.press("p")


async def test_megabyte_paste_is_sent_whole() -> None:
    big = ("x" * 99 + "\n") * 10_486  # a little over 1 MB, many lines
    app, backend = make_app([reply_script(["ok"])])
    async with app.run_test() as pilot:
        prompt = chat(pilot).prompt_input
        app.post_message(events.Paste(big))  # a terminal paste reaches the app first
        await paste_anyway(pilot)
        await wait_until(pilot, lambda: prompt.prompt_text == big, "paste inserted")
        await pilot.press("enter")
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert backend.prompts == [big]


async def test_a_megabyte_single_line_paste_is_a_chip_in_the_box_and_sent_whole() -> None:
    """A 1 MB line in the box made every later keystroke re-lay it out (~0.6 s each): it shows as a chip,
    keys typed around it land in the box, and the prompt sent has the whole paste in the chip's place."""
    big = "y" * 1_048_576
    app, backend = make_app([reply_script(["ok"])])
    async with app.run_test() as pilot:
        prompt = chat(pilot).prompt_input
        await pilot.press("a", "space")
        app.post_message(events.Paste(big))
        await paste_anyway(pilot)
        await wait_until(pilot, lambda: "[pasted 1.0 MB, 1 line]" in prompt.text, "the chip shown")
        await pilot.press("space", "b")
        await wait_until(pilot, lambda: prompt.text == "a [pasted 1.0 MB, 1 line] b", lambda: repr(prompt.text[:80]))
        await pilot.press("enter")
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert backend.prompts == [f"a {big} b"]
        await pilot.press("up")
        await wait_until(
            pilot, lambda: prompt.text == "[earlier prompt 1.0 MB, 1 line]", lambda: repr(prompt.text[:80])
        )
        assert prompt.prompt_text == f"a {big} b"


async def test_a_prompt_taller_than_its_box_scrolls_to_the_cursor() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        prompt = chat(pilot).prompt_input
        for line in range(30):
            prompt.insert(f"line {line}")
            await pilot.press("ctrl+j")
            await wait_until(pilot, lambda line=line: prompt.cursor_location[0] == line + 1, "the new line")  # type: ignore[misc]

        def cursor_shown() -> bool:  # scrolled to once the taller prompt is laid out
            row, _ = prompt.cursor_location
            shown = prompt.scroll_y <= row < prompt.scroll_y + prompt.scrollable_content_region.height
            return prompt.size.height < 30 and prompt.show_vertical_scrollbar and shown

        await wait_until(pilot, cursor_shown, lambda: f"the cursor shown (y {prompt.scroll_y}, {prompt.size})")
        assert prompt.cursor_location[0] == 30


async def test_notices_shown_and_quit_closes() -> None:
    app, backend = make_app(notices=["History was recovered from a damaged file."])
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: bool(notifications(app)), "the notice")
        assert [n.message for n in notifications(app)] == ["History was recovered from a damaged file."]
        await pilot.press("ctrl+q")
    assert backend.closed


class SlowToCancel(ScriptedBackend):
    """A backend whose cancel takes effect only after what it already produced has been delivered."""

    def cancel(self) -> None:
        self.cancel_count += 1


async def test_text_produced_before_cancel_took_effect_still_lands() -> None:
    gate = Gate()
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "before "),
        gate,
        AssistantTextDelta("m1", "in flight"),
        AssistantMessageFinished("m1", MessageStatus.INTERRUPTED),
        TurnFinished(TurnEndReason.CANCELLED),
    ]
    backend = SlowToCancel([script])
    app = TuiAgentApp(backend, cursor_blink=False)
    async with app.run_test() as pilot:
        await send(pilot, "go", wait=False)
        screen = chat(pilot)
        await wait_until(pilot, lambda: gate.reached)
        await pilot.press("escape")
        message = screen.chat_log.assistant("m1")
        assert message is not None and message.status is MessageStatus.INTERRUPTED and message.text == "before "
        gate.open()
        await wait_until(pilot, lambda: screen.idle)
        assert message.text == "before in flight"
        assert len(screen.query(MessageMarker)) == 1


async def test_reply_that_completed_before_cancel_loses_its_marker() -> None:
    gate = Gate()
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "all "),
        gate,
        AssistantTextDelta("m1", "done"),
        AssistantMessageFinished("m1", MessageStatus.COMPLETE),
    ]
    app = TuiAgentApp(SlowToCancel([script]), cursor_blink=False)
    async with app.run_test() as pilot:
        await send(pilot, "go", wait=False)
        screen = chat(pilot)
        await wait_until(pilot, lambda: gate.reached)
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(screen.query(MessageMarker)) == 1)
        gate.open()
        await wait_until(pilot, lambda: screen.idle)
        message = screen.chat_log.assistant("m1")
        assert message is not None and message.status is MessageStatus.COMPLETE and message.text == "all done"
        # the marker goes with the message's final status, which may be drawn a refresh after the turn's end
        await wait_until(pilot, lambda: len(screen.query(MessageMarker)) == 0, "the marker removed")


def answering_app(count: int, answer: str = "Answer {n}.\n\n- item") -> TuiAgentApp:
    """An app whose backend answers prompt n with `answer` (formatted with n) as reply `a{n}`."""
    app, _ = make_app([reply_script([answer.format(n=n)], message_id=f"a{n}") for n in range(count)])
    return app


async def ask(pilot: Pilot[None], count: int) -> ChatScreen:
    """Send `question 0` .. `question {count - 1}`, each after the previous turn ended."""
    for n in range(count):
        await send(pilot, f"question {n}")
    return chat(pilot)


async def test_long_log_keeps_a_window_mounted_while_scrolling_both_ways() -> None:
    async with answering_app(40).run_test() as pilot:
        screen = await ask(pilot, 40)
        log = screen.chat_log
        assert len(log.entries) <= TRIM_AT and log.hidden_count == 80 - len(log.entries)
        assert log.entries[-1].text == "Answer 39.\n\n- item"  # type: ignore[union-attr]
        await scroll_to_the_top(pilot, screen)
        assert conversation_keys(log.entries)[:2] == ["user: question 0", "assistant a0: Answer 0.\n\n- item"]
        assert log.later_count > 0
        expected = [key for n in range(40) for key in (f"user: question {n}", f"assistant a{n}: Answer {n}.\n\n- item")]
        assert await read_to_the_bottom(pilot, screen) == expected


async def test_a_new_prompt_while_far_up_brings_the_newest_entries_back() -> None:
    async with answering_app(41, "Answer {n}.").run_test() as pilot:
        screen = await ask(pilot, 40)
        await scroll_to_the_top(pilot, screen)
        log = screen.chat_log
        assert log.later_count > 0
        await send(pilot, "question 40")
        assert log.later_count == 0 and len(log.entries) <= TRIM_AT
        keys = conversation_keys(log.entries)
        assert keys[-4:] == [
            "user: question 39",
            "assistant a39: Answer 39.",
            "user: question 40",
            "assistant a40: Answer 40.",
        ]
        await wait_until(  # the newest entry in view, once the log has scrolled to it (after a refresh)
            pilot,
            lambda: log.scroll_y == log.max_scroll_y,
            lambda: f"at the bottom (y={log.scroll_y}, max={log.max_scroll_y})",
        )


async def test_text_appended_on_the_same_line_is_painted() -> None:
    gates = [Gate(), Gate()]
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "Hello"),
        gates[0],
        AssistantTextDelta("m1", " wide world"),
        gates[1],
    ]
    app, _ = make_app([script])
    async with app.run_test() as pilot:
        await send(pilot, "hi", wait=False)
        await wait_until(pilot, lambda: gates[0].reached)
        await wait_until(pilot, lambda: "Hello" in screen_text(app), "first chunk painted")
        gates[0].open()
        await wait_until(pilot, lambda: gates[1].reached)
        await wait_until(pilot, lambda: "Hello wide world" in screen_text(app), "same-line append painted")
        gates[1].open()


def screen_text(app: TuiAgentApp) -> str:
    return app.export_screenshot().replace("&#160;", " ")


async def test_page_up_and_down_scroll_the_conversation_from_the_prompt() -> None:
    async with answering_app(12, "Answer {n}.\n\n- item\n- item").run_test() as pilot:
        screen = await ask(pilot, 12)
        log = screen.chat_log

        def where() -> str:
            return f"y={log.scroll_y}, max={log.max_scroll_y}"

        # a scroll (the log following the newest entry, a page key) takes effect after the next refresh
        await wait_until(pilot, lambda: 0 < log.scroll_y == log.max_scroll_y, lambda: f"at the bottom ({where()})")
        bottom = log.scroll_y
        await pilot.press("pageup")
        await wait_until(pilot, lambda: log.scroll_y < bottom, lambda: f"a page up ({where()})")
        assert screen.prompt_input.has_focus
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: log.scroll_y == bottom, lambda: f"back at the bottom ({where()})")


async def test_prompt_history_is_kept_across_runs() -> None:
    app, _ = make_app()
    async with app.run_test() as pilot:
        await send(pilot, "from an earlier run")
        await send(pilot, "the last one")
    app, _ = make_app()
    async with app.run_test() as pilot:
        prompt = chat(pilot).prompt_input
        await pilot.press("up")
        assert prompt.text == "the last one"
        await pilot.press("up")
        assert prompt.text == "from an earlier run"
        await pilot.press("down", "down")
        assert prompt.text == ""


async def test_the_app_still_delivers_messages_after_closing_its_engine() -> None:
    """Closing the engine must not close the app's message queue (Textual's own `_closed`): it quits by `exit`."""
    app, backend = make_app()
    ran: list[bool] = []
    async with app.run_test() as pilot:
        await app.close_engine()
        assert backend.closed
        app.call_later(ran.append, True)
        await wait_until(pilot, lambda: ran == [True], "a message handled after the engine closed")
        await pilot.press("ctrl+q")
    assert app.return_code == 0
