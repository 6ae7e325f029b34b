"""A sync tool's own programs (`subprocess.run` in its thread) end with its call: cancel and timeout kill them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.tools.test_process import alive, read_pid, wait_until_gone
from tui_agent.config import ToolsSettings
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools import tool
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@tool(approval="never")
def build(folder: str) -> str:
    """Runs a long build the way plugin code does, with subprocess.run.

    Args:
        folder: Where the build writes the pids of its shell (shell-1.pid) and of the shell's child (child-1.pid).
    """
    script = f"sleep 600 & echo $! > {folder}/child-1.pid; echo $$ > {folder}/shell-1.pid; wait"
    subprocess.run(["sh", "-c", script], check=False)
    return "built"


@tool(approval="never")
def build_again(folder: str) -> str:
    """Runs a long build, and once it ends (killed or not) a second one: plugin code that retries.

    Args:
        folder: Where each build's pid is written (again-1.pid, again-2.pid), as soon as it is started.
    """
    for number in (1, 2):
        program = subprocess.Popen(["sleep", "600"])
        (Path(folder) / f"again-{number}.pid").write_text(str(program.pid))
        program.wait()
    return "built"


async def wait_for_pid(path: Path) -> int:
    for _ in range(6000):  # bounded: the thread starts the program at once, unless the machine is very busy
        if (pid := read_pid(path)) is not None:
            return pid
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path.name} was never written")


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    """The folder the tool writes pids to; whatever they name is killed at the end, whatever the outcome."""
    yield tmp_path
    for file in tmp_path.glob("*.pid"):
        if (pid := read_pid(file)) is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def runner(timeout: float | None = None) -> ToolRunner:
    return ToolRunner(ToolRegistry.from_functions([build, build_again], ToolsSettings()), timeout=timeout)


async def test_cancelling_a_sync_tool_kills_its_program_and_what_that_started(pids: Path) -> None:
    call = ToolCall("c", "build", arguments={"folder": str(pids)})
    states: list[ToolCall] = []
    task = asyncio.create_task(runner().run([call], states.append))
    shell, child = await wait_for_pid(pids / "shell-1.pid"), await wait_for_pid(pids / "child-1.pid")
    assert alive(shell) and alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert states[-1].status is ToolStatus.INTERRUPTED
    assert await wait_until_gone(shell), "the tool's program outlived its cancelled call"
    assert await wait_until_gone(child), "what the tool's program started outlived the call"


async def test_an_abandoned_sync_tool_cannot_start_another_program(pids: Path) -> None:
    call = ToolCall("c", "build_again", arguments={"folder": str(pids)})
    task = asyncio.create_task(runner().run([call], lambda state: None))
    first = await wait_for_pid(pids / "again-1.pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(first)
    second = await wait_for_pid(pids / "again-2.pid")  # its first program killed, the thread goes on to the next
    assert await wait_until_gone(second), "the abandoned thread's next program was left running"


async def test_a_timed_out_sync_tool_leaves_no_program_behind(pids: Path) -> None:
    call = ToolCall("c", "build", arguments={"folder": str(pids)})
    [result] = await runner(timeout=1.0).run([call], lambda state: None)
    assert result.status is ToolStatus.FAILED and "timed out after 1 s" in result.outcome
    for name in ("shell-1.pid", "child-1.pid"):
        if (pid := read_pid(pids / name)) is not None:  # a busy machine may time out before the shell runs
            assert await wait_until_gone(pid), f"{name} outlived the timed-out call"
