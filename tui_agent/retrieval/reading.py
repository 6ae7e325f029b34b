"""Reads, splits and hashes the files a refresh found new or changed, a batch at a time, into the shape the index
stores in one statement (`Batch`).

A batch's passages go to SQLite as two parameters, not a row each: their texts, UTF-8, one after another in one
blob, and a JSON list of each passage's place (its rowid's offset in the batch, path, lines, digest, and where its
text lies in the blob). One `INSERT ... SELECT` then stores them all: SQLite does the whole batch's FTS5 work
without taking the GIL back a row at a time, so the thread reading the next batch (`ahead.py`) runs meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field

from tui_agent.retrieval.passages import split

MAX_FILE_BYTES = 2_000_000
"""Bigger files (logs, dumps, minified bundles) are skipped: they would drown every search."""

_MARKDOWN = frozenset({".md", ".markdown", ".rst", ".txt"})

Pending = tuple[str, os.stat_result, bool]
"""A file to read: its path, its stat, and whether it was indexed before (changed, not added)."""


@dataclass
class Batch:
    """Files read and split, ready to store in one transaction, and what reading them met."""

    files: list[tuple[str, int, str | None, int, int]] = field(default_factory=list)
    """Each file: path, stamp, digest (None: skipped, binary or huge), its first passage's offset, passages."""
    places: str = "[]"
    """JSON: [offset, path, first line, last line, digest, start in `texts` (1-based), length] a passage."""
    texts: bytes = b""
    added: int = 0
    changed: int = 0
    skipped_binary: int = 0
    skipped_huge: int = 0
    unreadable: list[str] = field(default_factory=list)


def read(pending: list[Pending]) -> Batch:
    """Read, split and hash `pending` files: one that cannot be read (gone since the walk, not ours to read, a
    name that is not UTF-8) is listed in `unreadable` and left for the next refresh; a binary or huge one is
    recorded with no passages, so that it is not read again until it changes."""
    batch = Batch()
    places: list[tuple[int, str, int, int, str, int, int]] = []
    texts: list[bytes] = []
    offset, start = 0, 1
    for key, info, known in pending:
        if not _storable(key):
            batch.unreadable.append(f"{os.fsencode(key).decode(errors='backslashreplace')}: its name is not UTF-8")
            continue
        if info.st_size > MAX_FILE_BYTES:
            batch.skipped_huge += 1
            batch.files.append((key, stamp(info), None, offset, 0))
            continue
        try:
            with open(key, "rb") as file:
                data = file.read()
        except OSError as error:
            batch.unreadable.append(f"{key}: {error.strerror or error}")
            continue
        if b"\0" in data[:8192]:
            batch.skipped_binary += 1
            batch.files.append((key, stamp(info), None, offset, 0))
            continue
        markdown = os.path.splitext(key)[1].lower() in _MARKDOWN
        parts = split(data.decode("utf-8", errors="replace"), markdown=markdown)
        batch.files.append((key, stamp(info), digest(data), offset, len(parts)))
        for part in parts:
            encoded = part.text.encode()
            places.append((offset, key, part.first, part.last, digest(encoded), start, len(encoded)))
            texts.append(encoded)
            offset += 1
            start += len(encoded)
        if known:
            batch.changed += 1
        else:
            batch.added += 1
    batch.places = json.dumps(places, ensure_ascii=False)
    batch.texts = b"".join(texts)
    return batch


def _storable(key: str) -> bool:
    """Whether SQLite can hold `key`: a name that is not UTF-8 comes from Python with surrogates in it, which no
    SQLite text can hold (and a citation of it could not be opened by its name)."""
    try:
        key.encode()
    except UnicodeEncodeError:
        return False
    return True


STAMP_MASK = (1 << 63) - 1
STAMP_FACTOR = 0x9E3779B97F4A7C15


def stamp(info: os.stat_result) -> int:
    """A file's modification time and size as one SQLite integer: either alone changing always changes it
    (the multiplier is odd, so invertible modulo 2**63); both changing so as to cancel out would need a
    change of time of one exact value out of 2**63."""
    return (info.st_mtime_ns * STAMP_FACTOR + info.st_size) & STAMP_MASK


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
