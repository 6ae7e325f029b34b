"""Provides `chat_models` and `discover_model`: which of a server's models can chat, and which to use when
no model was named.

With a custom base URL and no `--model` (nor `model` in the config), the server is asked (`/v1/models`):
when it serves exactly one chat model, that one is used; otherwise nothing is guessed — the notice lists
the chat models it serves and says how to pick one, and a prompt sent meanwhile fails with that advice.
"Chat models" leaves out what a chat request cannot use: embeddings, image, speech and transcription
models, moderation, rerankers and realtime models. It runs while the engine is built, after the first frame.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tui_agent.llm.errors import LLMError

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.model_client import ModelClient

NOT_CHAT = re.compile(
    r"embed|dall-e|(?:^|[-_./:])(?:image|tts|whisper|moderation|transcribe|realtime|rerank)", re.IGNORECASE
)
SHOWN = 20
"""Models named in the notice at most (some servers list hundreds)."""


def chat_models(ids: Iterable[str]) -> list[str]:
    """The ids in `ids` that name chat models, in their order (see the module docstring)."""
    return [model for model in ids if not NOT_CHAT.search(model)]


async def discover_model(client: ModelClient) -> tuple[str | None, str | None]:
    """(the model to use, None) when the server serves exactly one chat model, else (None, what to do)."""
    try:
        served = chat_models(await client.list_models())
    except LLMError as error:
        return None, (
            f"No model was named, and {client.host} could not list its models: {error.user_message} "
            "Name one with --model (or `model` in the config file)."
        )
    if len(served) == 1:
        return served[0], None
    if not served:
        return None, f"No model was named, and {client.host} lists no chat model. Name one with --model."
    more = f" and {len(served) - SHOWN} more" if len(served) > SHOWN else ""
    return None, (
        f"No model was named, and {client.host} serves {len(served)} chat models: "
        f"{', '.join(served[:SHOWN])}{more}. Pick one with --model (or `model` in the config file), "
        "or with Switch model in the command palette (Ctrl+P)."
    )
