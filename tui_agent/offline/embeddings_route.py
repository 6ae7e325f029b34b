"""Provides the offline server's `POST /v1/embeddings` (OpenAI's embeddings API) and `vector`, its deterministic
embedding of a text.

No model runs: a text's vector is a hashed bag of its words and of their character trigrams, L2-normalised. The
same text always gets the same vector (in every process: the hash is blake2b, not Python's salted `hash`); texts
sharing words are closer (cosine) than texts sharing none, and words sharing trigrams ("color" and "colours")
are somewhat close, so a hybrid ranking finds a passage that BM25's exact words miss and tests can know the
answer. Each input counts as its words in `usage`. `encoding_format: "base64"` (the openai client's default)
gets little-endian float32 bytes, as OpenAI sends them; `dimensions` picks the length (default `DIMENSIONS`).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import math
import re
import sys
from array import array
from typing import TYPE_CHECKING, Any

from tui_agent.offline import frames
from tui_agent.offline.http import Request, send_json

if TYPE_CHECKING:
    from tui_agent.offline.server import OfflineServer

DIMENSIONS = 256
"""A vector's length unless the request asks for another."""
MAX_DIMENSIONS = 4096
_WORD = re.compile(r"\w+")
_TRIGRAM_WEIGHT = 0.4
"""A word counts fully; each of its trigrams this much (similar spellings are close, not equal)."""


def vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """The offline model's embedding of `text`: unit length, or all zeros for a text without words."""
    values = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        _add(values, "w:" + word, 1.0)
        padded = f"#{word}#"
        for start in range(len(padded) - 2):
            _add(values, "t:" + padded[start : start + 3], _TRIGRAM_WEIGHT)
    norm = math.sqrt(sum(value * value for value in values))
    return [value / norm for value in values] if norm else values


def _add(values: list[float], feature: str, weight: float) -> None:
    digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
    number = int.from_bytes(digest, "little")
    values[number % len(values)] += weight if number >> 63 else -weight  # a sign per feature: fewer collisions


def problem(body: dict[str, Any]) -> str | None:
    """What is wrong with an embeddings request, in OpenAI's words; None when it can be answered."""
    texts = body.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not texts:
        return "'input' must be a string or a non-empty array of strings."
    if not all(isinstance(text, str) for text in texts):
        return "The offline model embeds text only: 'input' must be a string or an array of strings."
    if not isinstance(body.get("model"), str):
        return "'model' is required."
    dimensions = body.get("dimensions", DIMENSIONS)
    if not isinstance(dimensions, int) or isinstance(dimensions, bool) or not 1 <= dimensions <= MAX_DIMENSIONS:
        return f"'dimensions' must be an integer from 1 to {MAX_DIMENSIONS}."
    if body.get("encoding_format", "float") not in ("float", "base64"):
        return "'encoding_format' must be 'float' or 'base64'."
    return None


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The response to a request `problem` accepted."""
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    dimensions = body.get("dimensions", DIMENSIONS)
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        values = vector(text, dimensions)
        data.append({"object": "embedding", "index": index, "embedding": _base64(values) if as_base64 else values})
    tokens = sum(len(text.split()) for text in texts)
    return {
        "object": "list",
        "data": data,
        "model": body["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _base64(values: list[float]) -> str:
    packed = array("f", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


async def serve_embeddings(server: OfflineServer, request: Request, writer: asyncio.StreamWriter) -> bool:
    """Answer one embeddings request (recorded in `server.requests`); True: the connection goes on."""
    if (received := await server.receive(request, writer, frames.error_body, "X-Request-Id")) is None:
        return True
    if (found := problem(received.body)) is not None:
        return await server.refuse(writer, received, 400, frames.error_body(400, found))
    received.record.outcome = "ok"
    await send_json(writer, 200, answer(received.body), received.headers)
    return True
