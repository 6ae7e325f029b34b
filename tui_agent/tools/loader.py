"""Provides `load_guarded`: import plugin code so that nothing it does at import can take the app down.

Plugins are imported by up to `IMPORTERS` daemon threads at once, each taking the next plugin when it is done
with one, with one shared deadline (a few seconds). Threads are used rather than a subprocess because the tools
must live in this process to be called, and a subprocess probe would double every plugin's import cost at
startup. The price: a plugin that hangs cannot be killed — its thread is abandoned (daemon, so it never blocks
exit) and the plugin is skipped; the other threads go on with the rest. (One thread per plugin made 1000
plugins import three times slower than a few threads do: they only contend for the interpreter.)

While loading, `sys.stdout` and `sys.stderr` are replaced by routers that send each plugin thread's
writes to its own buffers and everyone else's to the real streams. A plugin that prints to stdout at
import is reported and skipped; one that writes to stderr (warnings, usually) is loaded and the text is
reported. If a thread was abandoned, the routers stay installed so the hung plugin can never write to
the terminal. With a journal (`tui_agent.tools.journal`), each import is noted while it runs (in its thread's
`JournalSlot`), so that a plugin that ends the whole process can be named and skipped at the next start.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO, cast

from tui_agent.tools.problems import LoadProblem

if TYPE_CHECKING:  # the journal imports this module
    from tui_agent.tools.journal import ImportJournal, JournalSlot

MODULE_PREFIX = "tui_agent_plugin_"
IMPORTERS = 16
"""Threads importing plugins at once: enough that a few hung plugins leave the rest to the others."""
_OWN_CODE = str(Path(__file__).resolve().parent.parent)


@dataclass(frozen=True)
class PluginSource:
    """Something to import: a file, a package folder or an entry point."""

    name: str
    """The plugin's name (file stem or entry-point name)."""
    location: str
    """What a person would look for: the file path or `distribution: module:object`."""
    load: Callable[[], object]
    path: Path | None = None
    """The plugin file or package folder (None for an entry point)."""
    version: str = ""
    """For an entry point, the version of the package providing it."""


@dataclass
class _Attempt:
    source: PluginSource
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    value: object = None
    problem: str | None = None
    slot: JournalSlot | None = None
    """The journal slot of the thread importing it."""
    started: bool = False
    """Taken by an importing thread (one never taken was left waiting behind hung plugins)."""
    done: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Loaded:
    """A plugin that imported cleanly, and what its load returned (usually a module)."""

    source: PluginSource
    value: object


class _StreamRouter:
    """A stand-in for `sys.stdout` or `sys.stderr` that gives each plugin thread its own buffer."""

    def __init__(self, fallback: TextIO) -> None:
        self.fallback = fallback
        self.buffers: dict[int, list[str]] = {}

    def write(self, text: str) -> int:
        buffer = self.buffers.get(threading.get_ident())
        if buffer is None:
            return self.fallback.write(text)
        buffer.append(text)
        return len(text)

    def flush(self) -> None:
        if threading.get_ident() not in self.buffers:
            self.fallback.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fallback, name)


def file_source(path: Path) -> PluginSource:
    """A plugin module file, or a package folder (its `__init__.py`)."""
    return PluginSource(path.stem if path.suffix == ".py" else path.name, str(path), lambda: import_path(path), path)


def import_path(path: Path) -> ModuleType:
    """Import a plugin file or package under a private, collision-free module name."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
    module_name = f"{MODULE_PREFIX}{path.stem}_{digest}"
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            module_name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # pydantic and dataclasses look their module up while it executes
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def load_guarded(
    sources: Sequence[PluginSource], timeout: float, journal: ImportJournal | None = None
) -> tuple[list[Loaded], list[LoadProblem]]:
    """Load every source concurrently; return those that loaded (in source order) and the problems."""
    out, err = _StreamRouter(sys.stdout), _StreamRouter(sys.stderr)
    installed_out, installed_err = cast(TextIO, out), cast(TextIO, err)
    sys.stdout, sys.stderr = installed_out, installed_err
    attempts = [_Attempt(source) for source in sources]
    waiting = deque(attempts)
    try:
        threads = [_start(waiting, out, err, journal) for _ in range(min(IMPORTERS, len(attempts)))]
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
    finally:
        waiting.clear()  # past the deadline no thread takes another plugin: those left are skipped, unimported
        for attempt in attempts:  # a hung import, given up, did not end the process: not to be blamed later
            if not attempt.done.is_set() and attempt.slot is not None:
                attempt.slot.close()
        if all(attempt.done.is_set() for attempt in attempts):
            if sys.stdout is installed_out:
                sys.stdout = out.fallback
            if sys.stderr is installed_err:
                sys.stderr = err.fallback
    return _outcomes(attempts, timeout)


def _start(
    waiting: deque[_Attempt], out: _StreamRouter, err: _StreamRouter, journal: ImportJournal | None
) -> threading.Thread:
    thread = threading.Thread(target=_import_each, args=(waiting, out, err, journal), daemon=True, name="plugin-import")
    thread.start()
    return thread


def _import_each(
    waiting: deque[_Attempt], out: _StreamRouter, err: _StreamRouter, journal: ImportJournal | None
) -> None:
    """Import the waiting plugins one after another until none is left (`deque.popleft` is thread-safe)."""
    slot = journal.slot() if journal is not None else None
    try:
        while True:
            try:
                attempt = waiting.popleft()
            except IndexError:
                return
            attempt.started, attempt.slot = True, slot
            _run(attempt, out, err)
    finally:
        if slot is not None:
            slot.close()


def _run(attempt: _Attempt, out: _StreamRouter, err: _StreamRouter) -> None:
    out.buffers[threading.get_ident()] = attempt.stdout
    err.buffers[threading.get_ident()] = attempt.stderr
    if attempt.slot is not None:
        attempt.slot.begin(attempt.source)
    try:
        attempt.value = attempt.source.load()
    except SystemExit as exc:
        attempt.problem = f"called sys.exit({exc.code!r}) while being imported"
    except BaseException as exc:  # KeyboardInterrupt, GeneratorExit...: a plugin may raise anything; none escapes
        attempt.problem = f"raised {_describe(exc)} while being imported{_where(exc)}"
    finally:
        if attempt.slot is not None:
            attempt.slot.end()
        attempt.done.set()


def _outcomes(attempts: list[_Attempt], timeout: float) -> tuple[list[Loaded], list[LoadProblem]]:
    loaded: list[Loaded] = []
    problems: list[LoadProblem] = []
    for attempt in attempts:
        location = attempt.source.location
        if not attempt.done.is_set() and not attempt.started:
            problems.append(
                LoadProblem(location, f"not imported: other plugins took more than {timeout:g} s to import; skipped")
            )
        elif not attempt.done.is_set():
            problems.append(LoadProblem(location, f"took more than {timeout:g} s to import; skipped"))
        elif attempt.problem is not None:
            problems.append(LoadProblem(location, f"{attempt.problem}; skipped"))
        elif printed := "".join(attempt.stdout).strip():
            problems.append(
                LoadProblem(
                    location,
                    f"printed to stdout while being imported ({_shorten(printed)!r}); plugins must not print; skipped",
                )
            )
        else:
            loaded.append(Loaded(attempt.source, attempt.value))
            if warned := "".join(attempt.stderr).strip():
                problems.append(LoadProblem(location, f"wrote to stderr while being imported: {_shorten(warned)!r}"))
    return loaded, problems


def _describe(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _where(exc: BaseException) -> str:
    """The plugin line that raised, when the traceback reaches plugin code."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename.endswith(".py") and not frame.filename.startswith(_OWN_CODE)
    ]
    return f" (line {frames[-1].lineno} of {Path(frames[-1].filename).name})" if frames else ""


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
