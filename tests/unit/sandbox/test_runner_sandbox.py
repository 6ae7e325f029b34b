"""The sandbox wired into the tool runner: `run_shell` (a command-like tool) runs inside it in auto mode and
when `[sandbox] commands` says so, other tools never do; `[sandbox]` settings become the policy; auto mode's
readiness and doctor ask the real `support()`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.unit.tools.helpers import shipped
from tui_agent.config import CommandHookSettings, HooksSettings, SandboxSettings, Settings
from tui_agent.doctor.sandbox import check_sandbox
from tui_agent.sandbox import SECRETS, current, support
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools import tool
from tui_agent.tools.command_hooks import CommandHooks
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner
from tui_agent.tools.sandboxing import configure_sandbox, confine_hooks, policy_from

needs_sandbox = pytest.mark.skipif(support().problem is not None, reason=f"no OS sandbox: {support().problem}")


@tool(approval="never", effect="read")
def policy_seen() -> str:
    """Say whether this call runs under a sandbox policy."""
    return f"policy: {current()}"


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    registry = ToolRegistry.from_functions([policy_seen])
    run_shell = shipped().get("run_shell")
    assert run_shell is not None
    registry.add(run_shell)  # the shipped one
    return registry


async def shell(runner: ToolRunner, command: str) -> str:
    """What `run_shell` answered (preapproved, as `--allow run_shell` does)."""
    runner.preapproved = frozenset({"run_shell"})
    [result] = await runner.run([ToolCall("c", "run_shell", arguments={"command": command})], lambda state: None)
    assert result.status is ToolStatus.DONE, result
    return result.result or ""


@needs_sandbox
async def test_run_shell_is_sandboxed_in_auto_mode_and_by_config_only(
    registry: ToolRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    monkeypatch.chdir(work)
    write = f"echo x > {outside}/file"
    runner = ToolRunner(registry)
    configure_sandbox(runner, SandboxSettings())
    assert (await shell(runner, write)).startswith("exit status 0")  # ask mode: as before
    (outside / "file").unlink()
    assert runner.permissions.switch("auto") is None  # the real sandbox is ready: auto mode may start
    blocked = await shell(runner, write)
    assert f"[blocked by the sandbox: write to {outside}/file (outside the working directory)]" in blocked, blocked
    assert not (outside / "file").exists()
    [read] = await runner.run([ToolCall("r", "policy_seen", arguments={})], lambda state: None)
    assert read.result == "policy: None"  # only command-like tools run in the sandbox
    runner.permissions.switch("ask")
    configure_sandbox(runner, SandboxSettings(commands=True, writable=[str(outside)]))
    sub_agent = runner.with_policy(None)
    assert (await shell(sub_agent, write)).startswith("exit status 0")  # configured writable folder
    assert "blocked by the sandbox: write to" in (await shell(sub_agent, f"echo x > {tmp_path}/elsewhere"))
    secret = tmp_path / ".ssh"
    secret.mkdir()
    (secret / "id_rsa").write_text("KEY")
    configure_sandbox(runner, SandboxSettings(commands=True, deny_read=[str(secret)]))
    assert f"[blocked by the sandbox: {secret}/id_rsa (a secrets folder: unreadable)]" in await shell(
        runner, f"cat {secret}/id_rsa"
    )
    network = await shell(runner, f"{sys.executable} -c 'import socket; socket.socket().bind((\"127.0.0.1\", 0))'")
    assert "[blocked by the sandbox: a network connection or another access (network is off)]" in network, network


def test_sandbox_settings_become_the_policy() -> None:
    settings = Settings.model_validate(
        {"sandbox": {"network": True, "deny_read": ["~/private"], "allow_read": ["~/.docker/"], "writable": ["/srv"]}}
    )
    policy = policy_from(settings.sandbox)
    assert policy.network and policy.writable == ("/srv",)
    assert "~/private" in policy.deny_read and "~/.ssh" in policy.deny_read and "~/.docker" not in policy.deny_read
    assert policy_from(SandboxSettings()).deny_read == SECRETS and not policy_from(SandboxSettings()).network
    with pytest.raises(ValueError, match="netwrk"):
        Settings.model_validate({"sandbox": {"netwrk": True}})


def test_doctor_and_auto_mode_say_what_the_machine_offers() -> None:
    check, found = check_sandbox(), support()
    runner = ToolRunner(shipped())
    configure_sandbox(runner, SandboxSettings())
    if found.problem is None:
        assert check.level == "ok" and check.detail.startswith("Landlock ABI")
        assert runner.permissions.why_not("auto") is None
    else:
        assert check.level == "warn" and found.problem in check.detail
        assert found.problem in (runner.permissions.why_not("auto") or "")


async def test_command_hooks_run_in_the_sandbox_when_commands_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside, work = tmp_path / "outside", tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    monkeypatch.chdir(work)
    runner = ToolRunner(ToolRegistry.from_functions([]))
    configure_sandbox(runner, SandboxSettings())
    write = CommandHookSettings(command=f"echo x > {outside}/hook.txt; echo y > inside.txt")
    hooks = CommandHooks(HooksSettings(after_tool=[write]), log_path=tmp_path / "hooks.log")
    confine_hooks(hooks, runner)
    await hooks.run("after_tool", {"tool": "t", "result": ""}, tool="t")  # ask mode: not confined
    assert (outside / "hook.txt").exists() and (work / "inside.txt").exists()
    (outside / "hook.txt").unlink()
    runner.permissions.mode = "auto"  # commands run sandboxed now, and so do hooks
    await hooks.run("after_tool", {"tool": "t", "result": ""}, tool="t")
    assert not (outside / "hook.txt").exists() and (work / "inside.txt").exists()


@needs_sandbox
async def test_a_blocked_command_is_offered_again_outside_and_the_network_per_call(
    registry: ToolRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Auto mode: a blocked call comes back as a question (what was blocked, whether the network was off);
    "keep" leaves the blocked result, "once" runs that call again unconfined (said in its result), "network"
    again in the sandbox with TCP. Ask mode with `[sandbox] commands`: the first question offers the network."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    monkeypatch.chdir(work)
    runner = ToolRunner(registry)
    configure_sandbox(runner, SandboxSettings())
    runner.permissions.switch("auto")
    asked: list[ToolCall] = []
    answers: list[Decision] = []

    async def ask(call: ToolCall) -> Decision:
        asked.append(call)
        return answers.pop(0)

    async def shell(command: str, answer: Decision) -> str:
        answers.append(answer)
        [result] = await runner.run([ToolCall("c", "run_shell", arguments={"command": command})], lambda _: None, ask)
        assert result.status is ToolStatus.DONE and not answers, result
        return result.result or ""

    write = f"echo x > {outside}/file"
    kept = await shell(write, Decision.DENY)
    assert asked[-1].status is ToolStatus.AWAITING_APPROVAL and asked[-1].network_off
    assert asked[-1].blocked == (f"blocked by the sandbox: write to {outside}/file (outside the working directory)",)
    assert kept.endswith("[not run again outside the sandbox: nobody allowed it]") and not (outside / "file").exists()
    again = await shell(write, Decision.ALLOW_ONCE)
    assert again.startswith("[run again OUTSIDE the OS sandbox, as the user allowed; in it, it was blocked: write to")
    assert "exit status 0" in again and (outside / "file").read_text() == "x\n"
    bind = f"{sys.executable} -c 'import socket; socket.socket().bind((\"127.0.0.1\", 0))'"
    networked = await shell(bind, Decision.ALLOW_NETWORK)
    assert networked.startswith("[run again in the OS sandbox with the network") and "exit status 0" in networked
    both = await shell(f"{bind} && echo x > {outside}/other", Decision.ALLOW_NETWORK)
    assert "first it was blocked: a network" in both and f"[blocked by the sandbox: write to {outside}/other" in both
    assert not (outside / "other").exists(), "the network run is still sandboxed (and not offered again)"
    count = len(asked)
    runner.permissions.switch("ask")
    configure_sandbox(runner, SandboxSettings(commands=True))
    first = await shell(bind, Decision.ALLOW_NETWORK)
    assert len(asked) == count + 1 and asked[-1].network_off and not asked[-1].blocked  # the first question
    assert first.startswith("[run in the OS sandbox with the network, as the user allowed") and "exit status 0" in first
    configure_sandbox(runner, SandboxSettings(commands=True, network=True))
    answers.append(Decision.ALLOW_ONCE)
    await runner.run([ToolCall("n", "run_shell", arguments={"command": "true"})], lambda _: None, ask)
    assert not asked[-1].network_off  # the network is on anyway: nothing to offer
