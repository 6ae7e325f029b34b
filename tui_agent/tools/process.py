"""Provides `run_program`: run an external program for a tool, safely.

No stdin, output captured (stdout and stderr together, capped), an environment scrubbed of anything named
like a secret, its own process group — killed whole when the calling task is cancelled (which is how a
timeout reaches it: wrap the call in `asyncio.timeout`, as the tool runner does).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui_agent import sandbox

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
READ_CHUNK = 65536
PIPE_GRACE = 0.5
EXIT_POLL = 0.02
"""Seconds between looks at whether the program has exited."""


@dataclass(frozen=True)
class ProgramResult:
    """How the program ended and what it wrote."""

    returncode: int
    output: str
    truncated_bytes: int = 0


def scrubbed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment minus every variable whose name looks like it holds a secret."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if not SECRET_NAME.search(name)}


async def run_program(
    command: str | Sequence[str],
    *,
    cwd: Path | None = None,
    output_cap: int = 32768,
    shell: bool = False,
) -> ProgramResult:
    """Run `command` (a shell string with `shell=True`, else an argv list) and collect its output."""
    process = await _started(command, cwd, shell)
    collected = bytearray()
    reader = asyncio.ensure_future(_read_capped(process, collected, output_cap))
    try:
        returncode = await _exit_status(process)
        await _finish_reading(process, reader)
    except BaseException:
        await _stop(process, reader)
        raise
    await _stop(process, reader)  # children left in the background must not outlive the call
    return ProgramResult(returncode, _explained(_decode(collected), returncode, cwd), _dropped(reader))


def _explained(output: str, returncode: int, cwd: Path | None) -> str:
    """The output, with what the sandbox blocked said plainly at its end when a sandboxed program failed."""
    if returncode == 0 or (policy := sandbox.current()) is None:
        return output
    if not (lines := sandbox.blocked_lines(output, policy, cwd or Path.cwd())):
        return output
    sandbox.report_blocked(lines)
    return output.rstrip("\n") + "\n" + "\n".join(f"[{line}]" for line in lines)


async def _started(command: str | Sequence[str], cwd: Path | None, shell: bool) -> asyncio.subprocess.Process:
    """`_start`, finished even when the call is cancelled meanwhile, and then its whole group killed.

    A cancel that reaches asyncio's start (it is still connecting the pipes after the fork) makes asyncio
    kill the program's own pid only: what a shell started in that moment (`sleep 60 &`) would live on, and
    the cancel itself would wait until that orphan closed the output pipe. So the start runs to its end,
    shielded, and the group it made is killed before the cancel goes on.
    """
    starting = asyncio.ensure_future(_start(command, cwd, shell))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        starting.add_done_callback(_kill_started)  # also if this task is cancelled again while it waits
        await asyncio.wait({starting})
        if not starting.cancelled() and starting.exception() is None:
            await _kill_group(starting.result())
        raise


def _kill_started(starting: asyncio.Future[asyncio.subprocess.Process]) -> None:
    if not starting.cancelled() and starting.exception() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(starting.result().pid, signal.SIGKILL)


async def _start(command: str | Sequence[str], cwd: Path | None, shell: bool) -> asyncio.subprocess.Process:
    """Start with no stdin, stdout+stderr in one pipe, scrubbed environment, in a new process group — inside
    the OS sandbox when the tool runner says this call's programs run there (`tui_agent.sandbox.current`)."""
    if shell and not isinstance(command, str):
        raise TypeError("shell=True needs the command as one string")
    argv = ["/bin/sh", "-c", command] if isinstance(command, str) and shell else _argv(command)
    policy = sandbox.current()
    if policy is None:
        return await _exec(argv, cwd, scrubbed_env(), None)
    with sandbox.prepare(policy, cwd or Path.cwd()) as launch:
        return await _exec(launch.argv(argv), cwd, launch.env(scrubbed_env()), launch.preexec_fn)


def _argv(command: str | Sequence[str]) -> list[str]:
    return [command] if isinstance(command, str) else list(command)


async def _exec(
    argv: Sequence[str], cwd: Path | None, env: dict[str, str], preexec_fn: Callable[[], None] | None
) -> asyncio.subprocess.Process:
    pipe, stdout, devnull = asyncio.subprocess.PIPE, asyncio.subprocess.STDOUT, asyncio.subprocess.DEVNULL
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=devnull,
        stdout=pipe,
        stderr=stdout,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=preexec_fn,
    )


async def _exit_status(process: asyncio.subprocess.Process) -> int:
    """The program's exit status as soon as it exits.

    Not `process.wait()`: on Python 3.11 that also waits for the output pipe to close, which a background
    child (`server &`) holds open — the call would hang until the tool's timeout.
    """
    while process.returncode is None:  # noqa: ASYNC110 - asyncio signals the exit only through wait()
        await asyncio.sleep(EXIT_POLL)
    return process.returncode


async def _finish_reading(process: asyncio.subprocess.Process, reader: asyncio.Future[int]) -> None:
    """Collect the rest of the output; a background child holding the pipe open gets a short grace."""
    try:
        await asyncio.wait_for(asyncio.shield(reader), PIPE_GRACE)
    except TimeoutError:
        await _kill_group(process)
        await asyncio.wait({reader}, timeout=PIPE_GRACE)


async def _stop(process: asyncio.subprocess.Process, reader: asyncio.Future[int]) -> None:
    await _kill_group(process)
    if not reader.done():
        await asyncio.wait({reader}, timeout=PIPE_GRACE)
        reader.cancel()


def _dropped(reader: asyncio.Future[int]) -> int:
    return reader.result() if reader.done() and not reader.cancelled() and reader.exception() is None else 0


async def _read_capped(process: asyncio.subprocess.Process, collected: bytearray, cap: int) -> int:
    """Read until EOF, keeping `cap` bytes; return how many more were read and dropped."""
    assert process.stdout is not None
    dropped = 0
    while chunk := await process.stdout.read(READ_CHUNK):
        room = max(0, cap - len(collected))
        collected.extend(chunk[:room])
        dropped += len(chunk) - min(room, len(chunk))
    return dropped


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the program and everything it started in its process group, then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await asyncio.shield(process.wait())


def _decode(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")
