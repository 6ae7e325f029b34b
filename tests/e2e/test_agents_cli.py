"""`tui-agent agents` and `-p --agent NAME` as a person runs them: the real binary, the offline model over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tui_agent import paths
from tui_agent.agents.profiles import load_catalog
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer

RESEARCHER = load_catalog([paths.shipped_dir("agents")], []).agents["researcher"]


def run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    return subprocess.run(  # out of the repo: its own AGENTS.md is not the agent's prompt under test
        [sys.executable, "-m", "tui_agent", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=home.parent,
    )


def test_agents_lists_shipped_and_own_agents_teams_and_bad_files(isolated_home: Path) -> None:
    folder = isolated_home / "config" / "agents"
    folder.mkdir(parents=True)
    (folder / "scout.toml").write_text('description = "Looks around."\ntools = ["read_*"]\n', encoding="utf-8")
    (folder / "oops.toml").write_text("name = [\n", encoding="utf-8")

    done = run(["agents"], isolated_home)

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Agents (default: assistant)\n")
    assert "  researcher     shipped\n" in out and f"      tools: {', '.join(RESEARCHER.tools)}\n" in out
    assert f"  scout          {folder / 'scout.toml'}\n      Looks around.\n" in out
    assert "      delegates: researcher, coder\n" in out
    assert "Teams\n  writer-critic  shipped\n      members: writer, critic (loop)\n" in out
    assert f"Problems\n  {folder / 'oops.toml'}: is not valid TOML" in out


def test_print_with_an_agent_sends_its_prompt_and_tools_and_stores_it(
    isolated_home: Path, offline_server: BackgroundServer
) -> None:
    done = run(["--base-url", offline_server.base_url, "--agent", "researcher", "-p", "hello"], isolated_home)

    assert done.returncode == 0, done.stderr
    body = offline_server.requests[-1].body
    assert body is not None
    assert body["messages"][0] == {"role": "system", "content": RESEARCHER.system_prompt}
    offered = {tool["function"]["name"] for tool in body["tools"]}
    assert offered and offered <= set(RESEARCHER.tools) and "run_shell" not in offered


async def test_the_agent_of_a_print_run_is_stored_with_its_session_and_listed(
    isolated_home: Path, offline_server: BackgroundServer
) -> None:
    done = run(["--base-url", offline_server.base_url, "--agent", "writer", "-p", "a post on owls"], isolated_home)
    assert done.returncode == 0, done.stderr
    store = await HistoryStore.open(isolated_home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
    finally:
        await store.close()
    assert session.agent == "writer"
    listed = run(["sessions", "list"], isolated_home)
    assert listed.returncode == 0 and "[writer] a post on owls" in listed.stdout
    assert '"agent": "writer"' in run(["sessions", "list", "--json"], isolated_home).stdout


def test_an_unknown_agent_is_refused_with_the_agents_there_are(isolated_home: Path) -> None:
    for args in (["--offline", "--agent", "nope", "-p", "hi"], ["--offline", "--agent", "nope"]):
        done = run(args, isolated_home)
        assert done.returncode == 2
        assert (
            "There is no agent 'nope'. The agents are: assistant, coder, critic, librarian, researcher, writer"
            in done.stderr
        )
        assert "Traceback" not in done.stderr
