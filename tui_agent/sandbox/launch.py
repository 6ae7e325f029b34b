"""Provides `prepare`: how to start one program inside the sandbox (for any `subprocess`/asyncio start).

`prepare(policy, cwd)` returns a `Launch`: pass its `preexec_fn` and `env(...)` to the start (asyncio's
`create_subprocess_exec` or `subprocess.Popen`), and `close()` it once the program has started. This is the
one function other code (command hooks, MCP servers) uses to run an argv sandboxed.

Building a ruleset lists the folders on the way to each secrets folder (`landlock.roots_without`): a few
milliseconds. It is kept and reused while none of those folders changed (their mtime: a new file in $HOME
must become readable) — a stat per folder per start.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tui_agent.sandbox import landlock
from tui_agent.sandbox.policy import Policy, private_temp_dir
from tui_agent.sandbox.support import support

KEPT_RULESETS = 8
Key = tuple[Policy, str, tuple[str, ...]]
Stamps = tuple[tuple[str, int], ...]


class SandboxUnavailable(RuntimeError):
    """A command should run sandboxed, and this machine has no sandbox: it is not run at all."""


@dataclass
class Launch:
    """One sandboxed start: the child-side hook and the environment additions."""

    preexec_fn: Callable[[], None]
    ruleset: landlock.Ruleset
    """Held until `close`, so the fd stays open through the start even if the cache drops it meanwhile."""

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with the private temp dir as $TMPDIR (the only temp folder the program may write)."""
        temp = str(private_temp_dir())
        return {**base, "TMPDIR": temp, "TMP": temp, "TEMP": temp}

    def close(self) -> None:
        """Let go of the ruleset (call after the start, whether it worked or not)."""
        self.preexec_fn = _closed

    def __enter__(self) -> Launch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _closed() -> None:
    raise RuntimeError("this sandbox launch was closed")


_kept: dict[Key, tuple[Stamps, landlock.Ruleset]] = {}
_lock = threading.Lock()


def prepare(policy: Policy, cwd: Path) -> Launch:
    """A `Launch` confining a program started in `cwd` to `policy`; `SandboxUnavailable` when there is none."""
    if (problem := support().problem) is not None:
        raise SandboxUnavailable(f"this command must run in the OS sandbox, and {problem}; it was not run")
    denied = tuple(str(path) for path in policy.denied_paths())
    key = (policy, str(cwd.resolve()), denied)
    with _lock:
        kept = _kept.get(key)
        if kept is None or _stamps(folder for folder, _ in kept[0]) != kept[0]:
            kept = _built(policy, key)
            if len(_kept) >= KEPT_RULESETS:
                _kept.pop(next(iter(_kept)))
            _kept[key] = kept
    ruleset = kept[1]
    return Launch(ruleset.apply_in_child, ruleset)


def _built(policy: Policy, key: Key) -> tuple[Stamps, landlock.Ruleset]:
    readable, listable = landlock.roots_without("/", key[2])
    writable: list[str] = []
    for folder in policy.writable_paths(Path(key[1])):  # a secrets folder inside the working directory stays shut
        roots, on_the_way = landlock.roots_without(str(folder), key[2])
        writable += roots
        listable += on_the_way
    rules = landlock.Rules(
        readable=tuple(readable), listable=tuple(listable), writable=tuple(writable), network=policy.network
    )
    return _stamps(listable), landlock.Ruleset(rules, landlock.abi_version())


def _stamps(folders: Iterable[str]) -> Stamps:
    """Each folder's mtime (-1 when it is gone): a changed one means its entries changed."""
    stamps = []
    for folder in folders:
        try:
            stamps.append((folder, os.stat(folder).st_mtime_ns))
        except OSError:
            stamps.append((folder, -1))
    return tuple(stamps)
