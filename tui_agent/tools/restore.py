"""Provides `located`, `on_disk` and `write_back`: the disk side of a rewind — a recorded file found under the
folder the agent changed it in, read as it is now, and written back atomically.

Confined as the edit tools are (`confinement.py`), but to the folder the change was recorded in rather than the
one tui-agent runs in now, so `tui-agent rewind` works from anywhere: a path that resolves outside it (`..`, a
symlink, a symlinked parent folder) or into a `.git` folder is refused, never written. A write is a temporary
file in the same folder, flushed and renamed over, with the file's mode bits kept: a kill at any moment leaves
the old or the new content. A deletion removes the file only (folders the agent made stay).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from tui_agent.regular_files import not_regular, open_regular
from tui_agent.tools.edits import UMASK, sync_folder


def located(work_dir: str, path: str) -> Path:
    """Where recorded `path` is under `work_dir` ("" for the folder tui-agent runs in); ValueError when it
    leads out of that folder, to the folder itself, or into a `.git` folder."""
    root = Path(work_dir or os.getcwd()).resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or target == root:
        raise ValueError(f"{path} leads outside {root}: not restored")
    if ".git" in target.relative_to(root).parts:
        raise ValueError(f"{path} is inside a .git folder: never written")
    return target


def on_disk(target: Path) -> bytes | None:
    """The file's bytes now (None: there is no file); ValueError for something that is not a regular file."""
    try:
        with open_regular(target, _refuse) as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError as error:
        raise ValueError(f"{target} is a folder now, not a file") from error


def _refuse(status: os.stat_result) -> Exception | None:
    what = not_regular(status.st_mode)
    return None if what is None else ValueError(f"it is {what} now, not a file")


def write_back(target: Path, data: bytes | None) -> None:
    """Make `target` hold `data` (None: no file), atomically, keeping its mode bits when it exists."""
    if data is None:
        target.unlink(missing_ok=True)
        sync_folder(target.parent)
        return
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tui-agent-tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), mode if mode is not None else 0o666 & ~UMASK)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_folder(folder)
