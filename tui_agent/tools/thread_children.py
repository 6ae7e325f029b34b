"""Provides `kill_thread_children`: kill the programs one thread of this process started, and theirs.

A sync tool runs in a thread of its own, which cannot be stopped; when its call is cancelled or times out it
is abandoned, but a program it started (`subprocess.run([...])`) would run on, its output unread. Linux
says which thread started a process (`/proc/self/task/TID/children`), so that thread's children and their
descendants can be found and killed without touching anything else of ours (the shell tool's programs, MCP
servers, another call's programs). Each is pinned with a pidfd before it is signalled, and checked to still be
a child of its parent then, so a pid reused in between is never hit; each is stopped (SIGSTOP) before its
own children are read, so it cannot start more meanwhile, then all are killed.

Limits, all of them said where this is used: Linux only (elsewhere nothing is killed); a program that left
the tree (a daemon that double-forked, `setsid` and an exit) is no longer a descendant and is not found; a
program started by another thread the tool made is not the call's thread's child; and the thread itself
runs on (a tool that starts programs in a loop is swept again until its thread ends: `sweep_until_done`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path

TASKS = Path("/proc/self/task")
SWEEP_EVERY = 0.2
"""Seconds between sweeps of an abandoned thread's new children."""


def kill_thread_children(tid: int) -> int:
    """Kill every process thread `tid` of this process started, with their descendants; how many."""
    stopped: list[int] = []  # pidfds, kept open so their pids cannot be reused until killed
    try:
        frontier = [(pid, TASKS / str(tid)) for pid in _children(TASKS / str(tid))]
        while frontier:
            pid, parent = frontier.pop()
            if (pidfd := _pinned(pid, parent)) is None:
                continue
            _signal(pidfd, signal.SIGSTOP)  # it starts nothing more while its own children are read
            stopped.append(pidfd)
            frontier.extend((child, task) for task in _tasks(pid) for child in _children(task))
        for pidfd in stopped:
            _signal(pidfd, signal.SIGKILL)
        return len(stopped)
    finally:
        for pidfd in stopped:
            os.close(pidfd)


def sweep_until_done(thread: threading.Thread, tid: int) -> None:
    """Kill `tid`'s children now, and again every `SWEEP_EVERY` seconds until `thread` ends (in a daemon
    thread of its own: an abandoned tool may start another program after the first is killed)."""

    def sweep() -> None:
        while True:
            kill_thread_children(tid)
            thread.join(SWEEP_EVERY)
            if not thread.is_alive():
                return

    kill_thread_children(tid)
    threading.Thread(target=sweep, name=f"sweep:{thread.name}", daemon=True).start()


def _children(task: Path) -> list[int]:
    try:
        return [int(pid) for pid in (task / "children").read_text().split()]
    except OSError:  # not Linux, the thread or process gone, or no CONFIG_PROC_CHILDREN
        return []


def _tasks(pid: int) -> list[Path]:
    try:
        return list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []


def _pinned(pid: int, parent: Path) -> int | None:
    """A pidfd for `pid` if it is (still, once pinned) a child of `parent`, else None."""
    try:
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):  # gone, or no pidfds (not Linux, or a kernel before 5.3)
        return None
    if pid in _children(parent):
        return pidfd
    os.close(pidfd)
    return None


def _signal(pidfd: int, number: signal.Signals) -> None:
    with contextlib.suppress(OSError):  # already gone; or setuid (sudo): not ours to signal
        signal.pidfd_send_signal(pidfd, number)
