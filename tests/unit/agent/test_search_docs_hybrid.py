"""`[retrieval] embedding_model` with the offline model: the run's endpoint embeds, and "what do the docs say
about color" finds the Colours passage, which BM25 alone misses (no shared word or stem)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tests.unit.retrieval.test_docs_folders import two_folders
from tui_agent.agent.events import ToolCallUpdated
from tui_agent.config import RetrievalSettings
from tui_agent.retrieval import embedding_choice, scope

GUIDE = "# Backups\n\nThe backup job copies the database every night.\n\n# Colours\n\nThemes change the colours.\n"


async def test_the_offline_model_embeds_and_search_docs_ranks_hybrid(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "guide.md").write_text(GUIDE)
    monkeypatch.chdir(project)
    try:
        built = await make_agent(retrieval={"embedding_model": "offline-embed"})
        embedder = embedding_choice.current()
        assert embedder is not None and embedder.model == "offline-embed"
        assert embedder.base_url.startswith("http://127.0.0.1:")  # the offline model started for this run
        events = await collect(built.agent.send("What do the docs say about color?"))
        results = [e.call.result for e in events if isinstance(e, ToolCallUpdated) and e.call.name == "search_docs"]
        assert results and results[-1] is not None
        assert results[-1].startswith("[guide.md:5-7]\n# Colours"), results[-1]
        assert not built.notices or all("embedding" not in notice for notice in built.notices)
    finally:
        embedding_choice.use(None)


def test_choosing_the_embedder() -> None:
    off = RetrievalSettings()
    assert embedding_choice.choose(off, "http://x/v1", "key", anthropic=False) == (None, None)
    named = RetrievalSettings(embedding_model="e")
    embedder, notice = embedding_choice.choose(named, "http://x/v1", "key", anthropic=False)
    assert embedder is not None and (embedder.base_url, embedder.api_key, notice) == ("http://x/v1", "key", None)
    embedder, notice = embedding_choice.choose(named, "https://api.anthropic.com/v1", "key", anthropic=True)
    assert embedder is None and notice is not None and "embedding_base_url" in notice
    own = RetrievalSettings(embedding_model="e", embedding_base_url="http://e/v1", embedding_api_key_env="EMBED_KEY")
    embedder, _ = embedding_choice.choose(own, None, "run-key", anthropic=True, environ={"EMBED_KEY": "k2"})
    assert embedder is not None and (embedder.base_url, embedder.api_key) == ("http://e/v1", "k2")


async def test_search_docs_searches_the_config_folders_and_cites_them_whole(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, notes = two_folders(tmp_path)
    monkeypatch.chdir(project)
    try:
        built = await make_agent(retrieval={"folders": [str(notes), "nowhere"]})
        assert scope.docs_folders() == [notes.resolve(), (project / "nowhere").resolve()]
        assert any("nowhere is not a folder" in notice for notice in built.notices)
        events = await collect(built.agent.send("What do the docs say about backups?"))
        results = [e.call.result for e in events if isinstance(e, ToolCallUpdated) and e.call.name == "search_docs"]
        assert results and results[-1] is not None
        # A docs folder's file is cited by its absolute path: the citation opens whatever the working directory.
        assert results[-1].startswith(f"[{notes.resolve() / 'ops' / 'backups.md'}:1-3]\n# Backups"), results[-1]
    finally:
        scope.use([])
