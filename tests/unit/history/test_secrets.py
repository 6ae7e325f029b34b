"""A canary API key planted in the environment and the config never reaches the database, its WAL or exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.history.helpers import file_bytes
from tui_agent import paths
from tui_agent.config import load_settings, read_config_file
from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus

ENV_CANARY = "sk-canary-ENV-4f9d2a7c1b3e5d6f"
NAMED_CANARY = "sk-canary-NAMED-0a1b2c3d4e5f6071"
CONFIG_CANARY = "sk-canary-CFG-8e7d6c5b4a392817"


def _write_config() -> None:
    paths.config_file().write_text(
        f'base_url = "https://me:{CONFIG_CANARY}@api.example.com/v1?api_key={CONFIG_CANARY}"\n'
        f'api_key = "{CONFIG_CANARY}"\nmodel = "gpt-test"\napi_key_env = "MY_LLM"\n',
        encoding="utf-8",
    )


def _files(db_path: Path) -> dict[str, bytes]:
    return {p.name: file_bytes(p) for p in db_path.parent.iterdir() if p.name.startswith(db_path.name)}


async def test_canary_keys_appear_nowhere(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_CANARY)
    monkeypatch.setenv("MY_LLM", NAMED_CANARY)  # named by api_key_env in the config
    _write_config()
    settings = load_settings(read_config_file(paths.config_file()))
    store = await HistoryStore.open(db_path)
    leaky = f"key {ENV_CANARY} and {CONFIG_CANARY} and {NAMED_CANARY}"
    session = await store.create_session(
        f"title {ENV_CANARY}", model=settings.model, endpoint=settings.base_url, system_prompt=leaky
    )
    _, reply = await store.begin_turn(session.id, f"my key is {ENV_CANARY}")
    saver = StreamingSaver(store, reply.id, interval=0.01)
    saver.push(f"echoing {CONFIG_CANARY} ")
    await store.record_tool_call(reply.id, "c1", "http_get", f'{{"token": "{ENV_CANARY}"}}', {"token": ENV_CANARY})
    await store.update_tool_call(reply.id, "c1", ToolStatus.FAILED, result=leaky, error=leaky)
    await saver.finish(MessageStatus.FAILED, error=leaky)
    exports = [await store.export_markdown(session.id), await store.export_json(session.id)]
    files_open = _files(db_path)
    assert any(name.endswith("-wal") for name in files_open)  # the WAL is checked while it exists
    await store.close()
    files_closed = _files(db_path)
    for canary in (ENV_CANARY, CONFIG_CANARY, NAMED_CANARY):
        for name, data in [*files_open.items(), *files_closed.items()]:
            assert canary.encode() not in data, f"{canary} found in {name}"
        for text in exports:
            assert canary not in text
    assert "my key is [redacted]" in exports[0]
    assert '"endpoint": "https://api.example.com/v1"' in exports[1]
