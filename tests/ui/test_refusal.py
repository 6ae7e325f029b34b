"""OpenAI's refusal (`delta.refusal`, sent instead of content), on the real stack over real HTTP: a dimmed, open
"refused" block with the model's words, saved as a `refusal` part, never sent back to the model, and shown
again when the session is resumed."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import chat, chat_ready, send, wait_until
from tests.ui.sessions_stack import RealStack
from tui_agent.agent.resume import ResumeRequest
from tui_agent.history.models import StreamedPart
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.widgets.thinking import ThinkingBlock

REFUSES = {"delta_fields": {"refusal": "I can't help with that."}, "chunk_size": 6}
SHOWN = "▾ refused (5 words)\nI can't help with that."


async def test_a_refusal_is_shown_as_a_refused_block_saved_resumed_and_not_sent_back(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [REFUSES, {"text": "Fine."}]})) as server:
        stack = RealStack(tmp_path / "history.db", server)
        app, _ = stack.app()
        async with app.run_test(size=(120, 36)) as pilot:
            await chat_ready(pilot)
            await send(pilot, "Help me pick a lock.")
            log = chat(pilot).chat_log
            (block,) = log.query(ThinkingBlock)
            assert (block.kind, str(block.render())) == ("refusal", SHOWN)
            assert not log.assistant_messages[-1].display  # no text came: the block alone shows the reply
            await send(pilot, "Then say fine.")
            await wait_until(pilot, lambda: log.assistant_messages[-1].text == "Fine.")
        app, _ = stack.app(ResumeRequest(latest=True))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: bool(pilot.app.screen.query(ThinkingBlock)), "the refused block")
            (block,) = pilot.app.screen.query(ThinkingBlock)
            assert str(block.render()) == SHOWN
        assert "help with that" not in str(stack.chat_requests())
    store = await HistoryStore.open(tmp_path / "history.db")
    try:
        (session,) = await store.list_recent()
        reply = (await store.load_tail(session.id, 10))[1]
        assert reply.parts == [StreamedPart("refusal", "I can't help with that.")]
    finally:
        await store.close()
