"""The prompt's own keys (Enter, the newline keys, Up/Down recall, long pastes) are handled by the prompt; every
other key and every short paste is left to TextArea, which handles it exactly once."""

from __future__ import annotations

from textual import events

from tests.ui.helpers import SIZE, chat, make_app, pressed, send, wait_until


async def test_a_short_paste_goes_in_once_over_the_selection() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        prompt = chat(pilot).prompt_input
        await pilot.press("a", "b", "c", "shift+left")
        await wait_until(pilot, lambda: prompt.selected_text == "c", "the c selected")
        app.post_message(events.Paste("XY"))  # a terminal paste reaches the app first
        await wait_until(pilot, lambda: "XY" in prompt.text, "paste inserted")
        await wait_until(pilot, lambda: prompt.cursor_location == (0, 4), lambda: f"{prompt.cursor_location}")
        assert prompt.text == "abXY"


async def test_up_and_down_inside_a_prompt_move_the_cursor_and_keys_type() -> None:
    app, backend = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "earlier")
        prompt = chat(pilot).prompt_input
        await pilot.press("a", "ctrl+j", "b", "ctrl+j", "c")
        await wait_until(pilot, lambda: prompt.text == "a\nb\nc", lambda: repr(prompt.text))
        await pressed(pilot, "up", lambda: prompt.cursor_location == (1, 1), "TextArea's cursor move")
        assert prompt.text == "a\nb\nc"
        await pilot.press("x", "down", "y")
        await wait_until(pilot, lambda: prompt.text == "a\nbx\ncy", lambda: repr(prompt.text))
        await pilot.press("home", "up", "up")
        await wait_until(pilot, lambda: prompt.cursor_location == (0, 0), lambda: f"{prompt.cursor_location}")
        await pressed(pilot, "up", lambda: prompt.text == "earlier", "from the first line, Up recalls")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: backend.prompts == ["earlier", "a\nbx\ncy"], "the draft sent")
