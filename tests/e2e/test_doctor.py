"""`tui-agent doctor` as a user runs it: against the offline model, a dead port, a server refusing the key, and
a broken config file. Every check is reported whatever fails before it; the exit status says whether any
failed; no key is ever printed."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_agent.offline.server import BackgroundServer

KEY = "sk-doctortest0123456789abcdefghijklmnop"
EVERY_CHECK = ("config", "endpoint", "plugins", "mcp", "history", "sandbox")


def doctor(
    home: Path, *args: str, key: str | None = None, key_env: str = "OPENAI_API_KEY"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    if key is not None:
        env[key_env] = key
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", *args, "doctor", "--timeout", "5"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _checked(stdout: str) -> dict[str, str]:
    """What -> level, for the check lines (not the indented fixes)."""
    return {line.split()[1]: line.split()[0] for line in stdout.splitlines() if not line.startswith(" ")}


def test_with_no_endpoint_the_offline_model_is_checked_and_everything_is_ok(isolated_home: Path) -> None:
    done = doctor(isolated_home)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = _checked(done.stdout)
    assert set(EVERY_CHECK) <= set(checked) and set(checked.values()) == {"ok"}
    assert "built-in offline model" in done.stdout


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A port bound and never listened on: a connection is refused, and no other xdist worker's server can
    take it while the test runs (as it could a port picked and let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def test_a_dead_port_fails_the_endpoint_and_the_rest_is_still_reported(isolated_home: Path, dead_port: int) -> None:
    url = f"http://127.0.0.1:{dead_port}/v1"
    done = doctor(isolated_home, "--base-url", url)
    assert done.returncode == 1
    checked = _checked(done.stdout)
    assert checked["endpoint"] == "fail" and set(EVERY_CHECK) <= set(checked)
    assert all(checked[what] == "ok" for what in ("config", "plugins", "mcp", "history"))
    line = next(line for line in done.stdout.splitlines() if line.startswith("fail  endpoint"))
    assert f"cannot reach {url}" in line
    assert "base_url" in done.stdout  # what to do


def test_a_rejected_key_names_its_variable_and_never_prints_the_key(isolated_home: Path) -> None:
    refusal = {"status": 401, "error_message": f"Incorrect API key provided: {KEY}"}
    with BackgroundServer({"replies": [refusal]}) as server:
        done = doctor(isolated_home, "--base-url", server.base_url, "--model", "offline", key=KEY)
    assert done.returncode == 1
    assert _checked(done.stdout)["key"] == "fail"
    assert "rejected: HTTP 401 with the key in $OPENAI_API_KEY" in done.stdout
    assert "put a valid API key in $OPENAI_API_KEY" in done.stdout
    assert KEY not in done.stdout + done.stderr and KEY[:12] not in done.stdout
    assert _checked(done.stdout)["history"] == "ok"


def test_the_rejected_key_names_the_variable_the_config_file_chose(isolated_home: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('api_key_env = "LLM_PASS"\n')
    with BackgroundServer({"replies": [{"status": 403}]}) as server:
        done = doctor(isolated_home, "--base-url", server.base_url, key=KEY, key_env="LLM_PASS")
    assert done.returncode == 1
    assert "rejected: HTTP 403 with the key in $LLM_PASS" in done.stdout and KEY not in done.stdout


def test_a_broken_config_file_names_each_problem_with_its_line(isolated_home: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "offline"\n\n[tools]\ntimeout = "slow"\n[ui]\nreasoning = "sideways"\n')
    done = doctor(isolated_home)
    assert done.returncode == 1
    problems = [line for line in done.stdout.splitlines() if line.startswith("fail  config")]
    assert len(problems) == 2
    assert "tools.timeout (line 4)" in problems[0] and "ui.reasoning (line 6)" in problems[1]
    assert _checked(done.stdout)["endpoint"] == "ok"  # the rest is checked with the valid values

    config.write_text('model = "offline"\ntheme = \n')
    syntax = doctor(isolated_home)
    assert syntax.returncode == 1 and "(at line 2, column 9)" in syntax.stdout


def test_plugin_import_problems_and_each_mcp_server_are_reported(isolated_home: Path) -> None:
    from tests.fixtures.mcp_servers.config import toml_entry

    plugins = isolated_home / "more_plugins"
    plugins.mkdir(parents=True)
    (plugins / "broken_tool.py").write_text("import no_such_module_anywhere\n")
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        toml_entry("echoer", "--task-tools") + f'[mcp_servers.dies]\ncommand = "{sys.executable}"\n'
        'args = ["-c", "import sys; sys.exit(3)"]\nstartup_timeout = 5\n'
    )
    done = doctor(isolated_home, "--plugins", str(plugins))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    broken = next(line for line in lines if line.startswith("fail  plugin"))
    assert "broken_tool.py" in broken and "no_such_module_anywhere" in broken
    echoer = next(line for line in lines if line.startswith("ok    mcp echoer"))
    assert "echo" in echoer and "long_job" not in echoer  # its tools, listed; not those it cannot run
    tasks = next(line for line in lines if line.startswith("warn  mcp echoer"))
    assert "2 tools need task support, which tui-agent does not offer yet: long_job, batch_job" in tasks
    assert any(line.startswith("fail  mcp dies") for line in lines)
    assert _checked(done.stdout)["endpoint"] == "ok" and _checked(done.stdout)["history"] == "ok"


def test_a_damaged_history_file_fails_and_is_left_as_it_was(isolated_home: Path) -> None:
    history = isolated_home / "data" / "history.db"
    history.parent.mkdir(parents=True)
    junk = b"this is not a database " * 400
    history.write_bytes(junk)
    done = doctor(isolated_home)
    assert done.returncode == 1
    line = next(line for line in done.stdout.splitlines() if line.startswith("fail  history"))
    assert "cannot be read as a database" in line and "move" in done.stdout
    assert history.read_bytes() == junk  # a check: nothing moved aside or rewritten
    assert [p.name for p in history.parent.iterdir() if p.name.startswith("history")] == ["history.db"]


def test_a_history_file_held_by_a_writer_is_reported_locked(isolated_home: Path) -> None:
    history = isolated_home / "data" / "history.db"
    assert (
        subprocess.run(
            [sys.executable, "-m", "tui_agent", "--offline", "-p", "hello"],
            capture_output=True,
            env={**os.environ, "TUI_AGENT_HOME": str(isolated_home)},
            timeout=120,
        ).returncode
        == 0
    )
    writer = sqlite3.connect(history, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        checked = doctor(isolated_home)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert "warn  history" in checked.stdout and "locked by another process" in checked.stdout
    assert checked.returncode == 0  # a warning is no failure
    assert "ok    history" in doctor(isolated_home).stdout


def test_a_key_in_the_environment_and_no_base_url_checks_openai_as_a_chat_would(isolated_home: Path) -> None:
    done = doctor(isolated_home, key=KEY)  # a chat goes to api.openai.com then, not to the offline model
    line = next(line for line in done.stdout.splitlines() if line.split()[1:2] == ["endpoint"])
    assert "https://api.openai.com/v1" in line and "$OPENAI_API_KEY is set" in line
    assert "offline" not in done.stdout
    assert KEY not in done.stdout + done.stderr


def test_with_no_endpoint_the_model_checked_is_the_one_a_chat_asks_for(isolated_home: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "llama3.2"\n')
    done = doctor(isolated_home)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.split()[1:2] == ["model"])
    assert "llama3.2" in line and "none configured" not in line
