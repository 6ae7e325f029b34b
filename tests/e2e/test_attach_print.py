"""`tui-agent -p PROMPT --attach FILE`: files and images go with the prompt, a binary file is refused by name,
and a text-only model's 400 is explained."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.test_print import run
from tests.ui.test_attachments import tiny_png
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer


async def test_attached_files_and_images_reach_the_model_and_history(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n")
    (tmp_path / "shot.png").write_bytes(tiny_png())
    attach = ["--attach", str(tmp_path / "notes.md"), "--attach", str(tmp_path / "shot.png")]
    done = run(["--offline", "-p", "What are these?", *attach], isolated_home)
    assert done.returncode == 0, done.stderr
    # named by their file names (outside the working directory): the model is never told an absolute path
    assert done.stdout.startswith("I received the file notes.md and an image (shot.png).")
    store = await HistoryStore.open(isolated_home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
        prompt, _ = await store.load_tail(session.id, 10)
    finally:
        await store.close()
    assert [(ref.kind, ref.mime) for ref in prompt.attachments] == [("file", "text/plain"), ("image", "image/png")]


def test_a_binary_file_is_refused_by_name(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "tool.bin").write_bytes(b"\x7fELF\x00\x00")
    done = run(["--offline", "-p", "hi", "--attach", str(tmp_path / "tool.bin")], isolated_home)
    assert done.returncode == 2
    assert f"tui-agent: --attach: {tmp_path / 'tool.bin'} is a binary file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_fifo_is_refused_at_once_and_nothing_is_sent(isolated_home: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")  # nobody ever writes to it: reading it would wait forever
    with BackgroundServer() as server:
        done = run(["--base-url", server.base_url, "-p", "hi", "--attach", str(tmp_path / "pipe")], isolated_home)
        assert server.requests == []
    assert done.returncode == 2
    assert f"tui-agent: --attach: {tmp_path / 'pipe'} is a FIFO (named pipe), not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_text_only_model_says_it_refused_the_image(isolated_home: Path, tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(tiny_png())
    with BackgroundServer({"text_only": True}) as server:
        done = run(["--base-url", server.base_url, "-p", "hi", "--attach", str(tmp_path / "shot.png")], isolated_home)
    assert done.returncode == 1
    assert "does not support image inputs" in done.stderr and "This model does not take images." in done.stderr
    assert "invalid" not in done.stderr and "Traceback" not in done.stderr


async def test_an_image_the_server_says_is_invalid_is_left_out_for_good(isolated_home: Path, tmp_path: Path) -> None:
    """A cut PNG: the server (checking images as OpenAI does) answers 400 "You uploaded an unsupported image";
    that is told apart from a model that takes no images, and a later `--continue` no longer sends the image."""
    (tmp_path / "cut.png").write_bytes(tiny_png()[:-12])  # a PNG's start, not a whole one
    with BackgroundServer({"check_images": True}) as server:
        base = ["--base-url", server.base_url, "--model", "offline"]
        done = run([*base, "-p", "What is on it?", "--attach", str(tmp_path / "cut.png")], isolated_home)
        later = run([*base, "--continue", "-p", "And now?"], isolated_home)
        sent = (server.requests[-1].body or {})["messages"]
    assert done.returncode == 1, done.stderr
    assert "You uploaded an unsupported image" in done.stderr and "The server says the image is invalid" in done.stderr
    assert "does not take images" not in done.stderr and "may not accept" not in done.stderr
    assert later.returncode == 0, later.stderr
    first = sent[-2]["content"] if sent[-1]["content"] == "And now?" else sent[-1]["content"]
    assert {"type": "text", "text": "Attached image: cut.png"} in first
    assert {"type": "text", "text": "(The image is left out: the server said this image is invalid.)"} in first
    assert not any(
        part.get("type") == "image_url" for m in sent if isinstance(m["content"], list) for part in m["content"]
    )
    store = await HistoryStore.open(isolated_home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
        prompt = (await store.load_tail(session.id, 10))[0]
    finally:
        await store.close()
    assert [ref.left_out for ref in prompt.attachments] == ["the server said this image is invalid"]
