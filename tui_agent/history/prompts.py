"""Provides `PromptHistory`: the prompts a person sent, kept across runs for Up/Down in the prompt box.

One file per user in the data dir (`prompt_history.jsonl`), readable by its owner only (0600): one JSON
string per line, oldest first. Every prompt passes through a `Redactor` before it is written, as
everything the database stores does, so a pasted API key is kept as `[redacted]`. A prompt equal to the
one before it is not stored again; one longer than `MAX_CHARS` (a big paste) is remembered for this run
only. The file keeps the newest `LIMIT` prompts: lines are appended, and the file is rewritten (through a
private temporary file, replaced in one step) once it holds twice that many.

The history is a convenience: a file that cannot be read or written costs the history, never the prompt.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tui_agent import paths
from tui_agent.history.export import PRIVATE_FILE_MODE, write_private
from tui_agent.history.redact import Redactor

FILE_NAME = "prompt_history.jsonl"
LIMIT = 500
"""Prompts kept."""
MAX_CHARS = 20_000
"""Longer prompts are not written (Up still recalls them within the run)."""


class PromptHistory:
    """The stored prompts of one user."""

    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self._redactor = redactor

    @classmethod
    def default(cls) -> PromptHistory:
        """The user's file in the data dir, redacted as the history database is (secrets from the environment
        and the config file, token shapes unless the config turns them off)."""
        return cls(paths.data_dir() / FILE_NAME, Redactor.default(paths.config_file()))

    def load(self) -> list[str]:
        """The stored prompts, oldest first (at most `LIMIT`); lines that are not a JSON string are skipped."""
        try:
            return self._all()[-LIMIT:]
        except OSError:
            return []

    def add(self, prompt: str) -> None:
        """Store `prompt` (redacted) after the others, unless it repeats the last one or is too long."""
        text = self._redactor.text(prompt)
        if len(text) > MAX_CHARS or not text.strip():
            return
        try:
            stored = self._all()
            if stored and stored[-1] == text:
                return
            if len(stored) + 1 > 2 * LIMIT:
                self._rewrite([*stored, text][-LIMIT:])
            else:
                self._append(text)
        except OSError:
            return  # see the module docstring: the prompt itself is already on its way

    def _all(self) -> list[str]:
        try:
            return _prompts(self.path.read_text(encoding="utf-8", errors="replace").splitlines())
        except FileNotFoundError:
            return []

    def _append(self, text: str) -> None:
        line = json.dumps(text, ensure_ascii=False) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE_MODE)
        with open(fd, "a", encoding="utf-8") as handle:
            os.fchmod(fd, PRIVATE_FILE_MODE)  # an older file made under a looser umask becomes private too
            handle.write(line)

    def _rewrite(self, prompts: list[str]) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        write_private(temporary, "".join(json.dumps(text, ensure_ascii=False) + "\n" for text in prompts))
        os.replace(temporary, self.path)


def _prompts(lines: list[str]) -> list[str]:
    prompts = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, str):
            prompts.append(value)
    return prompts
