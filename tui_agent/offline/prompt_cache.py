"""Provides `PromptCache`: the offline model's stand-in for a provider's prompt cache, so the cached-input
price can be tested end to end.

Like OpenAI's automatic caching, the leading messages of a request that an earlier request began with too are
"served from the cache": their tokens (words, as the offline model counts them) are reported as
`prompt_tokens_details.cached_tokens`. A new conversation's first request has nothing cached; its second
repeats the first's messages and has them cached. Deterministic, and kept as hashes of the prefixes seen.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any


class PromptCache:
    """Remembers the message prefixes requests began with; `cached` says how many tokens of a request's
    prompt an earlier request already sent (and remembers this one's prefixes)."""

    def __init__(self, count: Callable[[Any], int]) -> None:
        self._count = count
        """Tokens of one message's content (the server's own count)."""
        self._seen: set[str] = set()

    def cached(self, messages: Any) -> int:
        """Tokens in the longest run of leading messages an earlier request also began with."""
        if not isinstance(messages, list):
            return 0
        digest, cached, hit = hashlib.sha256(), 0, True
        for message in messages:
            digest.update(json.dumps(message, sort_keys=True, default=str).encode())
            key = digest.hexdigest()
            if hit and key in self._seen:
                cached += self._count(message.get("content") if isinstance(message, dict) else None)
            else:
                hit = False
                self._seen.add(key)
        return cached
