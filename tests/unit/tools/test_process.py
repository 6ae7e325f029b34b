"""External programs: scrubbed environment, no stdin, capped output, process group killed on timeout/cancel."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from tests.unit.tools.helpers import shipped
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools.process import run_program, scrubbed_env
from tui_agent.tools.runner import ToolRunner


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_until_gone(pid: int) -> bool:
    for _ in range(500):  # the kill is immediate; reaping an orphan by init can take a moment
        if not alive(pid):
            return True
        await asyncio.sleep(0.01)
    return False


def read_pid(path: Path) -> int | None:
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text else None


async def wait_for_file(path: Path) -> int:
    while (pid := read_pid(path)) is None:
        await asyncio.sleep(0.01)
    return pid


def test_scrubbed_env_drops_secret_names() -> None:
    env = scrubbed_env(
        {
            "PATH": "/bin",
            "OPENAI_API_KEY": "k",
            "GH_TOKEN": "t",
            "my_secret": "s",
            "DB_PASSWORD": "p",
            "HOME": "/h",
            "KEYBOARD": "dropped too (contains KEY)",
        }
    )
    assert env == {"PATH": "/bin", "HOME": "/h"}


async def test_secret_canary_is_not_visible_to_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CANARY_API_KEY", "canary-7f3a")
    monkeypatch.setenv("CANARY_TOKEN", "canary-7f3a")
    monkeypatch.setenv("VISIBLE_SETTING", "plain-value")
    runner = ToolRunner(shipped())
    runner.preapproved = frozenset({"run_shell"})
    [result] = await runner.run([ToolCall("c", "run_shell", arguments={"command": "env"})], lambda state: None)
    assert result.status == ToolStatus.DONE
    assert "plain-value" in result.outcome
    assert "canary-7f3a" not in result.outcome


async def test_no_stdin_and_exit_status() -> None:
    result = await run_program("cat; echo done; exit 4", shell=True)
    assert result.returncode == 4
    assert result.output == "done\n"


async def test_stdout_and_stderr_are_captured_and_capped() -> None:
    result = await run_program(
        ["sh", "-c", "echo out; echo err >&2; head -c 5000 /dev/zero | tr '\\0' y"], output_cap=100
    )
    assert result.output.startswith("out\nerr\n") and len(result.output) == 100
    assert result.truncated_bytes == 5008 - 100


async def test_background_child_does_not_outlive_the_call(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    # The guard is no budget: without the fix the call waits for the child (600 s) to close the pipe.
    result = await asyncio.wait_for(run_program(f"sleep 600 & echo $! > {pid_file}; echo started", shell=True), 60)
    assert result.output == "started\n"
    assert await wait_until_gone(int(pid_file.read_text()))


def started_by_us(marker: str) -> bool:
    """Whether a child of this process runs a command line containing `marker`."""
    for task in Path("/proc/self/task").iterdir():
        for pid in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
    return False


def block_the_loop_until(path: Path) -> int:
    """Wait for `path` to hold a pid without letting the event loop run: asyncio cannot finish anything
    meanwhile (a program's start stays unfinished) while the program, a process of its own, goes on."""
    deadline = time.monotonic() + 60
    while (pid := read_pid(path)) is None:
        assert time.monotonic() < deadline, f"{path.name} was never written"
        time.sleep(0.01)
    return pid


async def test_a_cancel_while_the_shell_is_starting_kills_what_it_started(tmp_path: Path) -> None:
    marker = f"start-{tmp_path.name}"
    command = f": {marker}; sleep 600 & echo $! > {tmp_path / 'child.pid'}; wait"
    task = asyncio.create_task(run_program(command, shell=True))
    while not started_by_us(marker):  # one loop turn at a time: the start is still connecting its pipes
        assert not task.done(), task
        await asyncio.sleep(0)
    child = block_the_loop_until(tmp_path / "child.pid")  # the shell has started `sleep` meanwhile
    task.cancel()  # lands in asyncio's start, which kills the shell's pid alone
    try:
        # Bounded, not timed: asyncio's start waits for its pipe to close, which the orphan holds open.
        await asyncio.wait({task}, timeout=60)
        assert task.cancelled(), "the cancel waited for the shell's child, which lives on"
        assert await wait_until_gone(child), "the shell's child outlived the cancelled start"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


async def test_timeout_kills_the_process_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    registry = shipped()
    runner = ToolRunner(registry, timeout=1.0)
    runner.preapproved = frozenset({"run_shell"})
    command = "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait"
    [result] = await runner.run([ToolCall("c", "run_shell", arguments={"command": command})], lambda state: None)
    assert result.status == ToolStatus.FAILED and "timed out after 1 s" in result.outcome
    for name in ("child.pid", "shell.pid"):
        assert await wait_until_gone(int((tmp_path / name).read_text()))


async def test_cancel_kills_the_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = ToolRunner(shipped())
    runner.preapproved = frozenset({"run_shell"})
    states: list[ToolCall] = []
    command = "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait"
    task = asyncio.create_task(runner.run([ToolCall("c", "run_shell", arguments={"command": command})], states.append))
    shell_pid = await wait_for_file(tmp_path / "shell.pid")
    child_pid = await wait_for_file(tmp_path / "child.pid")
    assert alive(shell_pid) and alive(child_pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(shell_pid) and await wait_until_gone(child_pid)
    assert states[-1].status == ToolStatus.INTERRUPTED
    assert os.getpgid(os.getpid()) != shell_pid  # the shell had its own group, never ours
