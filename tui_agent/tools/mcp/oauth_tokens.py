"""Provides `TokenFile`: where one MCP server's OAuth sign-in is kept — a JSON file of yours alone.

One file per server and URL (`<data dir>/mcp/oauth/<name>-<hash of the URL>.json`, 0600 in a 0700 folder):
a server whose `url` changes in the config never gets the token another URL was given. It holds the tokens,
when the access token expires (an absolute time: the SDK only keeps the relative `expires_in`), the client
registration, and the authorisation server's revocation endpoint (for signing out). Nothing else keeps them:
not history, not the logs, not the config. Written whole to a temporary file and renamed over, so a crash
never leaves half a file; a file that cannot be read is treated as no sign-in (and is replaced by the next).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.tools.mcp.specs import safe_name

FILE_MODE = 0o600


def token_folder(mcp_dir: Path) -> Path:
    """The folder of the sign-ins, beside the servers' logs (`<data dir>/mcp`)."""
    return mcp_dir / "oauth"


class TokenFile:
    """The sign-in of server `name` at `url`, kept in `folder`."""

    def __init__(self, folder: Path, name: str, url: str) -> None:
        digest = hashlib.sha256(url.encode()).hexdigest()[:12]
        self.path = folder / f"{safe_name(name)}-{digest}.json"
        self.url = url

    def read(self) -> dict[str, Any]:
        """What is kept (empty when nothing is, or the file is unreadable or not ours alone any more)."""
        try:
            with self.path.open(encoding="utf-8") as file:
                if os.fstat(file.fileno()).st_mode & 0o077 and hasattr(os, "fchmod"):  # not on Windows
                    os.fchmod(file.fileno(), FILE_MODE)  # made looser by hand: private again before use
                found = json.load(file)
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) and found.get("url") == self.url else {}

    def update(self, **fields: Any) -> None:
        """Keep `fields` beside what is kept already (None removes a field)."""
        kept = {**self.read(), **fields, "url": self.url}
        self._write({key: value for key, value in kept.items() if value is not None})

    def exists(self) -> bool:
        return bool(self.read().get("tokens"))

    def delete(self) -> bool:
        """Forget the sign-in; whether there was one."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    def _write(self, data: dict[str, Any]) -> None:
        paths.private_folder(self.path.parent, ours=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)  # 0600 from its first byte
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=1)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
