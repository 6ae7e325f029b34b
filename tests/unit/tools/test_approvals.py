"""What may run without asking: "always" for one session, exact commands, config patterns, `--allow`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui_agent.config import ToolsSettings, resolve_settings
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools import tool
from tui_agent.tools.approvals import pattern_allows
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@tool(approval="ask", command="command")
def sh(command: str) -> str:
    """Pretends to run a command.

    Args:
        command: The command line.
    """
    return f"ran {command}"


@tool(approval="ask")
def careful(word: str) -> str:
    """An ordinary tool that asks."""
    return word


@tool(approval="deny")
def never_ever() -> str:
    """Denied by its own policy."""
    return "no"


class User:
    """Answers every question with `decision` and remembers what was asked."""

    def __init__(self, decision: Decision) -> None:
        self.decision, self.asked = decision, []  # type: Decision, list[ToolCall]

    async def __call__(self, request: ToolCall) -> Decision:
        self.asked.append(request)
        return self.decision


class AskingRunner(ToolRunner):
    """A runner and the user it asks (a turn passes its own question instead)."""

    def __init__(self, registry: ToolRegistry, user: User | None) -> None:
        super().__init__(registry)
        self.user = user


def runner_for(user: User | None = None, **tools_settings: Any) -> AskingRunner:
    registry = ToolRegistry.from_functions([sh, careful, never_ever], ToolsSettings.model_validate(tools_settings))
    assert registry.problems == []
    return AskingRunner(registry, user)


async def call(runner: AskingRunner, name: str, session: str = "s1", **arguments: Any) -> ToolCall:
    [result] = await runner.run([ToolCall("c1", name, arguments=arguments)], lambda state: None, runner.user, session)
    return result


async def test_always_for_a_command_like_tool_covers_the_exact_command_only() -> None:
    user = User(Decision.ALLOW_ALWAYS)
    runner = runner_for(user)
    assert (await call(runner, "sh", command="git status")).outcome == "ran git status"
    assert user.asked[0].command == "git status"
    assert (await call(runner, "sh", command="git status")).status is ToolStatus.DONE
    assert len(user.asked) == 1
    await call(runner, "sh", command="git status; touch X")
    await call(runner, "sh", command="git status --short")
    assert [request.command for request in user.asked] == ["git status", "git status; touch X", "git status --short"]


async def test_always_for_an_ordinary_tool_covers_the_tool() -> None:
    user = User(Decision.ALLOW_ALWAYS)
    runner = runner_for(user)
    await call(runner, "careful", word="a")
    await call(runner, "careful", word="b")
    assert [request.arguments for request in user.asked] == [{"word": "a"}]
    assert user.asked[0].command is None


async def test_always_ends_with_its_session() -> None:
    user = User(Decision.ALLOW_ALWAYS)
    runner = runner_for(user)
    await call(runner, "careful", "s1", word="a")
    await call(runner, "careful", "s1", word="b")
    await call(runner, "careful", "s2", word="c")  # a new session asks again
    await call(runner, "careful", "s1", word="d")  # and leaving a session ends its answers
    assert [request.arguments["word"] if request.arguments else None for request in user.asked] == ["a", "c", "d"]


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("git status", True),
        ("ls", False),
        ("ls -la src", True),
        ("git status --short", False),
        ("ls; rm -rf x", False),
        ("ls && rm x", False),
        ("ls || rm x", False),
        ("ls | sh", False),
        ("ls `rm x`", False),
        ("ls $(rm x)", False),
        ("ls ${x:=y}", False),
        ("ls > x", False),
        ("ls < x", False),
        ("ls x &", False),
        ("ls x\nrm x", False),
        ("ls x\rrm x", False),
    ],
)
async def test_config_patterns_allow_whole_commands_without_shell_syntax(command: str, runs: bool) -> None:
    runner = runner_for(None, sh={"allow": ["git status", "ls *"]})  # no approver: as in -p
    result = await call(runner, "sh", command=command)
    assert result.status is (ToolStatus.DONE if runs else ToolStatus.DENIED), result.outcome


async def test_patterns_apply_to_command_like_tools_only() -> None:
    runner = runner_for(None, careful={"allow": ["*"]})
    assert (await call(runner, "careful", word="x")).status is ToolStatus.DENIED


def test_pattern_matching_is_case_sensitive_and_whole() -> None:
    assert pattern_allows(["git status"], "git status")
    assert not pattern_allows(["git status"], "GIT STATUS")
    assert not pattern_allows(["git status"], " git status x")


async def test_preapproved_tools_run_without_asking_but_deny_still_denies() -> None:
    runner = runner_for(None)
    runner.preapproved = frozenset({"careful", "sh", "never_ever"})
    assert (await call(runner, "careful", word="x")).status is ToolStatus.DONE
    assert (await call(runner, "sh", command="anything; at all")).status is ToolStatus.DONE
    assert (await call(runner, "never_ever")).status is ToolStatus.DENIED


async def test_without_an_approver_the_denial_names_allow() -> None:
    result = await call(runner_for(None), "careful", word="x")
    assert result.status is ToolStatus.DENIED and "--allow careful" in result.outcome


def test_command_must_name_a_str_parameter() -> None:
    @tool(command="cmd")
    def missing(command: str) -> str:
        """No parameter called cmd."""
        return command

    @tool(command="count")
    def not_text(count: int) -> str:
        """Not a str."""
        return str(count)

    registry = ToolRegistry.from_functions([missing, not_text])
    assert registry.names() == []
    assert [problem.message.split(":")[0] for problem in registry.problems] == ["tool 'missing'", "tool 'not_text'"]
    assert all("must name one of its str parameters" in problem.message for problem in registry.problems)


def test_config_tool_tables(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[tools]\ntimeout = 5\nmystery = 3\n\n[tools.run_shell]\nallow = ["git status", "ls *"]\n')
    settings, problems = resolve_settings({}, path, {})
    assert problems == []
    assert settings.tools.rules_for("run_shell").allow == ["git status", "ls *"]
    assert settings.tools.rules_for("other").allow == [] and settings.tools.timeout == 5


@pytest.mark.parametrize("bad", ['allow = "git status"', 'allow = ["ls; rm"]', 'allow = ["ls $(x)"]'])
def test_invalid_allow_patterns_are_reported_with_their_line(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"[tools]\ntimeout = 5\n\n[tools.run_shell]\n{bad}\n")
    settings, problems = resolve_settings({}, path, {})
    (problem,) = problems
    assert problem.startswith(f"{path}: invalid value for tools.run_shell.allow (line 5) (")
    assert problem.endswith("; the tool run_shell is disabled until it is fixed")
    assert settings.tools.rules_for("run_shell").allow == [] and settings.tools.timeout == 5
    assert settings.tools.off_because("run_shell") == "tools.run_shell.allow (line 5)"
