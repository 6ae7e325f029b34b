"""Provides when opening checks the whole history file (`PRAGMA quick_check`), and the stamp that lets it skip.

A whole-file check reads every page: 7-11 s for a 1.9 GB history, on every start. SQLite itself (WAL,
synchronous=FULL) does not damage the file on a crash; what does is something else writing it, a copy or restore
gone wrong, or the disk. So the check runs only when the file may have changed since it was last known good:
- there is no stamp: the file is new to this machine (copied, restored, synced in) or was never checked;
- the file is not the one the stamp describes (device, inode, size, modification time, a hash of a sample of its
  pages): something other than a tui-agent closing it cleanly wrote it last - another program, or a tui-agent
  that ended without closing (crash, kill, power loss);
- the last whole-file check is older than `RECHECK_AFTER` (a disk rots pages without changing the file's times);
- a corruption error surfaced while the file was in use (`forget` removes the stamp, so the next start checks).
The stamp is written when a store that knew the file good closes it cleanly: `<name>.checked`, JSON, 0600.
Reading pages SQLite would read anyway still reports damage as it surfaces (the store says so, and forgets).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

RECHECK_AFTER = 7 * 24 * 3600.0
"""Seconds after which a whole-file check runs again even though the file is the one stamped."""
SAMPLE_PAGES = 16
"""Pages hashed into the stamp, evenly spread (a cheap look at the content, on top of the times)."""
PAGE = 4096
PRIVATE = 0o600


@dataclass(frozen=True)
class Stamp:
    """The history file as a store that knew it good left it."""

    device: int
    inode: int
    size: int
    modified_ns: int
    sample: str
    checked_at: float
    """When the whole file was last checked (epoch seconds)."""


def stamp_path(db: Path) -> Path:
    return db.with_name(f"{db.name}.checked")


def read_stamp(db: Path) -> Stamp | None:
    """The stamp next to `db`, or None (missing or unreadable: both mean check)."""
    try:
        data = json.loads(stamp_path(db).read_text(encoding="utf-8"))
        return Stamp(**data)
    except (OSError, ValueError, TypeError):
        return None


def describe(db: Path, checked_at: float) -> Stamp | None:
    """The stamp `db` would get now (None: it cannot be read)."""
    try:
        info = db.stat()
        sample = _sample(db, info.st_size)
    except OSError:
        return None
    return Stamp(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, sample, checked_at)


def needs_check(db: Path, stamp: Stamp | None, now: float | None = None) -> bool:
    """Whether opening `db`, stamped `stamp` (`read_stamp`), must check the whole file (the module docstring
    says when)."""
    if stamp is None:
        return True
    now = time.time() if now is None else now
    if not 0 <= now - stamp.checked_at < RECHECK_AFTER:
        return True
    current = describe(db, stamp.checked_at)
    return current != stamp


def write_stamp(db: Path, checked_at: float) -> None:
    """Record `db` as known good since `checked_at` (after the last connection to it closed cleanly)."""
    stamp = describe(db, checked_at)
    if stamp is None:
        return
    target = stamp_path(db)
    partial = target.with_name(target.name + ".partial")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(stamp), handle)
        os.replace(partial, target)
    except OSError:
        return  # no stamp: the next start checks, which is only slower


def forget(db: Path) -> None:
    """Remove the stamp (damage was seen): the next start checks the whole file."""
    try:
        stamp_path(db).unlink()
    except FileNotFoundError:
        pass
    except OSError:
        return  # cannot remove it: nothing else to do; the weekly check still comes


def _sample(db: Path, size: int) -> str:
    digest = hashlib.sha256()
    pages = max(1, size // PAGE)
    step = max(1, pages // SAMPLE_PAGES)
    with db.open("rb") as handle:
        for page in range(0, pages, step):
            handle.seek(page * PAGE)
            digest.update(handle.read(PAGE))
        handle.seek(max(0, size - PAGE))
        digest.update(handle.read(PAGE))
    return digest.hexdigest()
