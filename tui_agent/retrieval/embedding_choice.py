"""Provides the run's embedder: which endpoint and model give `search_docs` its vectors, from `[retrieval]`.

`choose` decides it from the settings and the run's endpoint once that is open (the offline model's port is
known only then); the composition root (`services.build_agent`) hands the choice to `use`. The `search_docs`
plugin, which is loaded by file and given nothing but its arguments, reads it back with `current`: one run
per process, so one choice per process (a later build replaces it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from tui_agent.config import RetrievalSettings
from tui_agent.retrieval.embedder import Embedder

_chosen: list[Embedder | None] = [None]


def choose(
    settings: RetrievalSettings,
    base_url: str | None,
    api_key: str | None,
    anthropic: bool,
    environ: Mapping[str, str] | None = None,
) -> tuple[Embedder | None, str | None]:
    """The embedder `settings` ask for on the run's endpoint (`base_url`, `api_key`), and a notice when it
    cannot be had (BM25 then answers alone). `anthropic`: the run's endpoint speaks Anthropic's API, which has
    no embeddings route."""
    if settings.embedding_model is None:
        return None, None
    url = settings.embedding_base_url or base_url
    if url is None or (anthropic and settings.embedding_base_url is None):
        return None, (
            f"[retrieval] embedding_model = {settings.embedding_model!r} needs an endpoint with /v1/embeddings: "
            "set [retrieval] embedding_base_url. search_docs ranks with BM25 alone."
        )
    key = api_key
    if settings.embedding_api_key_env is not None:
        key = (os.environ if environ is None else environ).get(settings.embedding_api_key_env)
    return Embedder(url, settings.embedding_model, key), None


def use(embedder: Embedder | None) -> None:
    """Make `embedder` the one `search_docs` uses in this process (None: BM25 alone)."""
    _chosen[0] = embedder


def current() -> Embedder | None:
    """The embedder `use` was last given."""
    return _chosen[0]
