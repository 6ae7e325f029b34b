"""`-p` with a custom base URL and no `--model`: the server's only model is used; with several, it says which."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer


def test_the_only_model_served_is_used(isolated_home: Path) -> None:
    with BackgroundServer({"models": ["gemma-3-270m-it"], "strict": True}) as server:
        done = run(["--base-url", server.base_url, "-p", "hello"], isolated_home)
        chats = [r.body for r in server.requests if r.body is not None]
    assert done.returncode == 0, done.stderr
    assert [body["model"] for body in chats] == ["gemma-3-270m-it"]


async def test_several_models_served_exit_1_naming_them(isolated_home: Path) -> None:
    with BackgroundServer({"models": ["qwen3-8b", "llama-3.1-8b", "text-embedding-3-small"]}) as server:
        done = run(["--base-url", server.base_url, "-p", "hello"], isolated_home)
        chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert done.returncode == 1
    assert "serves 2 chat models: qwen3-8b, llama-3.1-8b. Pick one with --model" in done.stderr
    assert "Traceback" not in done.stderr and not chats and not done.stdout.strip()
    store = await HistoryStore.open(isolated_home / "data" / "history.db")
    try:
        assert await store.list_recent() == []  # nothing was sent, so nothing is kept
    finally:
        await store.close()
