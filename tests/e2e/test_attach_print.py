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
    assert done.stdout.startswith(
        f"I received the file {tmp_path / 'notes.md'} and an image ({tmp_path / 'shot.png'})."
    )
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
    assert "does not support image inputs" in done.stderr and "this model may not accept images" in done.stderr
    assert "Traceback" not in done.stderr
