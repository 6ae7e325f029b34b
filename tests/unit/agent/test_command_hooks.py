"""Command hooks from config on the real stack (real shell commands, the offline model over HTTP, real SQLite):
the documented contract (stdin JSON; exit 2 or `decision: "block"` refuses; `arguments` changes a call; plain
stdout or `context` is told to the model), timeouts and failures said and harmless, the output in the log only."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.unit.agent.conftest import MakeAgent, collect
from tests.unit.llm.helpers import eventually
from tui_agent.agent.events import ToolCallUpdated, TurnEndReason, TurnFinished, TurnStarted
from tui_agent.config import CommandHookSettings, HooksSettings
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.tools.command_hooks import CONTRACT_VERSION, CommandHooks, Confinement

GUARD = """
import json, sys
from pathlib import Path

event = json.load(sys.stdin)
with Path(sys.argv[1]).open("a") as seen:
    seen.write(json.dumps(event) + "\\n")
city = event["arguments"]["location"]
if city == "Paris":
    print("no weather for Paris", file=sys.stderr)
    sys.exit(2)
if city == "Oslo":
    print(json.dumps({"decision": "block", "reason": "Oslo is off limits"}))
elif city == "Rome":
    print(json.dumps({"arguments": {**event["arguments"], "location": "Lyon"}, "message": "Rome became Lyon"}))
"""

RECORD = """
import json, sys
from pathlib import Path

event = json.load(sys.stdin)
with Path(sys.argv[1]).open("a") as seen:
    seen.write(json.dumps(event) + "\\n")
if "secret" in event.get("prompt", ""):
    print(json.dumps({"decision": "block", "reason": "prompts with secrets stay here"}))
elif len(sys.argv) > 2:
    print(sys.argv[2])
"""


def script(tmp_path: Path, name: str, text: str) -> str:
    """The shell command that runs `text` as a Python script with this interpreter (so the test needs no PATH)."""
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def events_in(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_command_hooks_deny_change_and_annotate_tool_calls(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path, capfd: Any
) -> None:
    seen, unmatched, log = tmp_path / "seen.jsonl", tmp_path / "unmatched.jsonl", tmp_path / "hooks.log"
    guard, record = script(tmp_path, "guard", GUARD), script(tmp_path, "record", RECORD)
    hooks = {
        "before_tool": [
            {"command": f"{guard} {seen}", "matcher": "get_current_.*", "name": "guard"},
            {"command": f"{record} {unmatched}", "matcher": "run_shell|edit_file"},
        ],
        "after_tool": [{"command": "echo 'checked by the after hook'; echo 'to the log' >&2", "matcher": "*"}],
        "log": str(log),
    }
    built = await make_agent(offline_server.base_url, hooks=hooks, agent="researcher")
    notices: list[str] = []
    built.agent.watch_notices(notices.append)
    events = await collect(built.agent.send("What's the weather in Paris, Rome and Oslo?"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    calls = {event.call.call_id: event.call for event in events if isinstance(event, ToolCallUpdated)}
    by_city = {str((call.arguments or {})["location"]): call for call in calls.values()}
    paris, oslo, rome = by_city["Paris"], by_city["Oslo"], by_city["Rome"]
    assert paris.status is ToolStatus.DENIED, paris  # exit 2: its stderr is the reason
    assert "A hook (guard) denied the call: no weather for Paris" in (paris.error or "")
    assert paris.hook_verdict == "denied by a hook (guard)"  # what its panel says
    assert rome.hook_verdict == "arguments changed by a hook (guard)"
    assert oslo.status is ToolStatus.DENIED and "denied the call: Oslo is off limits" in (oslo.error or "")
    assert rome.status is ToolStatus.DONE and rome.result is not None  # run as the hook changed it
    assert rome.result.startswith("[arguments changed by a hook (guard): ")
    assert '"location": "Lyon"' in rome.result.splitlines()[0] and "Lyon" in rome.result.splitlines()[1]
    assert rome.result.endswith("[from a hook] checked by the after hook")
    assert "[from a hook] checked by the after hook" in (paris.error or "")  # after_tool sees failures too
    assert any("Rome became Lyon" in notice for notice in notices), notices
    told = [m["content"] for m in (offline_server.requests[-1].body or {})["messages"] if m["role"] == "tool"]
    assert any("no weather for Paris" in text for text in told), told  # the model is told
    assert all("checked by the after hook" in text for text in told), told

    asked = events_in(seen)  # the contract's stdin
    assert sorted(event["arguments"]["location"] for event in asked) == ["Oslo", "Paris", "Rome"]
    first = asked[0]
    assert first["version"] == CONTRACT_VERSION and first["event"] == "before_tool"
    assert first["tool"] == "get_current_weather" and first["agent"] == "researcher"
    assert first["session_id"] == built.agent.current_session_id and first["cwd"] == str(Path.cwd())
    assert not unmatched.exists()  # its matcher names other tools
    written = log.read_text()  # the output goes to the log, never to the terminal
    assert written.count("before_tool") == 3 and "stderr: to the log" in written and "exit 2" in written
    out, err = capfd.readouterr()
    assert "to the log" not in out + err and "no weather for Paris" not in out + err


async def test_command_hooks_refuse_or_annotate_a_prompt_and_hear_the_session_start_turn_end_and_notices(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.jsonl"
    record = script(tmp_path, "record", RECORD)
    hooks = {
        "prompt_submitted": [{"command": f"{record} {seen} 'The build is red since Tuesday.'"}],
        "session_start": [{"command": f"{record} {seen} 'Branch: main'"}],
        "turn_end": [{"command": f"{record} {seen}"}],
        "notification": [{"command": f"{record} {seen}"}, {"command": "exit 1"}],
        "log": str(tmp_path / "hooks.log"),
    }
    built = await make_agent(offline_server.base_url, hooks=hooks)

    refused = await collect(built.agent.send("here is my secret token"))
    assert len(refused) == 1 and isinstance(refused[0], TurnFinished), refused
    assert refused[0].reason is TurnEndReason.ERROR
    assert (refused[0].error or "").endswith("refused the prompt: prompts with secrets stay here")
    team = await collect(built.agent.run_team("writer-critic", "a secret for the team"))  # a team's prompt too
    assert len(team) == 1 and isinstance(team[0], TurnFinished) and "secrets stay here" in (team[0].error or "")
    assert built.agent.current_session_id is None and not offline_server.requests  # nothing stored, nothing sent

    events = await collect(built.agent.send("hello"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    sent = (offline_server.requests[0].body or {})["messages"][-1]["content"]
    assert sent == "hello\n\n<hook-context>\nBranch: main\nThe build is red since Tuesday.\n</hook-context>"
    stored = await built.agent.store.load_tail(built.agent.current_session_id or "", 5)
    assert stored[0].content == "hello"  # what the person typed is kept as typed
    await eventually(lambda: len(events_in(seen)) == 5, "the turn_end hook ran")  # (after the turn's end)
    kinds = [(event["event"], event.get("prompt"), event.get("reason")) for event in events_in(seen)]
    assert kinds == [
        ("prompt_submitted", "here is my secret token", None),
        ("prompt_submitted", "a secret for the team", None),
        ("prompt_submitted", "hello", None),
        ("session_start", None, None),
        ("turn_end", None, "done"),
    ]
    assert events_in(seen)[-1]["session_id"] == built.agent.current_session_id

    (started,) = [event for event in events if isinstance(event, TurnStarted)]
    edited = await collect(built.agent.edit(started.user_message_id, "hello, and a secret"))  # an edit too
    assert len(edited) == 1 and isinstance(edited[0], TurnFinished) and "secrets stay here" in (edited[0].error or "")
    await eventually(lambda: len(events_in(seen)) == 6, "the edit's prompt hook ran")

    notices: list[str] = []
    built.agent.watch_notices(notices.append)
    built.agent.tell("The context is nearly full.")  # what the person is told reaches the notification hooks
    await eventually(lambda: "Hook `exit 1` failed (exit 1); it changed nothing." in notices, "the failure said")
    built.agent.tell("Compacted.")
    await eventually(lambda: len(events_in(seen)) == 8, "both notices told")
    told = [event["message"] for event in events_in(seen)[6:]]
    assert told == ["The context is nearly full.", "Compacted."]  # a hook's own failure is not handed back to it


async def test_a_command_hook_that_hangs_fails_or_answers_badly_is_said_and_changes_nothing(tmp_path: Path) -> None:
    log, notices = tmp_path / "hooks.log", list[str]()
    child = tmp_path / "child.pid"
    claude_deny = {"hookEventName": "PreToolUse", "permissionDecision": "deny"}
    commands = [
        f"sleep 30 & echo $! > {child}; wait",  # its child is stopped with it
        "echo broken >&2; exit 1",
        "echo '{not json'",
        'echo \'{"arguments": "not an object"}\'',
        "head -c 20000000 /dev/zero | tr '\\0' x; printf '\\033]0;pwned\\007flooded\\n' >&2; exit 3",
        "echo "
        + shlex.quote(
            json.dumps({"hookSpecificOutput": {**claude_deny, "permissionDecisionReason": "as Claude says"}})
        ),
    ]
    settings = HooksSettings(
        before_tool=[CommandHookSettings(command=c, timeout=0.5 if "sleep" in c else 30) for c in commands]
    )
    hooks = CommandHooks(settings, log, notices.append)

    said = await hooks.run("before_tool", {"tool": "run_shell"}, tool="run_shell", arguments={"command": "ls"})

    assert said.blocked_by is not None and said.reason == "as Claude says"  # Claude Code's field names are read
    assert said.arguments is None
    assert notices[0].endswith("…` took more than 0.5 s and was stopped; it changed nothing."), notices
    assert notices[1] == "Hook `echo broken >&2; exit 1` failed (exit 1): broken; it changed nothing."
    assert notices[2].startswith("Hook `echo '{not json'` printed JSON that cannot be read")
    assert notices[3].endswith("gave arguments that are not an object; they were ignored.")
    assert notices[4].endswith("failed (exit 3): flooded; it changed nothing."), notices[4]  # the escape taken out
    assert log.stat().st_size < 200_000  # 20 MB of output, read and dropped past the cap
    proc = Path(f"/proc/{int(child.read_text())}/stat")
    await eventually(lambda: not proc.exists() or proc.read_text().split()[2] == "Z", "the hook's child stopped")
    assert "timed out" in log.read_text() and "stderr: broken" in log.read_text()


async def test_the_sandbox_seam_confines_how_a_hook_starts_and_a_refused_start_changes_nothing(
    tmp_path: Path,
) -> None:
    notices: list[str] = []
    settings = HooksSettings(after_tool=[CommandHookSettings(command='echo "$CONFINED $PREFIXED $PWD"')])
    ran_in: list[Path] = []

    @contextmanager
    def confine(cwd: Path) -> Iterator[Confinement]:
        ran_in.append(cwd)
        env = {"PATH": os.environ.get("PATH", ""), "CONFINED": "confined"}
        yield Confinement(preexec_fn=None, env=env, argv_prefix=("/usr/bin/env", "PREFIXED=prefixed"))

    hooks = CommandHooks(settings, None, notices.append, confine, cwd=tmp_path)
    said = await hooks.run("after_tool", {"tool": "run_shell"}, tool="run_shell")
    assert said.context == (f"confined prefixed {tmp_path}",) and ran_in == [tmp_path], notices

    @contextmanager
    def no_sandbox(_cwd: Path) -> Iterator[Confinement]:
        raise RuntimeError("this command must run in the OS sandbox, and there is none")
        yield Confinement()

    hooks = CommandHooks(settings, None, notices.append, no_sandbox)
    said = await hooks.run("after_tool", {"tool": "run_shell"}, tool="run_shell")
    assert said.context == () and notices == [
        'Hook `echo "$CONFINED $PREFIXED $PWD"` could not start: this command must run in the OS sandbox, and there'
        " is none"
    ]
