"""The prompt's own keys (Enter, the newline keys, Up/Down recall, long pastes) are handled by the prompt; every
other key and every short paste is left to TextArea, which handles it exactly once."""

from __future__ import annotations

from textual import events

from tests.ui.helpers import SIZE, chat, make_app, send, wait_until


async def test_a_short_paste_goes_in_once_over_the_selection() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        prompt = chat(pilot).prompt_input
        await pilot.press("a", "b", "c", "shift+left")
        app.post_message(events.Paste("XY"))  # a terminal paste reaches the app first
        await wait_until(pilot, lambda: "XY" in prompt.text, "paste inserted")
        await pilot.pause()
        assert prompt.text == "abXY" and prompt.cursor_location == (0, 4)


async def test_up_and_down_inside_a_prompt_move_the_cursor_and_keys_type() -> None:
    app, backend = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "earlier")
        prompt = chat(pilot).prompt_input
        await pilot.press("a", "ctrl+j", "b", "ctrl+j", "c", "up")
        assert prompt.cursor_location == (1, 1) and prompt.text == "a\nb\nc"  # TextArea's cursor move
        await pilot.press("x", "down", "y")
        assert prompt.text == "a\nbx\ncy"
        await pilot.press("home", "up", "up", "up")
        assert prompt.text == "earlier"  # from the first line, Up recalls
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: backend.prompts == ["earlier", "a\nbx\ncy"], "the draft sent")
