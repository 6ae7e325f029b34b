"""Provides `still_sound`, `forget` and `remember`: whether a history file must be integrity-checked when opened.

`PRAGMA quick_check` reads the whole file: seconds on a history of gigabytes, at every start. It is needed only
when the file may have changed other than through a clean close of ours: a crash (power loss, a killed
machine), a copy from elsewhere, another program's hands. So a clean close writes a small record beside the
file (`<db>.sound`, 0600) naming it exactly as it was left — device, inode, size and modification time — and
an open that finds the file still exactly so skips the check. Opening for writing removes the record first,
so a run that never closes cleanly leaves none, and the next open checks. A file changed since (by anyone),
replaced, or copied in has another inode, size or time, and is checked.

What this gives up: damage that changes none of the four (a disk's own bit rot under an unchanged inode and
time) is found when SQLite meets it, as a "damaged" error naming the file, rather than at the start.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

SUFFIX = ".sound"
PRIVATE = 0o600


def record_of(db: Path) -> Path:
    """Where the record of `db`'s last clean close is kept."""
    return db.with_name(db.name + SUFFIX)


def _facts(db: Path) -> dict[str, int] | None:
    try:
        stat = db.stat()
    except OSError:
        return None
    return {"device": stat.st_dev, "inode": stat.st_ino, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def still_sound(db: Path) -> bool:
    """Whether `db` is exactly as a clean close of ours left it (then its check can be skipped)."""
    try:
        recorded = json.loads(record_of(db).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    facts = _facts(db)
    return facts is not None and recorded == facts


def forget(db: Path) -> None:
    """This run may change `db`: the record goes until it closes cleanly."""
    try:
        record_of(db).unlink(missing_ok=True)
    except OSError:  # a record left behind only means a file that changed is checked anyway (it no longer matches)
        pass


def remember(db: Path) -> None:
    """`db` was closed cleanly: record it as it is now (best effort; without a record the next open checks)."""
    facts = _facts(db)
    if facts is None:
        return
    record = record_of(db)
    try:
        fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, PRIVATE)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(json.dumps(facts))
    except OSError:
        pass
