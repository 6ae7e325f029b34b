"""The offline model and attachments: it says what it received, and a text-only scenario refuses images with 400."""

from __future__ import annotations

import openai
import pytest

from tui_agent.agent.content import user_content, without_images
from tui_agent.history.attachments import Attachment
from tui_agent.offline.server import BackgroundServer

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
PNG_FILE = Attachment("image", "a.png", "image/png", PNG)


def ask(server: BackgroundServer, content: object) -> str:
    client = openai.OpenAI(base_url=server.base_url, api_key="any-key", max_retries=0)
    reply = client.chat.completions.create(model="offline", messages=[{"role": "user", "content": content}])  # type: ignore[misc, list-item]
    return reply.choices[0].message.content or ""


def test_it_says_what_came_with_the_prompt() -> None:
    content = user_content(
        "What are these?", [Attachment.of_text("notes.md", "# hi"), Attachment("image", "shot.png", "image/png", PNG)]
    )
    with BackgroundServer() as server:
        answer = ask(server, content)
        assert answer.startswith("I received the file notes.md and an image (shot.png).\n\n## What are these\n")
        assert ask(server, content) == answer  # deterministic


def test_a_text_only_model_refuses_an_image_with_400_and_takes_text() -> None:
    with BackgroundServer({"text_only": True}) as server:
        with pytest.raises(openai.BadRequestError, match="does not support image inputs"):
            ask(server, user_content("look", [Attachment("image", "a.png", "image/png", PNG)]))
        assert "I received the file a.txt." in ask(server, user_content("read", [Attachment.of_text("a.txt", "x")]))
        left_out = without_images([{"role": "user", "content": user_content("look", [PNG_FILE])}])
        assert ask(server, left_out[0]["content"]).startswith("I received a note that the image a.png was left out.")
