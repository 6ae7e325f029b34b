"""Provides `ImportJournal`: survives a plugin that ends the process while it is imported.

A plugin calling `os._exit` or crashing the interpreter at import cannot be caught in the process. So
each importing thread keeps a marker file (`plugin-imports/<pid>-<n>.json` in the data dir, a `JournalSlot`):
before each import it writes there the plugin's name, and empties it once the import returns; the file is
removed when the thread is done. (A file made and removed per plugin cost more than importing it: 1000
plugins.) Markers are written without fsync: the page cache outlives the process, and only a kernel crash
or a power cut, which no plugin is to blame for, could lose one.

At the next start, markers left by a process that is gone name the plugins that were being imported
when it ended. Imports run concurrently, so healthy plugins may have been in flight too (and a run
killed from outside leaves markers as well): each of those suspects is imported once more in a probe
process of its own (`tui_agent.tools.probe`), and the ones whose probe ends during the import are
recorded in `plugin-crashes.json` with a fingerprint of their file (mtime and size; for an installed
package, its version). A recorded plugin is reported and skipped until its fingerprint changes.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.tools.loader import PluginSource
from tui_agent.tools.probe import SURVIVED
from tui_agent.tools.problems import LoadProblem

CRASHED = (
    "ended a run of tui-agent while being imported (it exits or crashes the process); skipped until the file changes"
)
PROBE_GRACE = 5.0
"""Seconds a probe may take beyond the import deadline (starting Python and tui-agent's tools)."""


class ImportJournal:
    """The markers of the imports in flight and the record of plugins that ended a run (in `folder`)."""

    def __init__(self, folder: Path) -> None:
        self.markers = folder / "plugin-imports"
        self.crashes = folder / "plugin-crashes.json"
        self._numbers = itertools.count()

    def slot(self) -> JournalSlot | None:
        """A marker file for one importing thread (None if it cannot be written: plugins load, unguarded)."""
        marker = self.markers / f"{os.getpid()}-{next(self._numbers)}.json"
        try:
            paths.private_folder(self.markers, ours=True)
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        except OSError:  # a read-only data dir
            return None
        return JournalSlot(marker, fd)

    def triage(self, sources: Sequence[PluginSource], timeout: float) -> tuple[list[PluginSource], list[LoadProblem]]:
        """The sources to import now, and the problems of those skipped for ending an earlier run."""
        crashed = self._read_crashes()
        suspects = self._claim_leftovers()
        before = dict(crashed)
        for source in _probe_each([s for s in sources if s.location in suspects], timeout):
            crashed[source.location] = fingerprint(source)
        keep: list[PluginSource] = []
        problems: list[LoadProblem] = []
        for source in sources:
            recorded = crashed.get(source.location)
            if recorded is not None and recorded == fingerprint(source):
                problems.append(LoadProblem(source.location, CRASHED))
                continue
            crashed.pop(source.location, None)  # changed since: tried again
            keep.append(source)
        if crashed != before:
            self._write_crashes(crashed)
        return keep, problems

    def _claim_leftovers(self) -> set[str]:
        """The plugins named by markers of processes that are gone; their markers are removed (an empty one:
        its thread was between imports)."""
        try:
            markers = list(self.markers.glob("*.json"))
        except OSError:
            return set()
        found: set[str] = set()
        for marker in markers:
            note = _read_json(marker)
            pid = note.get("pid", _pid_named(marker))
            if not isinstance(pid, int) or (pid != os.getpid() and _alive(pid)):
                continue  # another tui-agent importing right now
            try:
                marker.unlink()  # claimed: a second process starting now does not probe it again
            except OSError:
                continue
            if isinstance(location := note.get("location"), str):
                found.add(location)
        return found

    def _read_crashes(self) -> dict[str, str]:
        record = _read_json(self.crashes)
        return {key: value for key, value in record.items() if isinstance(value, str)}

    def _write_crashes(self, crashed: dict[str, str]) -> None:
        temporary = self.crashes.with_name(f".{self.crashes.name}.{os.getpid()}")
        try:
            temporary.write_text(json.dumps(crashed, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.crashes)
        except OSError:  # it is asked again next time: the suspects' markers are gone, so nothing is lost
            temporary.unlink(missing_ok=True)


class JournalSlot:
    """One importing thread's marker file: names the plugin it imports, empty between imports."""

    def __init__(self, marker: Path, fd: int) -> None:
        self.marker = marker
        self._fd: int | None = fd
        self._lock = threading.Lock()  # the thread's own calls against the loader giving its import up

    def begin(self, source: PluginSource) -> None:
        """Note that `source` is being imported."""
        note = json.dumps({"pid": os.getpid(), "location": source.location}).encode()
        with self._lock:
            if self._fd is not None:
                try:
                    os.pwrite(self._fd, note, 0)
                except OSError:  # a full disk: this import goes unguarded
                    pass

    def end(self) -> None:
        """The import noted by `begin` is over (returned or raised)."""
        with self._lock:
            if self._fd is not None:
                try:
                    os.ftruncate(self._fd, 0)
                except OSError:
                    pass

    def close(self) -> None:
        """No more imports here (the thread is done, or its import was given up): the marker goes."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
                self.marker.unlink(missing_ok=True)


def _pid_named(marker: Path) -> int | None:
    """The process id a marker's name starts with (`<pid>-<n>.json`)."""
    head = marker.name.partition("-")[0]
    return int(head) if head.isdigit() else None


def fingerprint(source: PluginSource) -> str:
    """What must change for a recorded plugin to be tried again: its files' mtimes and sizes, or version."""
    if source.path is None:
        return f"version {source.version}"
    files = sorted(source.path.rglob("*.py")) if source.path.is_dir() else [source.path]
    stamps = []
    for file in files:
        try:
            info = file.stat()
        except OSError:
            continue
        stamps.append(f"{file.name}:{info.st_mtime_ns}:{info.st_size}")
    return " ".join(stamps)


def _probe_each(sources: Sequence[PluginSource], timeout: float) -> list[PluginSource]:
    """Import each source in a process of its own, all at once; those whose process ended mid-import."""
    running = [(source, _start_probe(source)) for source in sources]
    return [source for source, probe in running if not _survived(probe, timeout + PROBE_GRACE)]


def _start_probe(source: PluginSource) -> subprocess.Popen[bytes]:
    target = ["file", str(source.path)] if source.path is not None else ["entry-point", source.name]
    return subprocess.Popen(
        [sys.executable, "-m", "tui_agent.tools.probe", *target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _survived(probe: subprocess.Popen[bytes], timeout: float) -> bool:
    try:
        out, _ = probe.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:  # hangs: not a crash (the import deadline deals with it in the app)
        probe.kill()
        probe.communicate()
        return True
    return out.decode(errors="replace").rstrip().endswith(SURVIVED)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
