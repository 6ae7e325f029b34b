"""An image a tool returns: kept with its call, stored once, loaded back, exported, and sent to the model after
the tool's text when the model takes images (the stand-in line alone when it does not) — a real agent, the
offline model over HTTP (strict: what strict chat templates accept), a real SQLite file."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.content import TOOL_IMAGES_HEADING
from tui_agent.agent.conversation import NO_REPLY, Conversation
from tui_agent.agent.image_refusal import INVALID_WHY
from tui_agent.history.attachments import Attachment
from tui_agent.history.export import to_json, to_markdown
from tui_agent.offline.behaviour import default_reply
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import Role, ToolStatus
from tui_agent.tool_call import ToolCall

PLUGINS = Path(__file__).parent / "image_plugins"
SHOOT: list[dict[str, Any]] = [{"tool_calls": [{"name": "screenshot", "arguments": {}}]}, {"text": "A red dot."}]
SHOOTS = {"replies": SHOOT}
STAND_IN = f"the screen\n[image: image/png, {len(tiny_png())} bytes]"


def sent(server: BackgroundServer) -> list[list[dict[str, Any]]]:
    """The messages of every request the offline model got, in order (the system prompt left out)."""
    return [[m for m in r.body["messages"] if m["role"] != "system"] for r in server.requests if r.body]


def image_bytes(part: dict[str, Any]) -> bytes:
    url = str(part["image_url"]["url"])
    assert url.startswith("data:image/png;base64,")
    return base64.b64decode(url.split(",", 1)[1])


@pytest.mark.parametrize("offline_server", [{"replies": SHOOT * 2}], indirect=True)
async def test_a_tools_image_follows_its_text_stored_once_and_again_after_a_resume(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await collect(built.agent.send("Look at the screen"))
    after_tool = sent(offline_server)[1]
    assert [m["role"] for m in after_tool] == ["user", "assistant", "tool", "assistant", "user"]
    assert after_tool[2]["content"] == STAND_IN  # the tool message is text only
    assert after_tool[3]["content"] == NO_REPLY  # strict templates: the assistant speaks after tool results
    heading, source, label, image = after_tool[4]["content"]
    assert heading["text"] == TOOL_IMAGES_HEADING and source["text"].startswith("From screenshot (call ")
    assert label["text"] == "Attached image: screen.png" and image_bytes(image) == tiny_png()

    await collect(built.agent.send("Once more"))  # the same bytes again: one stored row
    session_id = built.agent.current_session_id
    assert session_id is not None
    await built.close()
    with sqlite3.connect(tmp_path / "history.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM attachments").fetchone() == (1,)

    again = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await again.agent.resume(session_id)
    stored = [m for m in await again.agent.load_history(limit=100) if m.role is Role.ASSISTANT and m.tool_calls]
    refs = [ref for m in stored for call in m.tool_calls for ref in call.attachments]
    assert [(ref.kind, ref.name, ref.size) for ref in refs] == [("image", "screen.png", len(tiny_png()))] * 2
    assert all(not m.part_texts for m in stored)  # an image part is not a streamed part's text
    await collect(again.agent.send("And now?"))
    resumed = sent(offline_server)[-1]
    images = [p for m in resumed if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    assert [image_bytes(p) for p in images] == [tiny_png()] * 2

    session = await again.agent.store.get_session(session_id)
    assert session is not None
    markdown = to_markdown(session, stored)
    assert f"Returned image `screen.png`: image/png, {len(tiny_png())} bytes, sha256 `{refs[0].hash}`" in markdown
    assert "base64" not in markdown and "data:image" not in markdown
    exported = json.loads(to_json(session, stored))
    (first_call,) = exported["messages"][0]["tool_calls"]
    assert first_call["attachments"] == [
        {
            "kind": "image",
            "name": "screen.png",
            "mime": "image/png",
            "size": len(tiny_png()),
            "hash": refs[0].hash,
            "note": "",
            "left_out": "",
        }
    ]


@pytest.mark.parametrize("offline_server", [{**SHOOTS, "text_only": True}], indirect=True)
async def test_a_model_that_takes_no_images_gets_the_stand_in(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await collect(built.agent.send("Look at the screen"))  # the request with the image: 400, images refused
    await collect(built.agent.send("What did it show?"))
    last = sent(offline_server)[-1]
    assert not any(isinstance(m["content"], list) for m in last)  # no image part, no image message
    assert [m["content"] for m in last if m["role"] == "tool"] == [STAND_IN]


@pytest.mark.parametrize(
    "offline_server",
    [
        {
            "replies": [{"text": "Seen."}, {"tool_calls": [{"name": "broken_screenshot", "arguments": {}}]}],
            "check_images": True,
        }
    ],
    indirect=True,
)
async def test_a_broken_image_a_tool_returned_is_left_out_and_the_prompts_image_stays(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await collect(built.agent.send("Here is mine", [Attachment("image", "mine.png", "image/png", tiny_png())]))
    await collect(built.agent.send("Now take one"))  # the server says the tool's image is invalid
    await collect(built.agent.send("Go on"))
    last = sent(offline_server)[-1]
    parts = [p for m in last if isinstance(m["content"], list) for p in m["content"]]
    assert [image_bytes(p) for p in parts if p["type"] == "image_url"] == [tiny_png()]  # the prompt's, still sent
    assert any(p["type"] == "text" and p["text"].startswith("(The image is left out") for p in parts)
    stored = await built.agent.load_history(limit=100)
    (prompt, *_) = [m for m in stored if m.role is Role.USER]
    assert [ref.left_out for ref in prompt.attachments] == [""]
    (call,) = [call for m in stored for call in m.tool_calls]
    assert [ref.left_out for ref in call.attachments] == [INVALID_WHY]  # kept so: a resumed session leaves it out


def test_the_offline_model_answers_from_the_results_and_says_it_got_the_image() -> None:
    shot = Attachment.of_bytes("screen.png", tiny_png())
    call = ToolCall("c1", "screenshot", "{}", {}, "m1", ToolStatus.DONE, result=STAND_IN)
    call = call.replace(attachments=(shot.ref,), attachment_data={shot.hash: shot.data})
    conversation = Conversation()
    conversation.add_user("Look at the screen")
    conversation.add_assistant("", [call])
    reply = default_reply({"messages": conversation.request()})
    assert reply.text.startswith("I received an image (screen.png).") and "the screen" in reply.text
