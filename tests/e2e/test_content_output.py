"""What the commands print, byte for byte: no terminal escape and no bidi override ever reaches a terminal,
secrets never reach the database file, exports are private, and `-o` keeps the text as it was.

Each test runs `python -m tui_agent` as a subprocess (the real entry point, the real history file) against
the offline model scripted over HTTP, and reads the raw bytes it writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.content_plugins.leaky_tools import LEAKED_KEY
from tests.ui.test_content_safety import SURROGATE_REPLY
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus

PLUGINS = Path(__file__).parents[1] / "fixtures" / "content_plugins"
ESC, RLO = b"\x1b", "\u202e".encode()
BIDI = [control.encode() for control in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]
POISON = (
    "Hello \x1b]52;c;cm0gLXJmIH4=\x07clip \x1b]0;pwned\x07title \x1b]8;;http://evil.example\x1b\\link"
    "\x1b]8;;\x1b\\ \x1b[2Jclear \u202eevil\u202c \u2066iso\u2069 \x9b31m done"
)
POISON_TITLE = "prompt \x1b]0;title\x07 with \u202eRLO"


def run(home: Path, *args: str, umask: int | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "TUI_AGENT_HOME": str(home)}
    preexec = None if umask is None else (lambda: os.umask(umask) and None)
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", *args], capture_output=True, env=env, timeout=120, preexec_fn=preexec
    )


def assert_clean(output: bytes, where: str) -> None:
    assert ESC not in output, f"ESC in {where}: {output!r}"
    assert b"\xc2\x9b" not in output, f"C1 CSI in {where}"
    for control in BIDI:
        assert control not in output, f"{control!r} in {where}"
    output.decode("utf-8")  # and it is text a terminal can read


@pytest.fixture
def poisoned_session(isolated_home: Path) -> Path:
    """A session whose title, reply and tool call carry escapes and bidi controls, saved by `-p`."""
    scenario = {
        "replies": [
            {
                "text": POISON,
                "tool_calls": [{"name": "quick_echo", "arguments": {"text": f"arg \x1b[31m{chr(0x202E)}x"}}],
            },
            {"text": POISON},
        ]
    }
    with BackgroundServer(scenario) as server:
        done = run(isolated_home, "--base-url", server.base_url, "--plugins", str(PLUGINS), "-p", POISON_TITLE)
    assert done.returncode == 0, done.stderr
    (isolated_home / "print-stdout").write_bytes(done.stdout)
    (isolated_home / "print-stderr").write_bytes(done.stderr)
    return isolated_home


def test_print_writes_no_escape_or_bidi_control_to_stdout_or_stderr(poisoned_session: Path) -> None:
    stdout, stderr = (poisoned_session / "print-stdout").read_bytes(), (poisoned_session / "print-stderr").read_bytes()
    assert_clean(stdout, "-p stdout")
    assert_clean(stderr, "-p stderr")
    assert b"Hello clip title link clear evil iso" in stdout
    assert b"[tool] quick_echo(" in stderr


def session_id(home: Path) -> str:
    listed = run(home, "sessions", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    return str(row["id"])


def test_no_sessions_command_prints_an_escape_or_a_bidi_control(poisoned_session: Path) -> None:
    home = poisoned_session
    sid = session_id(home)
    for args in (
        ["sessions", "list"],
        ["sessions", "list", "--json"],
        ["sessions", "show", sid],
        ["sessions", "export", "--last"],
        ["sessions", "export", sid, "--format", "json"],
        ["sessions", "search", "clip"],
    ):
        done = run(home, *args)
        assert done.returncode == 0, (args, done.stderr)
        assert_clean(done.stdout, f"stdout of {args}")
        assert_clean(done.stderr, f"stderr of {args}")
        assert b"clip" in done.stdout or args[1] == "list"
    exported = json.loads(run(home, "sessions", "export", sid, "--format", "json").stdout)
    assert exported["messages"][1]["content"] == POISON  # the JSON on stdout is escaped, never altered


def test_export_to_a_file_keeps_the_text_and_is_private(poisoned_session: Path, tmp_path: Path) -> None:
    for fmt in ("md", "json"):
        target = tmp_path / f"out.{fmt}"
        done = run(poisoned_session, "sessions", "export", "--last", "--format", fmt, "-o", str(target), umask=0o022)
        assert done.returncode == 0, done.stderr
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        data = target.read_bytes()
        if fmt == "md":
            assert POISON.encode() in data and RLO in data  # exactly as the model sent it
        else:
            assert json.loads(data)["messages"][1]["content"] == POISON
    target.chmod(0o644)  # an existing file is made private as it is overwritten
    assert run(poisoned_session, "sessions", "export", "--last", "-o", str(target)).returncode == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_surrogates_saved_by_a_turn_are_read_back_by_every_command(isolated_home: Path) -> None:
    with BackgroundServer({"replies": [SURROGATE_REPLY, {"text": "All done."}]}) as server:
        done = run(isolated_home, "--base-url", server.base_url, "--plugins", str(PLUGINS), "-p", "poison")
        assert done.returncode == 0, done.stderr
        assert "before \ufffd after".encode() in done.stdout
        again = run(isolated_home, "--base-url", server.base_url, "--continue", "-p", "and now?")
        assert again.returncode == 0, again.stderr
    sid = session_id(isolated_home)
    exported = run(isolated_home, "sessions", "export", sid, "--format", "json")
    assert exported.returncode == 0, exported.stderr
    messages = json.loads(exported.stdout)["messages"]
    assert messages[1]["content"] == "before \ufffd after" and len(messages) == 5
    assert [c["arguments"] for c in messages[1]["tool_calls"]] == [{"text": "x\ufffdy"}, {"text": "p\ufffdq"}]
    shown = run(isolated_home, "sessions", "show", sid)
    assert shown.returncode == 0 and "before \ufffd after".encode() in shown.stdout


def db_bytes(home: Path) -> bytes:
    data = home / "data"
    return b"".join(path.read_bytes() for path in sorted(data.iterdir()) if path.name.startswith("history.db"))


SECRET_SCENARIO: dict[str, Any] = {
    "replies": [
        {
            "text": "Exporting it. ",
            "tool_calls": [
                {"name": "quick_echo", "arguments": {"text": f"export GITHUB_TOKEN={LEAKED_KEY}"}},
                {"name": "read_dotenv", "arguments": {}},
            ],
        },
        {"text": f"Your token is {LEAKED_KEY}."},
    ]
}


@pytest.mark.parametrize("switch", ["", "redact_secrets = false\n"], ids=["default", "switched-off"])
def test_tokens_in_arguments_results_and_text_never_reach_the_database(isolated_home: Path, switch: str) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(switch, encoding="utf-8")
    with BackgroundServer(SECRET_SCENARIO) as server:
        done = run(isolated_home, "--base-url", server.base_url, "--plugins", str(PLUGINS), "-p", "ship it")
    assert done.returncode == 0, done.stderr
    sid = session_id(isolated_home)
    export = run(isolated_home, "sessions", "export", sid, "--format", "json").stdout
    stored = db_bytes(isolated_home)
    if switch:
        assert LEAKED_KEY.encode() in stored and LEAKED_KEY.encode() in export
        return
    assert LEAKED_KEY.encode() not in stored and LEAKED_KEY[4:20].encode() not in stored
    assert LEAKED_KEY.encode() not in export
    messages = json.loads(export)["messages"]
    calls = messages[1]["tool_calls"]
    assert calls[0]["arguments"] == {"text": "export GITHUB_TOKEN=[redacted]"}
    assert calls[1]["result"] == "DEBUG=1\nGITHUB_TOKEN=[redacted]\n"
    assert messages[2]["content"] == "Your token is [redacted]."


async def test_a_surrogate_saved_by_an_older_version_is_read_back_as_replacement(isolated_home: Path) -> None:
    """Older versions saved parsed tool arguments with `json.dumps`, which writes a lone surrogate as an escape."""
    db = isolated_home / "data" / "history.db"
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session("old session")
        _, reply = await store.begin_turn(session.id, "hi")
        await store.record_tool_call(reply.id, "c1", "quick_echo", '{"text": "a\\ud800b"}', {"text": "ok"})
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="fine")
    finally:
        await store.close()
    with sqlite3.connect(db) as conn:  # what the old version wrote
        conn.execute("UPDATE tool_calls SET arguments = ?", ('{"text": "a\\ud800b"}',))
    for args in (["show", session.id], ["export", session.id, "--format", "json"], ["export", "--last"]):
        done = run(isolated_home, "sessions", *args)
        assert done.returncode == 0, (args, done.stderr)
        assert b"Traceback" not in done.stderr
    exported = json.loads(run(isolated_home, "sessions", "export", session.id, "--format", "json").stdout)
    assert exported["messages"][1]["tool_calls"][0]["arguments"] == {"text": "a\ufffdb"}
