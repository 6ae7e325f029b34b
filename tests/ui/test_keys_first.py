"""A key on its way to the screen goes before a streaming reply's next batch (issue 28: key echo while a long
reply streams). A batch (a flush, then the new pieces at the reply's end) is ~30 ms of the event loop; a key
that came just before it waited for all of it and for the frame laying out the grown reply."""

from __future__ import annotations

from textual import events

from tests.ui.helpers import chat_ready, make_app, wait_until
from tui_agent.ui.input_first import MAX_WAIT, InputFirst, keys_waiting


def test_a_key_waits_until_the_frame_after_it_and_never_longer_than_the_bound() -> None:
    now = [100.0]
    watch = InputFirst(clock=lambda: now[0])
    assert not watch.waiting
    assert watch.key_posted() and watch.waiting
    assert not watch.key_posted()  # a second key before the frame: the same wait
    now[0] += MAX_WAIT / 2
    assert watch.waiting
    watch.painted()
    assert not watch.waiting
    assert watch.key_posted()
    now[0] += 2 * MAX_WAIT
    assert not watch.waiting  # a frame that never came does not hold a reply back
    assert watch.key_posted() and watch.waiting  # and the next key is watched again


async def test_a_key_goes_before_the_next_flush_and_the_newest_pieces() -> None:
    source = "".join(f"- item {n}: `src/pkg/module_{n}.py` keeps the parser\n" for n in range(300))
    app, _ = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await chat_ready(pilot)
        assert not keys_waiting(app)
        reply = screen.chat_log.start_assistant("m1")
        await wait_until(pilot, lambda: reply.size.width > 0, "the reply laid out")
        reply.append(source)  # the first flush: at once (no key waits)
        assert reply.text == source
        newest = reply._pieces[-1]
        assert len(reply._pieces) > 3 and newest.lines is None  # rendered in a turn of the loop of its own, later

        app.post_message(events.Key("x", "x"))  # as the terminal's input gives it
        assert keys_waiting(app)
        reply._render_end()
        assert newest.lines is None  # the newest piece waits for the key's frame (which renders what it shows)
        reply._last_flush = 0.0  # the next flush is due
        reply.append("- one more\n")
        assert reply.text == source  # and so does the flush

        await wait_until(pilot, lambda: screen.prompt_input.text.endswith("x"), "the key shown")
        await wait_until(pilot, lambda: reply.text == source + "- one more\n", "the held flush")
        await wait_until(pilot, lambda: newest.lines is not None, "the newest piece rendered")
        assert not keys_waiting(app)
        assert "one more" in reply.shown_text()
