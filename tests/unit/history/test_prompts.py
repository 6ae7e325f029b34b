"""The prompt history file: kept across runs, private, capped, no consecutive repeats, secrets redacted."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tui_agent import paths
from tui_agent.history.attachments import Attachment
from tui_agent.history.prompts import LIMIT, MAX_CHARS, PromptHistory, StoredPrompt
from tui_agent.history.redact import Redactor


def history(tmp_path: Path, *secrets: str) -> PromptHistory:
    return PromptHistory(tmp_path / "prompt_history.jsonl", Redactor(secrets))


def test_prompts_come_back_in_order_in_a_new_instance_and_the_file_is_private(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        first = history(tmp_path)
        for prompt in ("one", "two\nlines", "two\nlines", "three"):
            first.add(prompt)
    finally:
        os.umask(previous)
    assert history(tmp_path).load() == ["one", "two\nlines", "three"]  # the repeat is stored once
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o600


def test_secrets_are_redacted_before_they_are_written(tmp_path: Path) -> None:
    key = "sk-test-0123456789abcdefghijklmnop"
    stored = history(tmp_path, key)
    stored.add(f"why does {key} not work?")
    assert key not in stored.path.read_text(encoding="utf-8")
    assert stored.load() == ["why does [redacted] not work?"]


def test_the_newest_prompts_are_kept_up_to_the_limit(tmp_path: Path) -> None:
    stored = history(tmp_path)
    for number in range(2 * LIMIT + 5):
        stored.add(f"prompt {number}")
    kept = stored.load()
    assert len(kept) == LIMIT and kept[-1] == f"prompt {2 * LIMIT + 4}"
    assert len(stored.path.read_text(encoding="utf-8").splitlines()) <= 2 * LIMIT
    assert stat.S_IMODE(stored.path.stat().st_mode) == 0o600


def test_huge_pastes_and_bad_lines_and_unwritable_files_cost_only_the_history(tmp_path: Path) -> None:
    stored = history(tmp_path)
    stored.add("x" * (MAX_CHARS + 1))
    assert stored.load() == []
    stored.path.write_text('"fine"\nnot json\n{"a": 1}\n', encoding="utf-8")
    assert stored.load() == ["fine"]
    blocked = PromptHistory(tmp_path / "no-such-folder" / "history.jsonl", Redactor())
    blocked.add("still fine")  # nothing raised
    assert blocked.load() == []


def test_the_default_file_is_in_the_data_dir() -> None:
    assert PromptHistory.default().path.parent == paths.data_dir()


def test_a_prompts_files_are_kept_by_their_hash_and_older_lines_still_read(tmp_path: Path) -> None:
    key = "sk-test-0123456789abcdefghijklmnop"
    notes = Attachment.of_text("docs/notes.md", f"The launch is on Tuesday. {key}")
    shot = Attachment("image", "shot.png", "image/png", b"\x89PNG\r\n\x1a\n")
    stored = history(tmp_path, key)
    stored.path.write_text('"from an older version"\n{"text": "no files list", "files": 3}\n[1, 2]\n')
    stored.add("When is the launch?", [notes, shot])
    stored.add("When is the launch?", [notes, shot])  # a repeat: stored once
    stored.add("", [notes])  # files alone are a prompt too
    stored.add("When is the launch?")  # the same text without files is another prompt
    as_stored = Attachment.of_text("docs/notes.md", "The launch is on Tuesday. [redacted]").ref  # history's hash
    assert history(tmp_path).entries() == [
        StoredPrompt("from an older version"),
        StoredPrompt("no files list"),
        StoredPrompt("When is the launch?", (as_stored, shot.ref)),
        StoredPrompt("", (as_stored,)),
        StoredPrompt("When is the launch?"),
    ]
    assert "The launch" not in stored.path.read_text(encoding="utf-8")  # the bytes stay in the database
