"""Files changed by a tool that does not say what it changed (a shell command, an MCP or plugin tool) are found
by a scan of the working directory before and after its call and put on the call, a failed one too; a folder
over the bound, or a file too big to keep, makes the call "not undoable", said in its result. A real runner, a
tool that runs a real shell, real files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tui_agent.config import ToolsSettings
from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools import tool
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner
from tui_agent.tools.scan import Watched, WorkTree, walk


@tool(approval="never", effect="command")
def sh(command: str) -> str:
    """Run `command` in a shell."""
    done = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"exit {done.returncode}")
    return done.stdout


@tool(approval="never", effect="read")
def peek(command: str) -> str:
    """Run `command`, said to change nothing."""
    subprocess.run(command, shell=True, check=False)
    return "looked"


def runner(**settings: int) -> ToolRunner:
    return ToolRunner(ToolRegistry.from_functions([sh, peek], ToolsSettings(**settings)))


async def call(run: ToolRunner, command: str, name: str = "sh") -> ToolCall:
    [done] = await run.run([ToolCall("c1", name, arguments={"command": command})], lambda _: None)
    return done


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "a.txt").write_bytes(b"one\r\n")
    (folder / "keep.txt").write_text("same\n")
    (folder / ".git").mkdir()
    monkeypatch.chdir(folder)
    return folder


async def test_a_commands_changes_are_found_and_put_on_its_call(work: Path) -> None:
    run = runner()
    done = await call(run, "printf 'two\\n' > src/a.txt; printf 'new' > b.txt; rm keep.txt; echo x > .git/HEAD")
    assert done.status is ToolStatus.DONE and "not undoable" not in (done.result or "")
    assert list(done.file_changes) == [  # in path order
        FileChange("b.txt", None, b"new"),
        FileChange("keep.txt", b"same\n", None),
        FileChange("src/a.txt", b"one\r\n", b"two\n"),
    ]  # byte-exact; .git is not watched
    again = await call(run, "printf 'three' > src/a.txt; false")  # a failed call's changes are kept too
    assert again.status is ToolStatus.FAILED
    assert again.file_changes == (FileChange("src/a.txt", b"two\n", b"three"),)  # "before": what the last left
    assert (await call(run, "echo hi")).file_changes == ()
    assert (await call(run, "echo x > c.txt", name="peek")).file_changes == ()  # a read tool is trusted


async def test_over_the_bound_a_call_is_not_undoable_and_says_so(work: Path) -> None:
    done = await call(runner(scan_max_files=1), "echo x > b.txt")
    assert "[not undoable: the working directory has more than 1 files" in (done.result or "")
    (work / "big.bin").write_bytes(b"x" * 2000)
    done = await call(runner(scan_max_bytes=1000), "echo y > big.bin")
    assert "[not undoable: the content of big.bin before the call was not kept" in (done.result or "")
    assert done.file_changes == ()  # its "before" is unknown: nothing claims to undo it


def test_the_tree_keeps_up_with_the_files_between_calls(work: Path) -> None:
    tree = WorkTree(max_files=100, max_bytes=1000)
    tree.after(tree.before())
    (work / "keep.txt").write_text("edited by the person\n")  # between two calls: the next "before"
    (work / "big.bin").write_bytes(b"x" * 2000)  # too big to keep
    before = tree.before()
    (work / "keep.txt").write_text("changed by the call\n")
    (work / "src" / "new.txt").write_text("made")
    assert tree.after(before) == Watched(
        (
            FileChange("keep.txt", b"edited by the person\n", b"changed by the call\n"),
            FileChange("src/new.txt", None, b"made"),
        )
    )
    (work / "big.bin").write_bytes(b"small")  # small enough now: kept from the next scan on
    before = tree.before()
    (work / "big.bin").unlink()
    assert tree.after(before) == Watched((FileChange("big.bin", b"small", None),))
    over = walk(work, 1)
    assert not over.complete and len(over.files) == 1
