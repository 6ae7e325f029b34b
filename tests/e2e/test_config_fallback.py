"""An invalid config value on the real stack (subprocesses, real TOML files): the rest of the file still applies,
and an invalid tool setting turns its tools off — `tui-agent plugins` shows it and a `-p` run cannot call it,
even with `--allow` and a model that calls it anyway."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui_agent.offline.server import BackgroundServer

TOUCH = {
    "replies": [
        {"tool_calls": [{"id": "call_0", "name": "run_shell", "arguments": {"command": "touch made-by-shell"}}]},
        {"text": "Done."},
    ]
}


def run(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def configure(home: Path, text: str) -> Path:
    path = home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def tool_statuses(home: Path, cwd: Path) -> tuple[dict[str, str], list[str]]:
    listed = run(home, cwd, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    report = json.loads(listed.stdout)
    return {tool["name"]: tool["status"] for tool in report["tools"]}, report["notices"]


@pytest.mark.parametrize("offline_server", [TOUCH], indirect=True)
def test_a_bad_tools_table_disables_that_tool_only(
    isolated_home: Path, tmp_path: Path, offline_server: BackgroundServer
) -> None:
    path = configure(isolated_home, '[tools]\ntimeout = 5\n\n[tools.run_shell]\nallow = "touch *"\n')
    statuses, (notice,) = tool_statuses(isolated_home, tmp_path)
    assert statuses["run_shell"] == "disabled: invalid config" and statuses["get_current_weather"] == "enabled"
    assert notice.startswith(f"{path}: invalid value for tools.run_shell.allow (line 5)")
    assert notice.endswith("the tool run_shell is disabled until it is fixed")
    done = run(isolated_home, tmp_path, "--base-url", offline_server.base_url, "--allow", "run_shell", "-p", "touch it")
    assert "the tool run_shell is disabled until it is fixed" in done.stderr
    assert "[tool] run_shell(" in done.stderr and " done: " not in done.stderr
    assert not (tmp_path / "made-by-shell").exists()
    [chat, *_] = [request for request in offline_server.requests if request.path.endswith("/chat/completions")]
    assert chat.body is not None  # (no model was named: a GET /v1/models came first)
    offered = [tool["function"]["name"] for tool in chat.body["tools"]]
    assert "run_shell" not in offered and "get_current_weather" in offered


@pytest.mark.parametrize("offline_server", [TOUCH], indirect=True)
def test_a_typo_elsewhere_keeps_the_shell_disabled(
    isolated_home: Path, tmp_path: Path, offline_server: BackgroundServer
) -> None:
    configure(isolated_home, 'max_tool_rounds = "ten"\n\n[tools]\ndisabled_plugins = ["shell"]\n')
    statuses, (notice,) = tool_statuses(isolated_home, tmp_path)
    assert "run_shell" not in statuses and statuses["get_current_weather"] == "enabled"
    assert "max_tool_rounds (line 1)" in notice and notice.endswith("using the default for it")
    done = run(isolated_home, tmp_path, "--base-url", offline_server.base_url, "--allow", "run_shell", "-p", "touch it")
    assert "[tool] run_shell(" in done.stderr and " done: " not in done.stderr
    assert not (tmp_path / "made-by-shell").exists()


def test_a_bad_plugin_list_disables_every_tool(isolated_home: Path, tmp_path: Path) -> None:
    configure(isolated_home, '[tools]\ndisabled_plugins = "shell"\n')
    statuses, (notice,) = tool_statuses(isolated_home, tmp_path)
    assert statuses == {}
    assert "tools.disabled_plugins (line 2)" in notice and notice.endswith("every tool is disabled until it is fixed")
    done = run(isolated_home, tmp_path, "--offline", "-p", "What's the weather in Paris?")
    assert done.returncode == 0, done.stderr
    assert "[tool]" not in done.stderr and "every tool is disabled until it is fixed" in done.stderr
