"""The offline model's `POST /v1/embeddings` over real HTTP: deterministic, closer for shared words, OpenAI's shape."""

from __future__ import annotations

import base64
import math
from array import array
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tui_agent.offline.embeddings_route import DIMENSIONS, answer, vector
from tui_agent.offline.server import BackgroundServer


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    with BackgroundServer() as running:
        yield running


def _cosine(first: list[float], second: list[float]) -> float:
    return sum(a * b for a, b in zip(first, second, strict=True))


def test_embeddings_are_deterministic_and_closer_for_shared_words(server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=server.base_url, api_key="offline")
    texts = ["the backup job copies the database", "restore the database from a backup", "themes change colours"]
    # The openai client asks for base64 by default: the same vectors must come back as with "float".
    packed = client.embeddings.create(model="offline-embed", input=texts)
    plain = client.embeddings.create(model="offline-embed", input=texts, encoding_format="float")
    first, second, third = (row.embedding for row in plain.data)
    assert [row.index for row in plain.data] == [0, 1, 2]
    assert len(first) == DIMENSIONS
    assert math.isclose(math.sqrt(sum(value * value for value in first)), 1.0, rel_tol=1e-6)
    for row_packed, row_plain in zip(packed.data, plain.data, strict=True):
        assert row_packed.embedding == pytest.approx(row_plain.embedding, abs=1e-6)
    assert first == vector(texts[0])  # same text, same vector, in this process and over HTTP
    assert _cosine(first, second) > _cosine(first, third)
    # Spellings sharing trigrams are closer than unrelated words: what lets a hybrid rank find "colours" for "color".
    assert _cosine(vector("color"), vector("colours")) > _cosine(vector("color"), vector("database")) + 0.2
    assert plain.usage.prompt_tokens == sum(len(text.split()) for text in texts)
    short = client.embeddings.create(model="m", input="one text", dimensions=8, encoding_format="float")
    assert len(short.data[0].embedding) == 8
    assert vector("") == [0.0] * DIMENSIONS


def test_bad_embedding_requests_get_openai_shaped_400s(server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=server.base_url, api_key="offline", max_retries=0)
    bad_requests: list[dict[str, Any]] = [{"input": []}, {"input": [[1, 2, 3]]}, {"input": "x", "dimensions": 0}]
    for bad in bad_requests:
        with pytest.raises(openai.BadRequestError) as raised:
            client.embeddings.create(model="m", **bad)
        assert "input" in str(raised.value) or "dimensions" in str(raised.value)
    assert server.requests[-1].outcome == "status 400"


def test_base64_is_little_endian_float32() -> None:
    encoded = answer({"model": "m", "input": "words here", "encoding_format": "base64"})["data"][0]["embedding"]
    decoded = array("f")
    decoded.frombytes(base64.b64decode(encoded))
    assert list(decoded) == pytest.approx(vector("words here"), abs=1e-6)
