"""OpenAI's refusal (`delta.refusal`, sent instead of content), on the real stack over real HTTP: a dimmed
"refused" block with the model's words, saved as a `refusal` part, never sent back to the model, and shown
again when the session is resumed."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import app_on_real_agent, chat, chat_ready, send, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import Settings
from tui_agent.history.models import StreamedPart
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.widgets.thinking import ThinkingBlock

REFUSES = {"delta_fields": {"refusal": "I can't help with that."}, "chunk_size": 6}
SHOWN = "▾ refused (5 words)\nI can't help with that."


async def test_a_refusal_is_shown_as_a_refused_block_saved_and_not_sent_back(tmp_path: Path) -> None:
    scenario = strict_scenario({"replies": [REFUSES, {"text": "Fine."}]})
    with BackgroundServer(scenario) as server:
        settings = Settings(db=tmp_path / "history.db")
        app, _ = app_on_real_agent(settings, EndpointChoice(server.base_url, "scripted", "test-key"))
        async with app.run_test(size=(120, 36)) as pilot:
            await chat_ready(pilot)
            await send(pilot, "Help me pick a lock.")
            log = chat(pilot).chat_log
            (block,) = log.query(ThinkingBlock)
            assert (block.kind, str(block.render())) == ("refusal", SHOWN)
            assert not log.assistant_messages[-1].display  # no text came: the block alone shows the reply
            await send(pilot, "Then say fine.")
            await wait_until(pilot, lambda: log.assistant_messages[-1].text == "Fine.")
        body = server.requests[-1].body
        assert body is not None and "help with that" not in str(body["messages"])
    store = await HistoryStore.open(tmp_path / "history.db")
    try:
        (session,) = await store.list_recent()
        reply = (await store.load_tail(session.id, 10))[1]
        assert reply.parts == [StreamedPart("refusal", "I can't help with that.")]
    finally:
        await store.close()
