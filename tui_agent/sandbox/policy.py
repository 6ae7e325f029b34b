"""Provides `Policy`: what a sandboxed command may reach (the `[sandbox]` settings, in the sandbox's words)."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SECRETS = (
    "~/.ssh",
    "~/.aws",
    "~/.azure",
    "~/.gnupg",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.git-credentials",
    "~/.password-store",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.config/tui-agent",
    "~/.local/share/keyrings",
    "~/.local/share/tui-agent",
)
"""Folders and files holding the user's keys and tokens: unreadable inside the sandbox by default."""


@dataclass(frozen=True)
class Policy:
    """Writes only in the working directory, `writable` and a private temp dir; reads everywhere but
    `deny_read`; TCP only with `network`."""

    network: bool = False
    deny_read: tuple[str, ...] = SECRETS
    writable: tuple[str, ...] = field(default_factory=tuple)

    def denied_paths(self) -> list[Path]:
        """`deny_read` with `~` expanded (against $HOME as it is now)."""
        return [Path(path).expanduser() for path in self.deny_read]

    def writable_paths(self, cwd: Path) -> list[Path]:
        """The working directory, the private temp dir and the extra writable paths."""
        return [cwd, private_temp_dir(), *(Path(path).expanduser() for path in self.writable)]


@functools.cache
def private_temp_dir() -> Path:
    """This process's temp dir for sandboxed commands (their $TMPDIR), removed when the process ends."""
    path = Path(tempfile.mkdtemp(prefix="tui-agent-sandbox-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
