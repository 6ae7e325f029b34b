"""Provides `content_name`, the name a file's content is kept under in history (the SHA-256 of its bytes, in
hex), and `name_soon`, which starts naming a content on a worker thread.

Naming a content is most of what recording an edit costs once its bytes are kept as a span (issue 29), so it
is done at most once per content and, where it can be, while the disk is busy anyway: an edit's write calls
`name_soon` before it flushes its file (hashlib lets go of the GIL while it hashes), and the record asks
`content_name` for names that are ready by then. An edit's content before is, most often, a content named just
now (the last edit's after, or the same file again): the last few contents named are remembered and found
again by comparing their bytes, which is exact and far cheaper than hashing. Safe from any thread.
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
from concurrent.futures import Future

REMEMBERED = 8
"""How many recent contents keep their names."""
REMEMBERED_BYTES = 8 * 1024 * 1024
"""The most bytes the remembered contents hold (a content over half of it is not remembered)."""


class _Names:
    """The recent contents and their names (or the hashing under way), newest first."""

    def __init__(self) -> None:
        self._reset()
        if hasattr(os, "register_at_fork"):  # a forked child has no worker: it starts its own, with nothing queued
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._entries: list[tuple[bytes, Future[str]]] = []
        self._lock = threading.Lock()
        self._work: queue.SimpleQueue[tuple[bytes, Future[str]]] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None

    def name(self, data: bytes) -> str:
        """The name of `data`: remembered, being hashed (waited for), or hashed now."""
        found = self._find(data)
        if found is not None:
            return found.result()
        done: Future[str] = Future()
        done.set_result(_hash(data))
        self._remember(data, done)
        return done.result()

    def soon(self, data: bytes) -> None:
        """Start hashing `data` on the worker thread unless its name is remembered."""
        if self._find(data) is not None or len(data) * 2 > REMEMBERED_BYTES:
            return
        name: Future[str] = Future()
        self._remember(data, name)
        with self._lock:
            if self._worker is None:
                # A daemon: hashing leaves nothing half done, so it never holds the process's exit up.
                self._worker = threading.Thread(target=self._hash_all, name="tui-agent-content-names", daemon=True)
                self._worker.start()
        self._work.put((data, name))

    def _hash_all(self) -> None:
        while True:
            data, name = self._work.get()
            try:
                name.set_result(_hash(data))
            except BaseException as error:  # (out of memory) the record waiting for it hears, never hangs
                name.set_exception(error)

    def _find(self, data: bytes) -> Future[str] | None:
        with self._lock:
            entries = list(self._entries)
        for kept, name in entries:
            if kept is data or (len(kept) == len(data) and kept == data):
                return name
        return None

    def _remember(self, data: bytes, name: Future[str]) -> None:
        if len(data) * 2 > REMEMBERED_BYTES:
            return
        with self._lock:
            entries = [(data, name), *self._entries][:REMEMBERED]
            while sum(len(kept) for kept, _ in entries) > REMEMBERED_BYTES:
                entries.pop()
            self._entries = entries


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_names = _Names()


def content_name(data: bytes) -> str:
    """The name a content is kept under: the SHA-256 of its bytes, in hex."""
    return _names.name(data)


def name_soon(*contents: bytes | None) -> None:
    """Start naming these contents on a worker thread (None: no content), for a record made soon after."""
    for data in contents:
        if data is not None:
            _names.soon(data)
