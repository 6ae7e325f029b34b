"""Files and images in the prompt, on the real stack: `@` picks a file (fuzzy, .gitignore respected), chips go
with the prompt, the offline model over HTTP says what it received, history keeps them (deduplicated), resume
shows them, a long paste is offered as an attachment, a text-only model's 400 is explained and the session goes on.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import sqlite3
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from tests.ui.helpers import chat, chat_ready, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tui_agent.agent.image_refusal import unsupported_sentence
from tui_agent.agent.resume import ResumeRequest
from tui_agent.ui.screens.attach_paste import AttachPasteScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.attachment_chips import AttachmentChips
from tui_agent.ui.widgets.file_picker import FilePicker
from tui_agent.ui.widgets.messages import ErrorNotice, UserMessage

SIZE = (140, 40)


def tiny_png() -> bytes:
    """A real 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0\xff\0\0")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git working tree with a few files, one ignored; the app runs in it."""
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "notes.md").write_text("# Notes\nThe launch is on Tuesday.\n")
    (root / "main.py").write_text("print('hi')\n")
    (root / "secret.log").write_text("ignored\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "screenshot.png").write_bytes(tiny_png())
    (root / "program.bin").write_bytes(b"\x7fELF\x00\x01\x02")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path)


@pytest.fixture
def text_only(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"text_only": True})


async def pick(pilot: Pilot[None], query: str) -> None:
    """Type `@`, filter with `query`, choose the first match."""
    await pilot.press("@")
    await wait_until(pilot, lambda: showing(pilot.app, FilePicker), "the picker open")
    picker = pilot.app.screen
    assert isinstance(picker, FilePicker)
    await wait_until(pilot, lambda: picker.options.option_count > 0, "files listed")
    for char in query:
        await pilot.press(char)
    await wait_until(pilot, lambda: picker.shown_query == query and picker.options.option_count > 0, "filtered")
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, FilePicker), "the picker closed")


async def send_with_notes(pilot: Pilot[None], prompt: str) -> None:
    """Attach docs/notes.md from the @ picker and send `prompt` with it."""
    await pick(pilot, "notes")
    await wait_until(pilot, lambda: chips(pilot) == ["docs/notes.md"], "the chip")
    await send(pilot, prompt)


def chips(pilot: Pilot[None]) -> list[str]:
    """The chips over the prompt (none before their strip is mounted, a moment after the first frame)."""
    return [ref.name for strip in chat(pilot).query(AttachmentChips) for ref in strip.refs]


def last_reply(pilot: Pilot[None]) -> str:
    replies = chat(pilot).chat_log.assistant_messages
    return replies[-1].shown_text() if replies else ""


def user_contents(stack: RealStack) -> list[Any]:
    return [m["content"] for m in stack.chat_requests()[-1]["messages"] if m["role"] == "user"]


async def test_at_opens_a_fuzzy_picker_that_respects_gitignore_and_the_file_goes_with_the_prompt(
    project: Path, stack: RealStack
) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pilot.press("@")
        await wait_until(pilot, lambda: showing(pilot.app, FilePicker), "the picker open")
        picker = pilot.app.screen
        assert isinstance(picker, FilePicker)
        await wait_until(pilot, lambda: picker.index.done.is_set() and picker.options.option_count == 5, "listed")
        listed = {str(picker.options.get_option_at_index(i).id) for i in range(picker.options.option_count)}
        assert "secret.log" not in listed and "docs/notes.md" in listed  # git's list: .gitignore holds
        await pilot.press("escape")  # closed: the @ is typed after all
        await wait_until(pilot, lambda: showing(app, ChatScreen) and chat(pilot).prompt_input.text == "@", "the @")
        chat(pilot).prompt_input.clear()
        await pick(pilot, "ntmd")  # fuzzy: n…t…m…d
        await wait_until(pilot, lambda: chips(pilot) == ["docs/notes.md"], "the chip")
        await send(pilot, "When is the launch?")
        assert "I received the file docs/notes.md." in last_reply(pilot)
        (sent,) = user_contents(stack)
        assert sent[0] == {"type": "text", "text": "When is the launch?"}
        assert "The launch is on Tuesday." in sent[1]["text"]
        assert chips(pilot) == []  # sent: the strip is empty again
        shown = chat(pilot).query(UserMessage).last()
        assert [ref.name for ref in shown.attachments] == ["docs/notes.md"]
        assert "[file docs/notes.md" in str(shown.render())


async def test_an_image_goes_as_an_image_part_and_a_binary_file_is_refused_by_name(
    project: Path, stack: RealStack
) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pick(pilot, "program.bin")
        await wait_until(pilot, lambda: any("program.bin is a binary file" in n.message for n in notifications(app)))
        assert chips(pilot) == []
        await pick(pilot, "screenshot")
        await wait_until(pilot, lambda: chips(pilot) == ["screenshot.png"], "the image chip")
        await send(pilot, "What is on it?")
        assert "I received an image (screenshot.png)." in last_reply(pilot)
        (sent,) = user_contents(stack)
        url = sent[-1]["image_url"]["url"]
        assert url == "data:image/png;base64," + base64.b64encode(tiny_png()).decode()


async def test_a_fifo_offered_to_the_prompt_is_refused_by_name(project: Path, stack: RealStack) -> None:
    os.mkfifo(project / "pipe")  # the picker lists regular files only; a path can still name one
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        try:
            screen = await chat_ready(pilot)
            screen.prompt_input.attach_path("pipe")
            said = "pipe is a FIFO (named pipe), not a regular file"
            await wait_until(pilot, lambda: any(said in n.message for n in notifications(app)), "the refusal")
            assert chips(pilot) == []
        finally:
            with contextlib.suppress(OSError):  # a reader stuck in open() gets its end of file: the app can exit
                os.close(os.open(project / "pipe", os.O_WRONLY | os.O_NONBLOCK))


async def test_a_pasted_image_path_attaches_the_image(project: Path, stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        screen.prompt_input.post_message(events.Paste(f"'{project / 'screenshot.png'}'"))
        # named as the working directory sees it, not by its absolute path (which the model would be told)
        await wait_until(pilot, lambda: chips(pilot) == ["screenshot.png"], lambda: f"the chip, shows {chips(pilot)}")
        assert screen.prompt_input.text == ""
        (project.parent / "outside.txt").write_text("beside the project\n")
        screen.prompt_input.attach_path(str(project.parent / "outside.txt"))  # outside it: its file name alone
        await wait_until(pilot, lambda: chips(pilot) == ["screenshot.png", "outside.txt"], lambda: str(chips(pilot)))
        await send(pilot, "What are these?")
        assert str(project.parent) not in json.dumps(stack.chat_requests()[-1]["messages"])


async def test_a_long_text_file_is_cut_with_a_note(project: Path, stack: RealStack) -> None:
    (project / "big.txt").write_text("word " * 100_000)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await pick(pilot, "big.txt")
        await wait_until(pilot, lambda: chips(pilot) == ["big.txt"], "the chip")
        await wait_until(pilot, lambda: any("cut at 256 KB of 500 KB" in n.message for n in notifications(app)))
        await send(pilot, "Summarise")
        (sent,) = user_contents(stack)
        assert sent[1]["text"].startswith("Attached file: big.txt (cut at 256 KB of 500 KB)")


async def test_a_long_paste_is_offered_as_an_attachment(project: Path, stack: RealStack) -> None:
    pasted = "log line\n" * 3000  # 27,000 characters: over the 20,000 default
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        screen.prompt_input.post_message(events.Paste(pasted))
        await wait_until(pilot, lambda: showing(app, AttachPasteScreen), "asked")
        await pilot.press("a")
        await wait_until(pilot, lambda: showing(app, ChatScreen), "answered")
        await wait_until(pilot, lambda: chips(pilot) == ["paste-1.txt"], "the paste as a chip")
        assert screen.prompt_input.text == ""
        await wait_until(pilot, lambda: any("attached as paste-1.txt" in n.message for n in notifications(app)))
        await send(pilot, "What went wrong?")
        (sent,) = user_contents(stack)
        assert pasted in sent[1]["text"]
        screen.prompt_input.post_message(events.Paste(pasted))  # "paste anyway": the box's own chip
        await wait_until(pilot, lambda: showing(app, AttachPasteScreen), "asked again")
        await pilot.press("p")
        await wait_until(pilot, lambda: showing(app, ChatScreen), "answered again")
        await wait_until(pilot, lambda: screen.prompt_input.text.startswith("[pasted"), "pasted as a chip")
        assert screen.prompt_input.prompt_text == pasted and chips(pilot) == []


async def test_stored_once_and_shown_again_on_resume(project: Path, stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        for prompt in ("First look", "Second look"):
            await send_with_notes(pilot, prompt)
        exported = await (await app.engine()).export_session("markdown")
    with sqlite3.connect(stack.db) as conn:
        assert conn.execute("SELECT count(*) FROM attachments").fetchone()[0] == 1  # two messages, one row
        assert conn.execute("SELECT count(*) FROM message_parts WHERE kind = 'file'").fetchone()[0] == 2
    assert exported is not None
    assert "### Attached file `docs/notes.md`" in exported[1] and "The launch is on Tuesday." in exported[1]
    app, _ = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(chat(pilot).query(UserMessage)) == 2, "history shown")
        for shown in chat(pilot).query(UserMessage):
            assert [ref.name for ref in shown.attachments] == ["docs/notes.md"]
        await send(pilot, "And now?")  # the model still gets the file with the earlier prompts
        contents = user_contents(stack)
        assert "The launch is on Tuesday." in contents[0][1]["text"]


async def test_a_model_that_refuses_images_gets_a_clear_message_and_the_session_goes_on(
    project: Path, text_only: RealStack
) -> None:
    app, _ = text_only.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await pick(pilot, "screenshot")
        await wait_until(pilot, lambda: chips(pilot) == ["screenshot.png"], "the image chip")
        screen.prompt_input.insert("What is on it?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and bool(screen.query(ErrorNotice)), "the failure shown")
        notice = str(screen.query(ErrorNotice).last().render())
        assert "does not support image inputs" in notice and "Ctrl+R" in notice
        assert unsupported_sentence().split(".")[0] in " ".join(notice.split())
        assert len(screen.query(UserMessage)) == 1  # the prompt stays
        await pilot.press("ctrl+r")  # asked again: without the image
        await wait_until(pilot, lambda: screen.idle and "offline model" in last_reply(pilot), "answered")
        (sent,) = user_contents(text_only)
        assert not any(part.get("type") == "image_url" for part in sent)
        assert text_only.server.requests[-1].outcome == "ok"


async def test_up_in_the_prompt_brings_back_an_earlier_prompt_with_its_files(project: Path, stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await send_with_notes(pilot, "When is the launch?")
        await send(pilot, "Thanks")
        screen.prompt_input.insert("a draft ")  # @ opens the picker after a space
        await pick(pilot, "screenshot")
        await wait_until(pilot, lambda: chips(pilot) == ["screenshot.png"], "the draft's chip")
        for keys, text, files in (
            (["up"], "Thanks", []),
            (["up"], "When is the launch?", ["docs/notes.md"]),
            (["down", "down"], "a draft ", ["screenshot.png"]),  # back to the draft, with its own chip
            (["up", "up"], "When is the launch?", ["docs/notes.md"]),
        ):
            await pilot.press(*keys)
            await wait_until(
                pilot,
                lambda text=text, files=files: screen.prompt_input.text == text and chips(pilot) == files,  # type: ignore[misc]
                lambda: f"{screen.prompt_input.text!r} with {chips(pilot)}",
            )
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and len(screen.query(UserMessage)) == 3, "sent again")
        sent = user_contents(stack)[-1]
        assert sent[0] == {"type": "text", "text": "When is the launch?"}
        assert "The launch is on Tuesday." in sent[1]["text"]


async def test_editing_a_prompt_puts_its_files_back_as_chips_and_sends_what_the_chips_then_say(
    project: Path, stack: RealStack
) -> None:
    from tests.ui.test_branching import select, start_editing

    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await send_with_notes(pilot, "When is the launch?")
        await select(pilot, "When is the launch?")
        await start_editing(pilot)
        await wait_until(pilot, lambda: chips(pilot) == ["docs/notes.md"], "the edited prompt's file as a chip")
        screen.prompt_input.load_text("When exactly, and what is on the image?")  # the cursor at its start
        await pick(pilot, "screenshot")
        await wait_until(pilot, lambda: chips(pilot) == ["docs/notes.md", "screenshot.png"], "one more")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.idle and len(screen.chat_log.assistant_messages) == 1, "answered")
        sent = user_contents(stack)[-1]
        assert sent[0] == {"type": "text", "text": "When exactly, and what is on the image?"}
        assert "The launch is on Tuesday." in sent[1]["text"] and sent[-1]["type"] == "image_url"
        shown = screen.query(UserMessage).last()
        assert [ref.name for ref in shown.attachments] == ["docs/notes.md", "screenshot.png"]
        assert chips(pilot) == []


async def test_up_in_a_later_run_brings_back_a_prompt_with_its_files_read_from_history(
    project: Path, stack: RealStack
) -> None:
    with (project / "docs" / "notes.md").open("a") as notes:
        notes.write("key: sk-test-0123456789abcdefghijklmnop\n")  # history keeps it redacted, under that hash
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_with_notes(pilot, "When is the launch?")
        await send(pilot, "Thanks")
    (project / "docs" / "notes.md").write_text("Moved to Friday.\n")  # what was sent is what comes back
    app, _ = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(chat(pilot).query(UserMessage)) == 2, "the resumed session")
        screen = chat(pilot)
        await pilot.press("up")
        await wait_until(pilot, lambda: screen.prompt_input.text == "Thanks", "the newest prompt recalled")
        assert chips(pilot) == []
        await pilot.press("up", "enter")  # Enter may come before the file is read back: it waits for it
        await wait_until(pilot, lambda: screen.idle and len(screen.query(UserMessage)) == 3, "sent again")
        sent = user_contents(stack)[-1]
        assert sent[0] == {"type": "text", "text": "When is the launch?"}
        assert "The launch is on Tuesday." in sent[1]["text"] and "key: [redacted]" in sent[1]["text"]
        assert [ref.name for ref in screen.query(UserMessage).last().attachments] == ["docs/notes.md"]


async def test_a_recalled_prompt_whose_file_history_no_longer_holds_says_so(project: Path, stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send_with_notes(pilot, "When is the launch?")
    with sqlite3.connect(stack.db) as conn:
        conn.execute("DELETE FROM attachments")  # as when the session that stored it was deleted
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await pilot.press("up")
        note = "Not attached: docs/notes.md (no longer in history)."
        await wait_until(pilot, lambda: note in [n.message for n in notifications(pilot.app)], "the note")
        assert screen.prompt_input.text == "When is the launch?" and chips(pilot) == []
        await pilot.press("enter")  # the text alone, as the note says
        await wait_until(pilot, lambda: screen.idle and len(screen.query(UserMessage)) == 1, "sent")
        assert user_contents(stack)[-1] == "When is the launch?"


async def test_a_long_paste_with_a_terminals_line_ends_is_counted_and_sent_in_lines(
    project: Path, stack: RealStack
) -> None:
    pasted = "log line\r" * 3000  # xterm, VTE and tmux paste line ends as \r
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        screen.prompt_input.post_message(events.Paste(pasted))
        await wait_until(pilot, lambda: showing(app, AttachPasteScreen), "asked")
        assert "(27 KB, 3,000 lines)" in " ".join(str(s.render()) for s in app.screen.query(Static))
        await pilot.press("a")
        await wait_until(pilot, lambda: showing(app, ChatScreen) and chips(pilot) == ["paste-1.txt"], "the chip")
        assert any("(27 KB, 3,000 lines) is attached" in n.message for n in notifications(app))
        await send(pilot, "What went wrong?")
        (sent,) = user_contents(stack)
        assert "log line\n" * 3000 in sent[1]["text"]
