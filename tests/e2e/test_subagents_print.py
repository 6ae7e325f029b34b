"""`-p` with sub-agents (real subprocesses, the built-in offline model): the sub-agent's progress on stderr after
its name, its answer reaching stdout through its caller's, and its approvals answered by the `--allow` policy."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print_approval import run


def test_a_delegated_answer_reaches_stdout_and_the_sub_agents_tool_calls_are_on_stderr(
    isolated_home: Path, tmp_path: Path
) -> None:
    done = run(["-p", "ask the researcher what the weather is in Paris"], isolated_home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "The researcher says:" in done.stdout and "The weather in Paris is" in done.stdout
    assert "[researcher] asked: What the weather is in Paris" in done.stderr
    assert "[researcher] [tool] get_current_weather(" in done.stderr
    assert "[tool] ask_researcher(" in done.stderr


def test_a_sub_agents_approval_is_denied_without_allow_and_given_with_it(isolated_home: Path, tmp_path: Path) -> None:
    denied = run(["-p", 'ask the coder to run "touch made-by-coder"'], isolated_home, tmp_path)
    assert denied.returncode == 0, denied.stderr
    assert "[coder] [tool] run_shell(" in denied.stderr and " denied: " in denied.stderr
    assert "--allow run_shell" in denied.stderr
    assert not (tmp_path / "made-by-coder").exists()

    allowed = run(["-p", 'ask the coder to run "touch made-by-coder"', "--allow", "run_shell"], isolated_home, tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert "[coder] [tool] run_shell(" in allowed.stderr and " done: exit status 0" in allowed.stderr
    assert (tmp_path / "made-by-coder").exists()
