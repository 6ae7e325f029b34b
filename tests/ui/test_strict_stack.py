"""The app on the real engine against a strict server: a failed turn does not poison the next one.

Servers whose chat template demands alternating roles (Gemma, Mistral, Llama 2 in llama.cpp, vLLM) answer
400 "Conversation roles must alternate" to a history with two user messages in a row; the offline model in
strict mode does the same.
"""

from __future__ import annotations

from pathlib import Path

from tests.ui.helpers import FIXED_NOW, chat, send
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.messages import ErrorNotice


async def test_after_a_failed_turn_the_next_prompt_is_answered(tmp_path: Path) -> None:
    with BackgroundServer(
        {"replies": [{"status": 500, "retry_after": 0.01}], "then": "repeat_last", "strict": True}
    ) as server:
        settings = Settings(db=tmp_path / "history.db")
        choice = EndpointChoice(server.base_url, "scripted", "test-key")
        app = TuiAgentApp(
            lambda: build_agent(settings, choice),
            model=choice.model,
            endpoint=choice.label,
            clock=lambda: FIXED_NOW,
            cursor_blink=False,
        )
        async with app.run_test(size=(140, 40)) as pilot:
            screen = chat(pilot)
            await send(pilot, "What is asyncio?")
            assert len(screen.query(ErrorNotice)) == 1
            server.server.script([])  # the server is back
            await send(pilot, "Are you there?")
            assert len(screen.query(ErrorNotice)) == 1, [str(n.render()) for n in screen.query(ErrorNotice)]
            assert "offline model" in screen.chat_log.assistant_messages[-1].shown_text()
        assert server.requests[-1].outcome == "ok"
