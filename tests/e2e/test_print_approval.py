"""`-p` and `ask` tools: denied unless `--allow TOOL` or a config pattern lets them run (real subprocesses)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", "--offline", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def configure(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


def test_ask_tool_is_denied_in_print_runs_without_allow(isolated_home: Path, tmp_path: Path) -> None:
    done = run(["-p", 'run "touch made-by-shell"'], isolated_home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[tool] run_shell(" in done.stderr and " denied: " in done.stderr and "--allow run_shell" in done.stderr
    assert not (tmp_path / "made-by-shell").exists()


def test_allow_lets_the_tool_run(isolated_home: Path, tmp_path: Path) -> None:
    done = run(
        ["-p", 'run "touch made-by-shell"', "--allow", "run_shell", "--allow", "no_such_tool"], isolated_home, tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "[tool] run_shell(" in done.stderr and " done: exit status 0" in done.stderr
    assert (tmp_path / "made-by-shell").exists()
    assert "--allow no_such_tool: there is no tool called no_such_tool" in done.stderr


def test_allow_without_print_is_refused(isolated_home: Path, tmp_path: Path) -> None:
    done = run(["--allow", "run_shell", "plugins"], isolated_home, tmp_path)
    assert done.returncode == 2 and "--allow is for -p runs" in done.stderr


def test_config_patterns_let_matching_commands_run_and_nothing_chained(isolated_home: Path, tmp_path: Path) -> None:
    configure(isolated_home, '[tools.run_shell]\nallow = ["touch allowed-*"]\n')
    done = run(["-p", 'run "touch allowed-1"'], isolated_home, tmp_path)
    assert " done: exit status 0" in done.stderr, done.stderr
    assert (tmp_path / "allowed-1").exists()
    chained = run(["-p", 'run "touch allowed-2; touch sneaky"'], isolated_home, tmp_path)
    assert " denied: " in chained.stderr, chained.stderr
    assert not (tmp_path / "allowed-2").exists() and not (tmp_path / "sneaky").exists()


def test_an_allowed_edit_prints_its_edit_line(isolated_home: Path, tmp_path: Path) -> None:
    done = run(["-p", "create hello.py that prints hi", "--allow", "write_file"], isolated_home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[tool] write_file(" in done.stderr and "\n[edit] hello.py +1 −0\n" in done.stderr, done.stderr
    assert (tmp_path / "hello.py").read_text() == "print('hi')\n"
