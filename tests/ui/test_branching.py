"""The message cursor, edit, regenerate and branches in the TUI, on the real stack: the offline model over HTTP in
strict mode (its default answers: a tool call for the weather, Markdown with a code block otherwise), the real
agent and a real SQLite file. What the log, the tool column and the status line show must match the active branch
history holds, and the model must get exactly that branch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual import events
from textual.pilot import Pilot

from tests.ui.helpers import chat, send, showing, under_the_pointer, wait_until
from tests.ui.sessions_stack import RealStack, Turn, seed, stack_serving
from tui_agent.agent.resume import ResumeRequest
from tui_agent.history.store import HistoryStore
from tui_agent.status import Role
from tui_agent.ui.clipboard import clipboard_command
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import AssistantMessage, MessageMarker, UserMessage, replaced_text

SIZE = (140, 45)
WEATHER = "What's the weather in Paris?"


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"replies": [], "then": "default"})


def selected(screen: ChatScreen) -> object:
    return screen.message_cursor.selected


def focused(app: object) -> object:
    return getattr(app, "focused", None)


def active(screen: ChatScreen) -> bool:
    return screen.message_cursor.active


def prompts(screen: ChatScreen) -> list[str]:
    return [entry.prompt for entry in screen.chat_log.entries if isinstance(entry, UserMessage)]


def sent_prompts(stack: RealStack) -> list[str]:
    messages = stack.chat_requests()[-1]["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


def panels(screen: ChatScreen) -> list[str]:
    return [panel.call.message_id for panel in screen.tool_panels.panels]


async def stored_prompts(db: Path) -> list[str]:
    store = await HistoryStore.open(db)
    try:
        (session, *_) = await store.list_recent()
        return [m.content for m in await store.load_tail(session.id, 100) if m.role is Role.USER]
    finally:
        await store.close()


async def select(pilot: Pilot[None], text: str) -> UserMessage:
    """Ctrl+Up, then Up until the selected message is the prompt `text`."""
    screen = chat(pilot)
    cursor = screen.message_cursor
    if not cursor.active:
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: cursor.active and cursor.selected is not None, "a message selected")
    for _ in range(30):
        entry = cursor.selected
        if isinstance(entry, UserMessage) and entry.prompt == text:
            return entry
        await pilot.press("up")  # handled a moment after `press` returns, maybe: one key per move
        await wait_until(pilot, lambda entry=entry: cursor.selected is not entry, f"the cursor moved up to {text!r}")  # type: ignore[misc]
    raise AssertionError(f"no message {text!r} to select")


async def start_editing(pilot: Pilot[None]) -> None:
    """E on the selected prompt; wait until the prompt box holds it to edit, focused (the key is handled, and
    the focus moved, a moment after `press` returns, maybe: text loaded before would be overwritten)."""
    app, prompt = pilot.app, chat(pilot).prompt_input
    await pilot.press("e")
    await wait_until(pilot, lambda: prompt.has_class("-editing") and app.focused is prompt, "the prompt to edit")


def mark(entry: UserMessage | AssistantMessage) -> str:
    title = entry.border_title
    return str(title) if title is not None else ""


async def marked(pilot: Pilot[None], entry: UserMessage | AssistantMessage, label: str) -> None:
    await wait_until(pilot, lambda: mark(entry) == label, lambda: f"mark {label!r}, shows {mark(entry)!r}")


async def switched(pilot: Pilot[None], shown: list[str], landed: str) -> None:
    """Wait for a switch (← →) to end: the branch's prompts shown, and the cursor on the version switched to
    (selected last, once the redraw has mounted and the entries it took away are gone)."""
    screen = chat(pilot)

    def on(text: str) -> bool:
        entry = screen.message_cursor.selected
        return isinstance(entry, UserMessage) and entry.prompt == text and entry.is_attached

    await wait_until(
        pilot,
        lambda: prompts(screen) == shown and on(landed),
        lambda: f"{shown} shown, {landed!r} selected (shows {prompts(screen)}, selected {selected(screen)!r})",
    )


async def three_turns(pilot: Pilot[None]) -> ChatScreen:
    for prompt in (WEATHER, "Tell me about bravo", "And charlie"):
        await send(pilot, prompt)
    return chat(pilot)


async def test_ctrl_up_selects_the_newest_message_and_up_down_escape_move(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_turns(pilot)
        await pilot.press("ctrl+up")
        cursor = screen.message_cursor
        await wait_until(pilot, lambda: cursor.active and app.focused is cursor, "the cursor on, focused")
        newest = cursor.selected
        assert isinstance(newest, AssistantMessage) and newest.has_class("-cursor")
        await pilot.press("up")
        await wait_until(pilot, lambda: cursor.selected is not newest, "the cursor moved up")
        assert isinstance(cursor.selected, UserMessage) and cursor.selected.prompt == "And charlie"
        assert not newest.has_class("-cursor") and cursor.selected.has_class("-cursor")
        await pilot.press("down")
        await wait_until(pilot, lambda: selected(screen) is newest, "the cursor back down")
        await pilot.press("escape")
        await wait_until(pilot, lambda: focused(app) is screen.prompt_input, "the prompt focused again")
        assert not active(screen) and not newest.has_class("-cursor")


async def test_an_edit_in_the_middle_makes_a_branch_and_left_right_walk_it_with_the_tool_column(
    stack: RealStack,
) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_turns(pilot)
        (weather_call,) = panels(screen)
        bravo = await select(pilot, "Tell me about bravo")
        await start_editing(pilot)
        prompt = screen.prompt_input
        assert prompt.text == "Tell me about bravo"
        prompt.load_text("Tell me about bravo, edited")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and not prompt.has_class("-editing"), "the edit's turn ended")
        assert prompts(screen) == [WEATHER, "Tell me about bravo, edited"]
        assert sent_prompts(stack) == [WEATHER, "Tell me about bravo, edited"]
        assert panels(screen) == [weather_call]  # the tool call of the first turn is on both branches
        edited = next(e for e in screen.chat_log.entries if isinstance(e, UserMessage) and "edited" in e.prompt)
        await marked(pilot, edited, "‹2/2›")
        assert screen.status_bar.branch_note is None
        assert not bravo.is_attached

        await select(pilot, "Tell me about bravo, edited")
        await pilot.press("left")
        await switched(pilot, [WEATHER, "Tell me about bravo", "And charlie"], "Tell me about bravo")
        assert panels(screen) == [weather_call]
        selected = screen.message_cursor.selected
        assert isinstance(selected, UserMessage)
        await marked(pilot, selected, "‹1/2›")
        await wait_until(pilot, lambda: screen.status_bar.branch_note is not None, "the status line says so")
        assert "older branch ‹1/2›" in str(screen.status_bar.render())
        assert await stored_prompts(stack.db) == [WEATHER, "Tell me about bravo", "And charlie"]

        await pilot.press("right")
        await switched(pilot, [WEATHER, "Tell me about bravo, edited"], "Tell me about bravo, edited")
        await wait_until(pilot, lambda: screen.status_bar.branch_note is None, "the newest branch")
        await pilot.press("left")
        await switched(pilot, [WEATHER, "Tell me about bravo", "And charlie"], "Tell me about bravo")
        await pilot.press("escape")  # once the switch is over: it selects (and focuses) the version it landed on
        await wait_until(pilot, lambda: app.focused is screen.prompt_input, "the prompt focused again")
        await send(pilot, "delta")
        assert sent_prompts(stack) == [WEATHER, "Tell me about bravo", "And charlie", "delta"]


async def test_switching_a_branch_switches_the_tool_column_with_it(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, WEATHER)
        screen = chat(pilot)
        assert len(panels(screen)) == 1
        await select(pilot, WEATHER)
        await start_editing(pilot)
        screen.prompt_input.load_text("Just say hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and prompts(screen) == ["Just say hello"], "the edit answered")
        assert panels(screen) == []  # the weather call belongs to the other branch
        await select(pilot, "Just say hello")
        await pilot.press("left")
        await switched(pilot, [WEATHER], WEATHER)
        await wait_until(pilot, lambda: len(panels(screen)) == 1, "its tool call back in the column")
        await pilot.press("right")
        await switched(pilot, ["Just say hello"], "Just say hello")
        await wait_until(pilot, lambda: panels(screen) == [], "no tool call on it")


async def test_left_twice_pressed_at_once_walks_two_versions_back(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, WEATHER)
        screen = chat(pilot)
        for older, newer in ((WEATHER, "Just say hello"), ("Just say hello", "Say hi")):
            await select(pilot, older)
            await start_editing(pilot)
            screen.prompt_input.load_text(newer)
            await pilot.press("enter")
            await wait_until(pilot, lambda: screen.idle and prompts(screen) == [newer], "the edit answered")  # noqa: B023
        await select(pilot, "Say hi")
        for key in ("left", "left"):  # a fast hand, both at once: the second starts where the first landed
            app.post_message(events.Key(key, None))
        await switched(pilot, [WEATHER], WEATHER)
        await wait_until(pilot, lambda: len(panels(screen)) == 1, "its tool call back in the column")
        await pilot.pause(0.2)  # nothing is left to switch
        landed = selected(screen)
        assert prompts(screen) == [WEATHER] and isinstance(landed, UserMessage) and landed.prompt == WEATHER


async def test_regenerate_in_the_middle_with_tool_calls_is_a_sibling_reply(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_turns(pilot)
        (weather_call,) = panels(screen)
        bravo = await select(pilot, "Tell me about bravo")
        await pilot.press("down")
        await wait_until(pilot, lambda: screen.message_cursor.selected is not bravo, "the cursor moved down")
        bravo_reply = screen.message_cursor.selected
        assert isinstance(bravo_reply, AssistantMessage)
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.idle and bravo_reply.replaced, "the regeneration ran")
        assert prompts(screen) == [WEATHER, "Tell me about bravo"]  # charlie stays on the old branch
        replies = [e for e in screen.chat_log.entries if isinstance(e, AssistantMessage)]
        assert replies[-2] is bravo_reply and replies[-1].message_id != bravo_reply.message_id
        assert sent_prompts(stack) == [WEATHER, "Tell me about bravo"]
        assert panels(screen) == [weather_call]
        await marked(pilot, replies[-1], "‹2/2›")
        await marked(pilot, bravo_reply, "‹1/2›")


async def test_r_on_the_last_reply_is_a_retry_and_the_mark_follows(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me about alpha")
        screen = chat(pilot)
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: screen.message_cursor.selected is not None, "a message selected")
        old = screen.message_cursor.selected
        assert isinstance(old, AssistantMessage)
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.idle and old.replaced, "the new version")
        newest = [e for e in screen.chat_log.entries if isinstance(e, AssistantMessage)][-1]
        await marked(pilot, newest, "‹2/2›")
        await marked(pilot, old, "‹1/2›")  # the same model made both: no model named
        note = [entry for entry in screen.chat_log.entries if isinstance(entry, MessageMarker)]
        assert [str(entry.render()) for entry in note] == [replaced_text(0, 2)]
        assert "version 1 of 2" in replaced_text(0, 2) and "retry" not in replaced_text(0, 2)


async def test_copy_a_message_and_a_code_block(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Show me some python")
        screen = chat(pilot)
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: screen.message_cursor.selected is not None, "a message selected")
        reply = screen.message_cursor.selected
        assert isinstance(reply, AssistantMessage) and "```" in reply.text
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard == reply.text, "the reply copied")
        await pilot.press("tab")
        await wait_until(pilot, lambda: reply.branch_mark.code_rows is not None, "the code block selected")
        assert reply.branch_mark.code_rows is not None
        start, end = reply.branch_mark.code_rows
        shown = reply.shown_text().split("\n")[start:end]
        await pilot.press("y")
        await wait_until(pilot, lambda: any("code block 1," in n.message for n in notifications(app)), "copied")
        copied = app.clipboard
        assert copied.strip() and copied.strip().split("\n")[0].strip() in "\n".join(shown)
        assert "```" not in copied
        lines = copied.count("\n") + (0 if copied.endswith("\n") else 1)
        assert any(f"code block 1, {lines} line" in n.message for n in notifications(app))
        await pilot.press("up")
        await wait_until(pilot, lambda: screen.message_cursor.selected is not reply, "the prompt selected")
        await pilot.press("c")
        await wait_until(pilot, lambda: app.clipboard == "Show me some python", "the prompt copied")


async def test_fork_from_a_message_opens_a_new_session_up_to_it(stack: RealStack) -> None:
    app, built = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await three_turns(pilot)
        first = (await built.ready()).current_session_id
        await select(pilot, "Tell me about bravo")
        await pilot.press("f")
        await wait_until(
            pilot,
            lambda: (agent := built.agent) is not None and agent.current_session_id != first,
            "the fork opened",
        )
        await wait_until(
            pilot,
            lambda: showing(app, ChatScreen) and prompts(chat(pilot)) == [WEATHER, "Tell me about bravo"],
            "the fork shown",  # on a fresh chat screen, which is `app.screen` a moment before it has its log
        )


async def test_switching_in_a_long_session_keeps_the_earlier_entries_once_and_in_order(stack: RealStack) -> None:
    session = await seed(stack.db, "Long", [Turn(f"q{n}", f"answer {n}") for n in range(30)])
    app, _ = stack.app(ResumeRequest(session_id=session.id))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "q29" in prompts(chat(pilot)), "the newest page")
        for n in range(30, 36):  # more entries mounted than a page of history holds
            await send(pilot, f"q{n}")
        screen = chat(pilot)
        mounted = len(prompts(screen))
        await select(pilot, "q35")
        await start_editing(pilot)
        screen.prompt_input.load_text("q35, edited")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and prompts(screen)[-1] == "q35, edited", "the edit")
        earlier = [f"q{n}" for n in range(36 - mounted, 35)]
        for key, last in (("left", "q35"), ("right", "q35, edited"), ("left", "q35")):
            await select(pilot, prompts(screen)[-1])
            await pilot.press(key)
            await switched(pilot, [*earlier, last], last)  # each earlier entry once, in order


async def test_resume_lands_on_the_branch_left(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_turns(pilot)
        await select(pilot, "Tell me about bravo")
        await start_editing(pilot)
        screen.prompt_input.load_text("bravo, edited")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and prompts(screen)[-1] == "bravo, edited", "the edit")
        await select(pilot, "bravo, edited")
        await pilot.press("left")
        await switched(pilot, [WEATHER, "Tell me about bravo", "And charlie"], "Tell me about bravo")
    again, _ = stack.app(ResumeRequest(latest=True))
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "And charlie" in prompts(chat(pilot)), "the branch left, resumed")
        assert prompts(chat(pilot)) == [WEATHER, "Tell me about bravo", "And charlie"]
        bravo = next(e for e in chat(pilot).chat_log.entries if isinstance(e, UserMessage) and "bravo" in e.prompt)
        await marked(pilot, bravo, "‹1/2›")


async def test_editing_is_cancelled_with_escape_and_e_on_a_reply_edits_its_prompt(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me about alpha")
        screen = chat(pilot)
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: active(screen) and screen.message_cursor.selected is not None, "selected")
        assert isinstance(screen.message_cursor.selected, AssistantMessage)
        assert "e edit" in str(screen.message_cursor.render())  # offered on a reply: it does what it says
        await start_editing(pilot)  # the newest message is a reply: `e` edits the prompt it answers
        assert screen.prompt_input.text == "Tell me about alpha"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.prompt_input.has_class("-editing"), "the edit cancelled")
        assert screen.prompt_input.text == ""
        await send(pilot, "an ordinary prompt")
        assert prompts(screen) == ["Tell me about alpha", "an ordinary prompt"]


async def test_copy_goes_to_the_system_clipboard_too_and_never_fails_without_one(
    stack: RealStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert clipboard_command({}, "linux") is None
    target = tmp_path / "clipboard.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "xclip"
    fake.write_text(f"#!/bin/sh\ncat > {target}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert clipboard_command(platform="linux") == ["xclip", "-selection", "clipboard"]
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me about alpha")
        await select(pilot, "Tell me about alpha")
        await pilot.press("c")
        await wait_until(pilot, lambda: target.exists() and target.read_text() == "Tell me about alpha", "xclip fed")
        assert app.clipboard == "Tell me about alpha"  # and the terminal's copy (OSC 52)
        fake.unlink()  # no clipboard program: the terminal's copy alone, no error
        told = len(notifications(app))
        await pilot.press("c")
        await wait_until(pilot, lambda: len(notifications(app)) > told, "told")  # one more toast: the copy's
        assert any(n.message == "Copied the message, 1 line." for n in notifications(app))
        assert not any(n.severity == "error" for n in notifications(app))


async def test_the_cursor_keys_follow_the_keys_table_and_are_listed_in_f1_and_the_palette(stack: RealStack) -> None:
    from tests.ui.test_keys import app_with, help_text
    from tui_agent.ui.screens.help import HelpScreen

    app = app_with({"select_message": "f9", "edit_message": "E", "copy_message": "w"})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "a prompt")
        screen = chat(pilot)
        await pilot.press("ctrl+up", "x")  # the x, typed once the key is handled, goes to the prompt: still focused
        await wait_until(pilot, lambda: screen.prompt_input.text == "x", "the x typed after it")
        assert not active(screen)  # the old key no longer selects
        screen.prompt_input.clear()
        await pilot.press("f9")
        await wait_until(pilot, lambda: active(screen) and screen.message_cursor.selected is not None, "selected")
        reply = screen.message_cursor.selected
        await pilot.press("up")
        await wait_until(pilot, lambda: screen.message_cursor.selected is not reply, "the prompt selected")
        await pilot.press("e", "w")  # the copy, once done, says the e before it is done too (keys come in order)
        await wait_until(pilot, lambda: app.clipboard == "a prompt", "the prompt copied")
        assert active(screen) and not screen.prompt_input.has_class("-editing")
        assert "E edit" in str(screen.message_cursor.render()) and "w copy" in str(screen.message_cursor.render())
        await pilot.press("E")
        await wait_until(pilot, lambda: screen.prompt_input.has_class("-editing"), "the prompt to edit")
        assert screen.prompt_input.text == "a prompt"
        await pilot.press("escape", "f1")
        await wait_until(pilot, lambda: showing(app, HelpScreen), "help open")
        listed = help_text(app)
        assert "Selected message" in listed and "edit_message" in listed and "next_branch" in listed
        helps = {command.title: command.help for command in app.get_system_commands(app.screen)}
        assert helps["Edit a prompt"].endswith("(E on a selected message)")
        assert helps["Select a message"].endswith("(f9)")


async def test_palette_commands_act_on_the_newest_message(stack: RealStack) -> None:
    from tests.ui.test_palette import run_command

    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me about alpha")
        screen = chat(pilot)
        await run_command(pilot, "Edit a prompt")
        await wait_until(pilot, lambda: screen.prompt_input.has_class("-editing"), "editing from the palette")
        assert screen.prompt_input.text == "Tell me about alpha"


async def test_a_search_hit_on_another_branch_opens_the_session_on_that_branch(stack: RealStack) -> None:
    from textual.widgets import Input

    from tui_agent.ui.screens.sessions import SessionsScreen

    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await three_turns(pilot)
        await select(pilot, "Tell me about bravo")
        await start_editing(pilot)
        screen.prompt_input.load_text("bravo again")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and prompts(screen)[-1] == "bravo again", "the edit")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "the session screen")
        app.screen.query_one(Input).value = "charlie"
        await wait_until(pilot, lambda: bool(app.screen.hits), "the hit listed")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, ChatScreen) and "And charlie" in prompts(app.screen),
            "the session opened on the hit's branch",
        )
        assert prompts(chat(pilot)) == [WEATHER, "Tell me about bravo", "And charlie"]
        await send(pilot, "delta")
        assert sent_prompts(stack) == [WEATHER, "Tell me about bravo", "And charlie", "delta"]


async def click_link(pilot: Pilot[None], label: str, over: UserMessage | AssistantMessage) -> None:
    """Click the hover bar's link `label`, the bar over `over` (the message the pointer was moved to)."""
    from tui_agent.ui.widgets.hover_bar import HoverBar, bar_row

    log = chat(pilot).chat_log
    bar = chat(pilot).query_one(HoverBar)
    await wait_until(pilot, lambda: bar.has_class("-shown") and label in str(bar.render()), f"the bar offers {label}")

    def offset() -> tuple[int, int]:
        links = str(bar.render())
        return (1 + cell_len(links[: links.index(label)]), 0)

    def placed() -> bool:  # moved over the message hovered (a frame after the hover): a click on its old place
        # goes to the message there, and the bar follows the pointer back to it; laid out at the width of its
        # links (a message's `‹ ›` widen it: at the old width, the click lands on the link before)
        links = str(bar.render())
        return (
            bar.entry is over
            and bar.region.y == bar_row(over.region.y, log.region.y)
            and bar.region.width == cell_len(links) + 2
        )

    await wait_until(pilot, lambda: placed() and under_the_pointer(pilot, bar, offset()), "the hover bar laid out")
    await pilot.click(bar, offset=offset())


async def test_the_hover_bar_offers_the_same_actions_to_the_mouse(stack: RealStack) -> None:
    from tui_agent.ui.widgets.hover_bar import HoverBar

    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Show me some python")
        screen = chat(pilot)
        reply = next(e for e in screen.chat_log.entries if isinstance(e, AssistantMessage))
        prompt = next(e for e in screen.chat_log.entries if isinstance(e, UserMessage))
        await pilot.hover(reply)
        await wait_until(pilot, lambda: "↻ regenerate" in str(screen.query_one(HoverBar).render()), "the reply's bar")
        bar = screen.query_one(HoverBar)
        assert bar.region.bottom <= reply.region.y  # on the blank line above the reply: it hides none of it
        await click_link(pilot, "⧉ code", reply)
        await wait_until(pilot, lambda: bool(app.clipboard.strip()), "the code copied")
        assert "```" not in app.clipboard
        # the keys are the prompt's again: a prompt typed now is text, not the cursor's `r` (regenerate)
        await wait_until(pilot, lambda: focused(app) is screen.prompt_input, "the prompt focused after the click")
        assert not screen.message_cursor.active
        await pilot.press("r", "u", "n")
        await wait_until(pilot, lambda: screen.prompt_input.text == "run", "the keys typed into the prompt")
        assert len(screen.chat_log.assistant_messages) == 1 and screen.idle
        screen.prompt_input.clear()
        await pilot.hover(prompt, offset=(2, 0))
        await click_link(pilot, "✎ edit", prompt)
        await wait_until(pilot, lambda: screen.prompt_input.has_class("-editing"), "the prompt to edit")
        assert screen.prompt_input.text == "Show me some python"
        screen.prompt_input.load_text("Show me some rust")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and prompts(screen) == ["Show me some rust"], "the edit")
        edited = next(e for e in screen.chat_log.entries if isinstance(e, UserMessage))
        await marked(pilot, edited, "‹2/2›")
        await pilot.hover(edited, offset=(2, 1))
        await click_link(pilot, "‹", edited)
        await wait_until(pilot, lambda: prompts(screen) == ["Show me some python"], "the first version again")
        await pilot.hover(screen.prompt_input)
        await wait_until(pilot, lambda: not screen.query_one(HoverBar).has_class("-shown"), "the bar hidden")


async def test_switching_the_first_prompt_keeps_tui_agent_s_own_lines_above_it(tmp_path: Path) -> None:
    from tests.ui.helpers import app_on_real_agent
    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.config import Settings
    from tui_agent.ui.widgets.messages import SystemLine

    app, _ = app_on_real_agent(Settings(db=tmp_path / "history.db"), EndpointChoice(None, "offline"))
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(pilot)
        await wait_until(pilot, lambda: bool(screen.query(SystemLine)), "the offline model's line")
        await send(pilot, "Tell me about alpha")
        await select(pilot, "Tell me about alpha")
        await start_editing(pilot)
        screen.prompt_input.load_text("Tell me about beta")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and prompts(screen) == ["Tell me about beta"], "the edit")
        await select(pilot, "Tell me about beta")
        await pilot.press("left")
        await switched(pilot, ["Tell me about alpha"], "Tell me about alpha")
        assert screen.query(SystemLine)  # not history's: a redraw from history would lose it


async def test_shift_r_regenerates_with_the_model_picked(stack: RealStack) -> None:
    from textual.command import CommandPalette

    from tests.ui.test_palette import run_command

    app, built = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me about alpha")
        screen = chat(pilot)
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: screen.message_cursor.selected is not None, "a message selected")
        old = screen.message_cursor.selected
        assert isinstance(old, AssistantMessage)
        models = await (await built.ready()).list_models()
        other = next(name for name in models if name != "scripted")
        await pilot.press("R")
        await wait_until(pilot, lambda: CommandPalette.is_open(app), "the model picker")  # type: ignore[arg-type]  # App[object]
        await run_command(pilot, other)  # typed, and Enter once the picker has it highlighted
        await wait_until(pilot, lambda: screen.idle and old.replaced, "the regeneration")
        assert stack.chat_requests()[-1]["model"] == other
        newest = [e for e in screen.chat_log.entries if isinstance(e, AssistantMessage)][-1]
        await marked(pilot, newest, f"‹2/2› · {other}")  # each version made says with which model
        await marked(pilot, old, "‹1/2› · scripted")
        agent, bar = await built.ready(), screen.status_bar
        await wait_until(  # for this regeneration only: given back once the turn's last writes are done
            pilot,
            lambda: agent.model == bar.model == "scripted",
            lambda: f"the model given back (the agent's {agent.model!r}, the status line's {bar.model!r})",
        )


async def test_a_replaced_chat_screen_receives_nothing_more(stack: RealStack) -> None:
    """A fork or a new session replaces the chat screen while its `‹2/3›` marks may still be due (asked for on
    a timer): the old screen asks for none and says nothing (it raised 'No nodes match StatusBar'). No replaced
    screen, the app's first one included, stays to be sent anything (a resize, a timer, a worker's end): the
    red notice came back after the second new session, at F9 after one, during a sub-agent's turn."""
    from tui_agent.ui.screens.sessions import show_fresh_chat

    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me about alpha")
        replaced = [chat(pilot)]
        replaced[0].branches.ask_again()  # as after an edit: the marks are asked for a moment later
        show_fresh_chat(app)
        await wait_until(pilot, lambda: app.screen is not replaced[0] and showing(app, ChatScreen), "the fresh screen")
        await wait_until(pilot, lambda: bool(chat(pilot).query(UserMessage)), "the conversation shown anew")
        await pilot.pause(0.5)  # the old screen's mark timer (0.15 s) has run out: nothing must come of it
        for prompt in ("hi two", "hi three"):  # Ctrl+N twice, a prompt in each
            replaced.append(chat(pilot))
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: app.screen not in replaced and showing(app, ChatScreen), "a new session")
            await send(pilot, prompt)
        await pilot.resize_terminal(50, 30)  # sent to every screen in the stack
        await pilot.resize_terminal(*SIZE)
        await pilot.press("f9")
        await wait_until(pilot, lambda: bool(notifications(app)), "F9 answered")
        assert app.screen_stack == [chat(pilot)]
        assert [(old.retired, old.is_running) for old in replaced] == [(True, False)] * 3
        assert [n.message for n in notifications(app) if n.severity == "error"] == []
