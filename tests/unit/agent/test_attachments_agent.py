"""The agent with files and images: what the model is sent, live, after an edit, after a failure, on resume."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.conversation import strict_history
from tui_agent.agent.events import TurnFinished, TurnStarted
from tui_agent.agent.image_refusal import refusal_of
from tui_agent.history.attachments import Attachment
from tui_agent.offline.server import BackgroundServer

NOTES = Attachment.of_text("notes.md", "the launch is on Tuesday")
PNG = Attachment("image", "shot.png", "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 8)


def user_contents(server: BackgroundServer) -> list[Any]:
    body = [r.body for r in server.requests if r.body][-1]
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


async def test_an_edited_prompt_keeps_its_files(make_agent: MakeAgent, offline_server: BackgroundServer) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("When?", [NOTES]))
    started = events[0]
    assert isinstance(started, TurnStarted)
    await collect(built.agent.edit(started.user_message_id, "When exactly?"))
    (sent,) = user_contents(offline_server)
    assert sent[0] == {"type": "text", "text": "When exactly?"} and "the launch is on Tuesday" in sent[1]["text"]
    (first, second) = (await built.agent.siblings(started.user_message_id)).messages
    assert [ref.name for ref in second.attachments] == ["notes.md"] == [ref.name for ref in first.attachments]


@pytest.mark.parametrize(
    "offline_server",
    [{"replies": [{"status": 500, "retry_after": 0.01}], "then": "repeat_last", "strict": True}],
    indirect=True,
)
async def test_after_a_failed_reply_both_prompts_go_together_with_their_parts(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await collect(built.agent.send("Look at this", [PNG]))
    await collect(built.agent.send("And this", [NOTES]))  # one user message: the first was never answered
    (sent,) = user_contents(offline_server)
    kinds = [part["type"] for part in sent]
    assert kinds == ["text", "text", "image_url", "text", "text", "text"]
    assert sent[0]["text"] == "Look at this" and sent[4]["text"] == "And this"


async def test_a_resumed_session_sends_its_files_and_images_again(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    first = await make_agent(offline_server.base_url)
    await collect(first.agent.send("Here", [NOTES, PNG]))
    session_id = first.agent.current_session_id
    assert session_id is not None
    await first.close()
    again = await make_agent(offline_server.base_url)
    await again.agent.resume(session_id)
    await collect(again.agent.send("Still there?"))
    earlier, _ = user_contents(offline_server)
    assert [part["type"] for part in earlier] == ["text", "text", "text", "image_url"]
    assert earlier[3]["image_url"]["url"].startswith("data:image/png;base64,")


def test_joining_text_and_parts_keeps_every_part() -> None:
    parts = [{"type": "text", "text": "b"}, {"type": "image_url", "image_url": {"url": "data:,"}}]
    joined = strict_history([{"role": "user", "content": "a"}, {"role": "user", "content": parts}])
    between = {"type": "text", "text": "\n\n"}
    assert joined == [{"role": "user", "content": [{"type": "text", "text": "a"}, between, *parts]}]


@pytest.mark.parametrize(
    ("message", "refusal"),
    [
        (  # OpenAI, a file it cannot decode
            "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one "
            "the following formats: ['png', 'jpeg', 'gif', 'webp'].",
            "invalid",
        ),
        ("The image data you provided does not represent a valid image.", "invalid"),  # OpenAI
        ("Invalid image data", "invalid"),
        ("Failed to load image or audio file", "invalid"),  # llama.cpp (mtmd)
        ("failed to decode image bytes", "invalid"),  # llama.cpp
        ("Invalid content type. image_url is only supported by certain models.", "unsupported"),  # OpenAI
        (
            "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
            "unsupported",
        ),
        ("This model does not support image inputs", "unsupported"),
        ("context too long", "unknown"),
    ],
)
def test_an_image_400_says_whether_the_image_or_the_model_is_the_problem(message: str, refusal: str) -> None:
    assert refusal_of(message) == refusal


@pytest.mark.parametrize("offline_server", [{"check_images": True}], indirect=True)
async def test_an_invalid_image_is_left_out_live_and_in_history(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    events = await collect(built.agent.send("What is it?", [PNG]))  # a PNG's start only: the server refuses it
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and "The server says the image is invalid" in (finished.error or "")
    await collect(built.agent.send("And now?"))
    note = {"type": "text", "text": "(The image is left out: the server said this image is invalid.)"}
    sent = user_contents(offline_server)
    assert note in sent[0] and not any(part.get("type") == "image_url" for part in sent[0])
    assert offline_server.requests[-1].outcome == "ok"
    (session,) = await built.agent.store.list_recent()
    (prompt, *_) = await built.agent.store.load_tail(session.id, 10)
    assert [ref.left_out for ref in prompt.attachments] == ["the server said this image is invalid"]
