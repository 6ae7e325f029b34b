"""Plugins and tools that try to end the process: `-p` and `tui-agent plugins` as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

INTERRUPTS_AT_IMPORT = "raise KeyboardInterrupt\n"
INTERRUPTS_WHEN_CALLED = '''
from tui_agent.tools import tool


@tool(approval="never")
def snap_tool(word: str) -> str:
    """Raises KeyboardInterrupt when called.

    Args:
        word: Anything.
    """
    raise KeyboardInterrupt
'''


def run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def faulty(tmp_path: Path) -> Path:
    folder = tmp_path / "faulty"
    folder.mkdir()
    (folder / "interrupts.py").write_text(INTERRUPTS_AT_IMPORT)
    (folder / "snaps.py").write_text(INTERRUPTS_WHEN_CALLED)
    return folder


def test_print_run_survives_keyboard_interrupt_at_import_and_at_call(isolated_home: Path, faulty: Path) -> None:
    done = run(["--offline", "--plugins", str(faulty), "-p", "use snap_tool 'now'"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "interrupts.py: raised KeyboardInterrupt while being imported" in done.stderr
    assert "[tool] snap_tool(" in done.stderr and " failed: " in done.stderr and "KeyboardInterrupt" in done.stderr
    assert done.stdout.strip()


def test_plugins_command_reports_keyboard_interrupt_at_import(isolated_home: Path, faulty: Path) -> None:
    done = run(["plugins", "--plugins", str(faulty), "--json"], isolated_home)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    problems = {Path(problem["file"]).name: problem["message"] for problem in report["problems"]}
    assert problems["interrupts.py"].startswith("raised KeyboardInterrupt while being imported")
    assert "snap_tool" in [tool["name"] for tool in report["tools"]]


EXITS_AT_IMPORT = "import os\n\nos._exit(3)\n"
HEALTHY = '''
from tui_agent.tools import tool


@tool(approval="never")
def healthy_tool() -> str:
    """Fine."""
    return "fine"
'''


def test_a_plugin_that_ends_the_process_at_import_is_named_and_skipped_until_it_changes(
    isolated_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "exits"
    folder.mkdir()
    (folder / "healthy.py").write_text(HEALTHY)
    exits = folder / "exits.py"
    exits.write_text(EXITS_AT_IMPORT)
    first = run(["--offline", "--plugins", str(folder), "-p", "hi"], isolated_home)
    assert first.returncode == 3  # nothing can catch os._exit
    second = run(["--offline", "--plugins", str(folder), "-p", "hi"], isolated_home)
    assert second.returncode == 0, second.stderr
    assert f"{exits}: ended a run of tui-agent while being imported" in second.stderr
    assert "skipped until the file changes" in second.stderr and second.stdout.strip()
    listed = json.loads(run(["plugins", "--plugins", str(folder), "--json"], isolated_home).stdout)
    problems = {Path(problem["file"]).name: problem["message"] for problem in listed["problems"]}
    assert problems == {"exits.py": problems["exits.py"]} and "ended a run" in problems["exits.py"]
    assert {"healthy_tool", "run_shell"} <= {tool["name"] for tool in listed["tools"]}
    stat = exits.stat()
    os.utime(exits, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # touched: tried again
    assert run(["--offline", "--plugins", str(folder), "-p", "hi"], isolated_home).returncode == 3
    exits.write_text("# fixed\n")
    fixed = run(["plugins", "--plugins", str(folder), "--json"], isolated_home)
    assert [problem["message"] for problem in json.loads(fixed.stdout)["problems"]] == ["defines no @tool functions"]
