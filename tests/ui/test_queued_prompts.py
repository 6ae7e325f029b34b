"""A prompt sent while a reply streams waits, marked "queued", above the prompt (not under the live reply),
and is sent when the turn ends; Esc on the empty prompt takes the newest one back to edit."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.helpers import SIZE, chat, conversation_keys, make_app, send, wait_until
from tui_agent.testing.scripted import Gate, Script, reply_script
from tui_agent.ui.widgets.messages import UserMessage


def gated_reply(gate: Gate) -> Script:
    """A reply "Half done." that waits at `gate` after "Half "."""
    return [*reply_script(["Half "])[:-1], gate, *reply_script(["done."])[1:]]


async def queue(pilot: Pilot[None], *prompts: str) -> None:
    """Send `prompts` mid-reply, each once the one before is queued (typed before, it joined the prompt still in
    the box: Enter is handled a moment after `press` returns, maybe)."""
    queued = chat(pilot).queued
    for n, prompt in enumerate(prompts, 1):
        await send(pilot, prompt, wait=False)
        await wait_until(pilot, lambda n=n: queued.prompts == list(prompts[:n]), lambda: f"queued: {queued.prompts}")  # type: ignore[misc]


async def test_a_prompt_sent_mid_reply_waits_as_queued_and_is_sent_when_the_turn_ends() -> None:
    gate = Gate()
    app, backend = make_app([gated_reply(gate), reply_script(["Second answer."], message_id="m2")])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        screen = chat(pilot)
        await send(pilot, "second", wait=False)
        await wait_until(pilot, lambda: screen.queued.prompts == ["second"], lambda: f"queued: {screen.queued.prompts}")
        assert backend.prompts == ["first"]
        assert [entry.prompt for entry in screen.query(UserMessage)] == ["first"]  # not under the live reply
        assert screen.queued.display and screen.queued.prompts == ["second"]
        shown = str(screen.queued.render())
        assert "queued" in shown and "second" in shown
        assert screen.prompt_input.text == ""
        gate.open()
        await wait_until(pilot, lambda: screen.idle, "both turns done")
        assert backend.prompts == ["first", "second"]
        assert conversation_keys(screen.chat_log.entries) == [
            "user: first",
            "assistant m1: Half done.",
            "user: second",
            "assistant m2: Second answer.",
        ]
        assert not screen.queued.display


async def test_several_queued_prompts_are_sent_in_order_one_turn_each() -> None:
    gate = Gate()
    app, backend = make_app([gated_reply(gate)])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        screen = chat(pilot)
        await queue(pilot, "two", "three")
        gate.open()
        await wait_until(pilot, lambda: screen.idle, "every queued prompt answered")
        assert backend.prompts == ["first", "two", "three"]
        assert [entry.prompt for entry in screen.query(UserMessage)] == ["first", "two", "three"]


async def test_escape_on_the_empty_prompt_takes_the_newest_queued_prompt_back() -> None:
    gate = Gate()
    app, backend = make_app([gated_reply(gate)])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        screen = chat(pilot)
        await queue(pilot, "two", "three, with a typo")
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.prompt_input.text == "three, with a typo", "the newest taken back")
        assert screen.queued.prompts == ["two"]
        assert backend.cancel_count == 0 and screen.busy  # the reply goes on
        await pilot.press("escape")  # the prompt is not empty: Esc stops the reply as always
        await wait_until(pilot, lambda: backend.cancel_count == 1, "the reply stopped")
        await wait_until(pilot, lambda: screen.idle, "the queued prompt sent after the stop")
        assert backend.prompts == ["first", "two"]
        assert screen.prompt_input.text == "three, with a typo"
