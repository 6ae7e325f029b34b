"""`-p` with sub-agents (real subprocesses, the offline model): the sub-agent's progress on stderr after its name,
its answer reaching stdout through its caller's, its approvals answered by the `--allow` policy, and a run killed
while a sub-agent streams leaving its session (and its caller's call) interrupted, linked, as any crash does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_print_approval import run
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, ToolStatus


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


SLOW_SUB_AGENT = {
    "replies": [
        {"tool_calls": [{"name": "ask_researcher", "arguments": {"task": "Read everything"}}]},
        {"text": "word " * 2000, "chunk_size": 5, "chunk_delay": 0.01},
    ]
}


def crash_while_the_sub_agent_streams(home: Path, server: BackgroundServer) -> None:
    """Run `-p` until its sub-agent's reply has streamed a little, then kill it as a crash would."""
    env = {**os.environ, "TUI_AGENT_HOME": str(home), "OPENAI_API_KEY": "test-key"}
    command = [sys.executable, "-m", "tui_agent", "--base-url", server.base_url, "-p", "Read everything"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if line.startswith("[researcher] asked:"):
                break
        deadline = time.monotonic() + 60
        while not sub_agent_reply_stored(home / "data" / "history.db"):  # not a fixed sleep: CI may be slower
            assert time.monotonic() < deadline and process.poll() is None, "the sub-agent's reply never stored"
            time.sleep(0.05)
    finally:
        process.kill()
        process.wait(timeout=60)


def sub_agent_reply_stored(db: Path) -> bool:
    """Whether the sub-agent's streaming reply has some text in history (saved while it streams)."""
    if not db.exists():
        return False
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return bool(
            conn.execute(
                "SELECT count(*) FROM messages m JOIN sessions s ON m.session_id = s.id"
                " WHERE s.parent_session_id IS NOT NULL AND m.role = 'assistant' AND m.content != ''"
            ).fetchone()[0]
        )


async def stored_after_the_crash(db: Path) -> None:
    store = await HistoryStore.open(db)
    try:
        (caller,) = [s for s in await store.list_recent(10) if s.parent_session_id is None]
        ((key, (child_id, agent)),) = (await store.sub_session_calls(caller.id)).items()
        (reply,) = [m for m in await store.load_tail(caller.id, 10) if m.tool_calls]
        (call,) = reply.tool_calls
        assert agent == "researcher" and key == call.key and call.status is ToolStatus.INTERRUPTED
        task, answer = await store.load_tail(child_id, 10)
        assert task.content == "Read everything" and answer.status is MessageStatus.INTERRUPTED
    finally:
        await store.close()


@pytest.mark.parametrize("offline_server", [SLOW_SUB_AGENT], indirect=True)
def test_a_run_killed_while_its_sub_agent_streams_leaves_both_sessions_interrupted_and_linked(
    isolated_home: Path, offline_server: BackgroundServer
) -> None:
    crash_while_the_sub_agent_streams(isolated_home, offline_server)
    asyncio.run(stored_after_the_crash(isolated_home / "data" / "history.db"))


async def fork_the_caller(db: Path) -> tuple[str, str]:
    """(the caller's session, a fork of it)."""
    store = await HistoryStore.open(db)
    try:
        (caller,) = [s for s in await store.list_recent(10) if s.parent_session_id is None]
        first = (await store.load_tail(caller.id, 10))[0]
        return caller.id, (await store.fork_session(caller.id, first.id)).id
    finally:
        await store.close()


def test_sessions_list_shows_sub_agent_sessions_under_their_caller_and_forks_at_the_top(
    isolated_home: Path, tmp_path: Path
) -> None:
    done = run(["-p", "ask the researcher and the coder about the weather in Paris"], isolated_home, tmp_path)
    assert done.returncode == 0, done.stderr
    caller, fork = asyncio.run(fork_the_caller(isolated_home / "data" / "history.db"))

    listed = run(["sessions", "list"], isolated_home, tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == [fork, caller]  # a fork runs the caller's agent, not a sub-agent
    assert sorted(line.split("[")[1].split("]")[0] for line in lines[2:]) == ["coder", "researcher"]
    assert all(line.startswith("  ↳ ") for line in lines[2:]) and not lines[1].startswith(" "), lines
    rows = json.loads(run(["sessions", "list", "--json"], isolated_home, tmp_path).stdout)
    assert [(row["id"] == caller, row["parent_session_id"] == caller, row["sub_agent"]) for row in rows] == [
        (False, True, False),
        (True, False, False),
        (False, True, True),
        (False, True, True),
    ]
