"""Provides `PromptHistory`: the prompts a person sent, kept across runs for Up/Down in the prompt box.

One file per user in the data dir (`prompt_history.jsonl`), readable by its owner only (0600): one JSON
string per line, oldest first, or, for a prompt sent with files or images, an object with its `text` and
`files`: each file's kind, name, type, size and SHA-256, the key its bytes are stored under in the history
database (`AttachmentRef`), so Up brings them back in a later run. Every prompt passes through a `Redactor`
before it is written, as everything the database stores does, so a pasted API key is kept as `[redacted]`.
A prompt equal to the one before it (files too) is not stored again; one longer than `MAX_CHARS` (a big
paste) is remembered for this run only. The file keeps the newest `LIMIT` prompts: lines are appended, and
the file is rewritten (through a private temporary file, replaced in one step) once it holds twice that many.

The history is a convenience: a file that cannot be read or written costs the history, never the prompt.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tui_agent import paths
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.export import PRIVATE_FILE_MODE, write_private
from tui_agent.history.redact import Redactor

FILE_NAME = "prompt_history.jsonl"
LIMIT = 500
"""Prompts kept."""
MAX_CHARS = 20_000
"""Longer prompts are not written (Up still recalls them within the run)."""


@dataclass(frozen=True)
class StoredPrompt:
    """A prompt as the file keeps it: its text and the files and images it was sent with."""

    text: str
    files: tuple[AttachmentRef, ...] = ()

    def line(self) -> str:
        if not self.files:  # a plain JSON string, as before files were kept
            return json.dumps(self.text, ensure_ascii=False) + "\n"
        files = [{"kind": ref.kind, **ref.fields()} for ref in self.files]
        return json.dumps({"text": self.text, "files": files}, ensure_ascii=False) + "\n"


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
        """The stored prompts' texts, oldest first (at most `LIMIT`)."""
        return [entry.text for entry in self.entries()]

    def entries(self) -> list[StoredPrompt]:
        """The stored prompts with their files, oldest first (at most `LIMIT`); lines of another shape are
        skipped."""
        try:
            return self._all()[-LIMIT:]
        except OSError:
            return []

    def add(self, prompt: str, files: Sequence[Attachment] = ()) -> None:
        """Store `prompt` (redacted) and its files' refs after the others, unless it repeats the last one or is
        too long. A text file's ref is of its redacted text: the bytes history stores, under that hash."""
        refs = (self._redactor.attachment(attachment).ref for attachment in files)
        redacted = tuple(replace(ref, name=self._redactor.text(ref.name)) for ref in refs)
        entry = StoredPrompt(self._redactor.text(prompt), redacted)
        if len(entry.text) > MAX_CHARS or not (entry.text.strip() or entry.files):
            return
        try:
            stored = self._all()
            if stored and stored[-1] == entry:
                return
            if len(stored) + 1 > 2 * LIMIT:
                self._rewrite([*stored, entry][-LIMIT:])
            else:
                self._append(entry)
        except OSError:
            return  # see the module docstring: the prompt itself is already on its way

    def _all(self) -> list[StoredPrompt]:
        try:
            return _prompts(self.path.read_text(encoding="utf-8", errors="replace").splitlines())
        except FileNotFoundError:
            return []

    def _append(self, entry: StoredPrompt) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE_MODE)
        with open(fd, "a", encoding="utf-8") as handle:
            os.fchmod(fd, PRIVATE_FILE_MODE)  # an older file made under a looser umask becomes private too
            handle.write(entry.line())

    def _rewrite(self, entries: list[StoredPrompt]) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        write_private(temporary, "".join(entry.line() for entry in entries))
        os.replace(temporary, self.path)


def _prompts(lines: list[str]) -> list[StoredPrompt]:
    prompts = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, str):
            prompts.append(StoredPrompt(value))
        elif isinstance(value, dict) and isinstance(text := value.get("text"), str):
            files = value.get("files")
            listed = files if isinstance(files, list) else []
            refs = (AttachmentRef.from_fields(f.get("kind"), f) for f in listed if isinstance(f, dict))
            prompts.append(StoredPrompt(text, tuple(ref for ref in refs if ref is not None)))
    return prompts
