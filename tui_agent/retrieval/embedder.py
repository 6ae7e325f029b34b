"""Provides `Embedder`: texts to unit-length vectors through an endpoint's `POST /embeddings` (OpenAI's API).

Plain `urllib` rather than the openai client: a search runs in a tool's thread, one request per batch, and the
client's import (~100 ms) would be most of a small search's time. Every failure — the endpoint down, a
status, a body that is not the API's shape — is one `EmbeddingError` with a message a user can act on.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

BATCH = 64
"""Texts sent in one request (OpenAI takes up to 2048; local servers often far fewer)."""
MAX_TEXT_CHARS = 8000
"""A longer text is cut before it is sent: embedding models take a few thousand tokens at most."""


class EmbeddingError(Exception):
    """The endpoint could not embed the texts; the message says why."""


@dataclass(frozen=True)
class Embedder:
    """One embedding model at one endpoint (`base_url` ends in `/v1`, as the chat endpoint's does)."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 30.0

    def embed(self, texts: Sequence[str]) -> list[array[float]]:
        """The vectors of `texts`, in order, each of unit length (float32)."""
        vectors: list[array[float]] = []
        for start in range(0, len(texts), BATCH):
            batch = [text[:MAX_TEXT_CHARS] for text in texts[start : start + BATCH]]
            vectors += self._request(batch)
        return vectors

    def _request(self, batch: list[str]) -> list[array[float]]:
        url = self.base_url.rstrip("/") + "/embeddings"
        body = json.dumps({"model": self.model, "input": batch, "encoding_format": "float"}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise EmbeddingError(f"{url} answered {error.code}: {_message(error)}") from error
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise EmbeddingError(f"{url} could not be reached: {reason}") from error
        except ValueError as error:
            raise EmbeddingError(f"{url} did not answer JSON") from error
        return _vectors(answer, len(batch), url)


def _message(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read())["error"]["message"])
    except (ValueError, KeyError, TypeError, OSError):
        return str(error.reason)


def _vectors(answer: Any, count: int, url: str) -> list[array[float]]:
    """The answer's vectors in input order, normalised; `EmbeddingError` unless it has one per text."""
    try:
        rows = sorted(answer["data"], key=lambda row: int(row["index"]))
        vectors = [array("f", (float(value) for value in row["embedding"])) for row in rows]
    except (KeyError, TypeError, ValueError) as error:
        raise EmbeddingError(f"{url} answered something other than embeddings") from error
    if len(vectors) != count or len({len(vector) for vector in vectors}) > 1 or not vectors[0]:
        raise EmbeddingError(f"{url} answered {len(vectors)} vectors of unequal or zero length for {count} texts")
    return [_unit(vector) for vector in vectors]


def _unit(vector: array[float]) -> array[float]:
    norm = math.sqrt(sum(value * value for value in vector))
    return array("f", (value / norm for value in vector)) if norm else vector
