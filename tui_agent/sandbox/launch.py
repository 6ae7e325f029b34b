"""Provides `prepare`: how to start one program inside the sandbox (for any `subprocess`/asyncio start).

`prepare(policy, cwd)` returns a `Launch`: start `launch.argv(ARGV)` with its `preexec_fn` and `env(...)`
(asyncio's `create_subprocess_exec` or `subprocess.Popen`), and `close()` it once the program has started.
This is the one function other code (command hooks, MCP servers) uses to run an argv sandboxed, whichever
backend `support()` chose: Landlock confines the child before exec (`preexec_fn`), bubblewrap and macOS
`sandbox-exec` are programs put before the argv (`argv_prefix`).

Building a ruleset lists the folders on the way to each secrets folder (`landlock.roots_without`): a few
milliseconds. It is kept and reused while none of those folders changed (their mtime: a new file in $HOME
must become readable) — a stat per folder per start.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui_agent.sandbox import landlock
from tui_agent.sandbox.bubblewrap import bwrap_prefix
from tui_agent.sandbox.policy import Policy, private_temp_dir
from tui_agent.sandbox.seatbelt import profile, sandbox_exec_prefix
from tui_agent.sandbox.support import Support, support

KEPT_RULESETS = 8
Key = tuple[Policy, str, tuple[str, ...]]
Stamps = tuple[tuple[str, int], ...]


class SandboxUnavailable(RuntimeError):
    """A command should run sandboxed, and this machine has no sandbox: it is not run at all."""


@dataclass
class Launch:
    """One sandboxed start: the child-side hook or the program to start through, and the environment additions."""

    preexec_fn: Callable[[], None] | None
    ruleset: landlock.Ruleset | None = None
    """Held until `close`, so the fd stays open through the start even if the cache drops it meanwhile."""
    argv_prefix: tuple[str, ...] = ()
    """Put before the program's argv (`bwrap ... --`, `sandbox-exec -p PROFILE`); empty for Landlock."""

    def argv(self, program: Sequence[str]) -> list[str]:
        """The command line to start: `program`, through the sandbox's own program when it has one."""
        return [*self.argv_prefix, *program]

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
    found = support()
    if found.problem is not None:
        raise SandboxUnavailable(f"this command must run in the OS sandbox, and {found.problem}; it was not run")
    if found.backend != "landlock":
        return Launch(None, argv_prefix=tuple(_prefix(found, policy, cwd)))
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


def _prefix(found: Support, policy: Policy, cwd: Path) -> list[str]:
    """The program a bubblewrap or sandbox-exec start goes through (built per start: no fd to keep)."""
    writable = [str(path) for path in policy.writable_paths(cwd)]
    if found.backend == "bubblewrap":
        return bwrap_prefix(found.program, policy, str(cwd), writable)
    real = [os.path.realpath(path) for path in writable]
    denied = [os.path.realpath(path) for path in policy.denied_paths() if os.path.lexists(path)]
    return sandbox_exec_prefix(found.program, profile(real, denied, policy.network))


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
