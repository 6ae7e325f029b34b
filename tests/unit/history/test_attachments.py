"""Attachments in history: read from disk (text, cut, image by magic bytes, binary refused), stored once by hash
with a prompt's parts, loaded back with its messages (peek and fork included), redacted, exported."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.ui.test_attachments import tiny_png
from tui_agent.history.attachments import AttachmentError, load_attachment, sent_name
from tui_agent.history.peek import peek_session
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus


def test_a_text_file_an_image_and_a_cut_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("é" * 10)
    (tmp_path / "shot.jpg").write_bytes(tiny_png())  # the bytes decide, not the name
    text = load_attachment(tmp_path / "a.md", name="a.md")
    assert (text.kind, text.mime, text.text, text.note) == ("file", "text/plain", "é" * 10, "")
    image = load_attachment(tmp_path / "shot.jpg")
    assert (image.kind, image.mime) == ("image", "image/png")
    cut = load_attachment(tmp_path / "a.md", max_bytes=5)
    assert cut.text == "éé" and cut.note == "cut at 4 B of 20 B"  # never inside a character


@pytest.mark.parametrize(
    ("content", "said"),
    [(b"\x7fELF\x00\x00", "a.bin is a binary file"), (b"\xff\xfe\xfa" * 20, "a.bin is a binary file")],
)
def test_a_binary_file_is_refused_by_name(tmp_path: Path, content: bytes, said: str) -> None:
    (tmp_path / "a.bin").write_bytes(content)
    with pytest.raises(AttachmentError, match=said):
        load_attachment(tmp_path / "a.bin", name="a.bin")


def test_a_missing_file_or_a_folder_is_said(tmp_path: Path) -> None:
    with pytest.raises(AttachmentError, match="nope.txt could not be read"):
        load_attachment(tmp_path / "nope.txt", name="nope.txt")
    with pytest.raises(AttachmentError, match="is a folder"):
        load_attachment(tmp_path)


def test_a_file_is_named_relative_to_the_working_directory_never_by_its_absolute_path(tmp_path: Path) -> None:
    here = tmp_path / "project"
    assert sent_name(here / "src" / "main.py", here) == "src/main.py"  # a pasted or dropped absolute path
    assert sent_name(tmp_path / "elsewhere" / "shot.png", here) == "shot.png"  # outside it: the file name
    assert sent_name(Path("notes/plan.md"), here) == "notes/plan.md"  # typed relative: as typed
    assert sent_name(Path("../secret/plan.md"), here) == "plan.md"
    assert sent_name(Path("~/shot.png"), here) == "shot.png"


def test_a_device_is_refused_as_not_a_regular_file() -> None:
    with pytest.raises(AttachmentError, match="/dev/null is a character device, not a regular file"):
        load_attachment(Path("/dev/null"))


async def test_stored_once_for_two_messages_and_loaded_back(store: HistoryStore, db_path: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("the plan\n")
    notes = load_attachment(tmp_path / "notes.md", name="notes.md")
    session = await store.create_session("files")
    first, reply = await store.begin_turn(session.id, "look", attachments=[notes])
    await store.finish_message(reply.id, MessageStatus.COMPLETE, "ok")
    again = [notes, load_attachment(tmp_path / "notes.md", name="n2")]
    _, reply = await store.begin_turn(session.id, "again", attachments=again)
    await store.finish_message(reply.id, MessageStatus.COMPLETE, "ok")
    await store.flush()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT hash, mime, size FROM attachments").fetchall() == [(notes.hash, "text/plain", 9)]
        parts = conn.execute("SELECT kind, content FROM message_parts ORDER BY seq").fetchall()
    assert [kind for kind, _ in parts] == ["file"] * 3
    assert json.loads(parts[0][1]) == {"name": "notes.md", "mime": "text/plain", "size": 9, "hash": notes.hash}
    loaded = await store.load_tail(session.id, 10)
    assert [[ref.name for ref in m.attachments] for m in loaded] == [["notes.md"], [], ["notes.md", "n2"], []]
    assert await store.attachment_data([notes.hash]) == {notes.hash: b"the plan\n"}
    peeked = peek_session(db_path, session.id, 10)  # the first frame of a resume shows the chips too
    assert peeked is not None and [ref.name for ref in peeked.messages[0].attachments] == ["notes.md"]
    fork = await store.fork_session(session.id, first.id)
    assert [ref.name for ref in (await store.load_tail(fork.id, 10))[0].attachments] == ["notes.md"]


async def test_a_text_file_is_redacted_like_the_prompt_and_exported(store: HistoryStore, tmp_path: Path) -> None:
    key = "sk-proj-" + "a1B2c3D4e5" * 4
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={key}\n")
    session = await store.create_session("secrets")
    await store.begin_turn(session.id, "why does this fail?", attachments=[load_attachment(tmp_path / ".env")])
    (message, _) = await store.load_tail(session.id, 10)
    (ref,) = message.attachments
    stored = (await store.attachment_data([ref.hash]))[ref.hash].decode()
    assert key not in stored and "OPENAI_API_KEY=" in stored
    exported = await store.export_markdown(session.id)
    assert "### Attached file `.env`" in exported and "OPENAI_API_KEY=" in exported  # named, not by its path
    assert key not in exported
    as_json = json.loads(await store.export_json(session.id))
    (attached,) = as_json["messages"][0]["attachments"]
    assert attached["hash"] == ref.hash and attached["mime"] == "text/plain" and "OPENAI_API_KEY=" in attached["text"]
