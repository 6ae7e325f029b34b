"""`tui-agent -p`: one turn with the real engine, reply on stdout, tool calls on stderr, saved in history."""

from __future__ import annotations

import asyncio
import os
import pty
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.pty_terminal import drain
from tui_agent.history.models import Message, Session
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, ToolStatus


def run(args: list[str], home: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


async def test_weather_prompt_prints_the_answer_and_summarises_the_tool(isolated_home: Path) -> None:
    done = run(["--offline", "-p", "What's the weather in Paris?"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert "Paris" in done.stdout
    assert "[tool] get_current_weather(" in done.stderr and " done: " in done.stderr
    store = await HistoryStore.open(isolated_home / "data" / "history.db")  # saved like any other session
    try:
        (session,) = await store.list_recent()
        messages = await store.load_tail(session.id, 10)
    finally:
        await store.close()
    assert session.title == "What's the weather in Paris?"
    assert [m.status for m in messages] == [MessageStatus.COMPLETE] * 3
    assert messages[1].tool_calls[0].status is ToolStatus.DONE


def test_prompt_from_stdin(isolated_home: Path) -> None:
    done = run(["--offline", "-p", "-"], isolated_home, stdin="Say hello\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_unreachable_endpoint_exits_non_zero_with_a_sentence(isolated_home: Path) -> None:
    done = run(["--base-url", "http://127.0.0.1:9/v1", "-p", "hi"], isolated_home)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("tui-agent: ")


async def test_a_lock_held_throughout_is_said_on_stderr_not_a_crash(isolated_home: Path) -> None:
    db = isolated_home / "data" / "history.db"
    await (await HistoryStore.open(db)).close()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program keeps the write lock for the whole run
    (isolated_home / "config").mkdir(parents=True, exist_ok=True)
    (isolated_home / "config" / "config.toml").write_text("history_lock_wait = 0.5\n")  # not the 30 s default
    try:
        done = await asyncio.to_thread(run, ["--offline", "-p", "What's the weather in Paris?"], isolated_home)
    finally:
        other.close()
    assert done.returncode == 0, done.stderr
    assert "Paris" in done.stdout
    assert "waiting up to 0.5 s for it to save this run" in done.stderr  # then it gives up, and says so
    assert "locked" in done.stderr and "could not be saved" in done.stderr


async def _stored(db: Path) -> tuple[list[Session], list[Message]]:
    store = await HistoryStore.open(db)
    try:
        sessions = await store.list_recent()
        return sessions, (await store.load_tail(sessions[0].id, 10) if sessions else [])
    finally:
        await store.close()


def test_a_lock_held_for_a_while_is_waited_for_at_exit_and_the_run_is_saved(isolated_home: Path) -> None:
    db = isolated_home / "data" / "history.db"
    asyncio.run(_stored(db))  # the file made, as by an earlier run
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock from before the run
    env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home)}
    command = [sys.executable, "-m", "tui_agent", "--offline", "-p", "What's the weather in Paris?"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    said = []
    try:  # held until `-p` has finished its turn and says it waits for the file (or until it exits without that)
        for line in process.stderr:
            said.append(line)
            if "waiting up to" in line:
                break
    finally:
        other.close()  # the lock is let go: the run can be saved
    out, rest = process.communicate(timeout=120)
    said.append(rest)
    assert process.returncode == 0, "".join(said)
    assert "Paris" in out and "could not be saved" not in "".join(said), "".join(said)
    (session,), messages = asyncio.run(_stored(db))
    assert session.title == "What's the weather in Paris?"
    assert [m.status for m in messages] == [MessageStatus.COMPLETE] * 3


def test_to_user_text_and_the_answer_are_separate_paragraphs(isolated_home: Path) -> None:
    done = run(["--offline", "-p", "What's the weather in Paris?"], isolated_home)
    assert done.returncode == 0, done.stderr
    to_user, answer = done.stdout.split("\n\n")  # "Let me check… for you." then the answer from the result
    assert to_user.startswith("Let me check the weather in Paris") and to_user.endswith("for you.")
    assert answer.startswith("The weather in Paris is") and answer.endswith("\n")


CALL_0_TWICE = {
    "replies": [
        {"tool_calls": [{"id": "call_0", "name": "get_current_weather", "arguments": {"location": "Paris"}}]},
        {"tool_calls": [{"id": "call_0", "name": "calculate", "arguments": {"expression": "6*7"}}]},
        {"text": "Sunny, and 42."},
    ]
}


@pytest.mark.parametrize("offline_server", [CALL_0_TWICE], indirect=True)
def test_every_call_is_summarised_when_each_round_reuses_call_0(
    isolated_home: Path, offline_server: BackgroundServer
) -> None:
    done = run(["--base-url", offline_server.base_url, "-p", "Weather, then a sum"], isolated_home)
    assert done.returncode == 0, done.stderr
    summaries = [line for line in done.stderr.splitlines() if line.startswith("[tool] ")]
    assert [line.split("(")[0] for line in summaries] == ["[tool] get_current_weather", "[tool] calculate"]


def test_run_without_quotes_calls_the_shell_and_a_denial_reads_as_a_sentence(isolated_home: Path) -> None:
    done = run(["--offline", "-p", "run ls"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert '[tool] run_shell({"command": "ls"}) denied' in done.stderr
    assert "I wasn't allowed to run `ls`." in done.stdout and "returned" not in done.stdout


def test_a_key_alone_sends_the_run_to_openai_and_says_so_first(isolated_home: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key.upper() not in ("NO_PROXY", "OPENAI_BASE_URL")}
    env.update(TUI_AGENT_HOME=str(isolated_home), OPENAI_API_KEY="sk-test")
    env.update({proxy: "http://127.0.0.1:9" for proxy in ("HTTPS_PROXY", "https_proxy")})  # the request goes nowhere
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "-p", "hello"], capture_output=True, text=True, env=env, timeout=120
    )
    first = done.stderr.splitlines()[0]
    assert "OPENAI_API_KEY is set: using OpenAI (https://api.openai.com/v1" in first, done.stderr
    assert "--offline for the built-in offline model" in first
    assert "Traceback" not in done.stderr


def test_on_one_terminal_a_tool_line_never_continues_the_reply_line(isolated_home: Path) -> None:
    """stdout and stderr on one pty (a user's terminal): the `[tool]` line starts a line of its own; a pipe's
    reply is unchanged (the test above)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home)}
    command = [sys.executable, "-m", "tui_agent", "--offline", "-p", "What's the weather in Paris?"]
    done = subprocess.run(command, stdout=follower, stderr=follower, env=env, timeout=120, check=False)
    os.close(follower)
    screen = drain(leader)
    assert done.returncode == 0, screen
    assert "for you.\n[tool] get_current_weather(" in screen
    assert "\n\nThe weather in Paris is" in screen  # the answer: a paragraph of its own, as in a pipe
