"""docs/headless.md is the JSON schema's reference: each of its examples, run in-process against the offline
model, prints what the page shows (ids aside); and the flags, failures and events the examples do not show."""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tui_agent import cli
from tui_agent.agent.events import (
    AgentEvent,
    AssistantPartDelta,
    AssistantTextDelta,
    ReplyReplaced,
    ReplyWaiting,
    SubAgentEvent,
    TeamStopped,
    ToolCallUpdated,
    TurnStarted,
)
from tui_agent.agent.json_input import prompt_of
from tui_agent.agent.json_output import SCHEMA_VERSION, JsonPrinter, event_json, print_json_turn
from tui_agent.agent.meter import Meter
from tui_agent.llm.events import RetryScheduled
from tui_agent.status import ToolStatus
from tui_agent.tool_call import CallKey, ToolCall

DOC = Path(__file__).parents[2] / "docs" / "headless.md"
EXAMPLE = re.compile(r"<!-- example (\{.*?\}) -->\n```json\n(.*?)\n```", re.DOTALL)
IDS = {"session_id", "message_id", "id", "call_id"}
"""Fields whose values differ on every run."""


def without_ids(value: Any) -> Any:
    """`value` with every id replaced by the same placeholder."""
    if isinstance(value, dict):
        return {
            key: "<id>" if key in IDS and isinstance(item, str) else without_ids(item) for key, item in value.items()
        }
    if isinstance(value, list):
        return [without_ids(item) for item in value]
    return value


def comparable(lines: list[Any]) -> tuple[list[Any], list[Any]]:
    """What a run must print the same every time: the events in order, each message's text deltas joined (how
    text is split into deltas depends on the network), ids left out; and apart, the `usage` events in order
    (where one falls among its message's events depends on timing)."""
    events: list[Any] = []
    for line in without_ids(lines):
        last = events[-1] if events else {}
        if line["type"] == "text" and last.get("type") == "text" and last["message_id"] == line["message_id"]:
            events[-1] = {**last, "text": last["text"] + line["text"]}
        elif line["type"] != "usage":
            events.append(line)
    return events, [line for line in lines if line["type"] == "usage"]


def shown(block: str) -> list[Any]:
    """The objects an example block shows: one (pretty-printed) object, or one per line."""
    try:
        return [json.loads(block)]
    except ValueError:
        return [json.loads(line) for line in block.splitlines()]


def run(args: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capfd.readouterr()
    status = cli.main(args)
    out, err = capfd.readouterr()
    return status, out, err


def test_every_documented_example_is_what_is_printed(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = EXAMPLE.findall(DOC.read_text(encoding="utf-8"))
    assert len(examples) == 3  # json, stream-json, prompts over stdin
    for spec_text, block in examples:
        spec = json.loads(spec_text)
        monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in spec.get("stdin", []))))
        status, out, _ = run(spec["args"], capfd)
        printed = [json.loads(line) for line in out.splitlines()]
        assert comparable(printed) == comparable(shown(block)), spec["args"]
        assert out.isascii()
        results = [line for line in printed if line["type"] == "result"]
        assert results and all(result["schema"] == SCHEMA_VERSION for result in results)
        assert status == (2 if "stdin" in spec else 0)  # the stdin example has a line that is skipped


def test_flags_that_do_not_fit_and_failures_before_the_turn(capfd: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["--offline", "-p", "--input-format", "stream-json"], capfd)
    assert (status, out) == (2, "") and "needs --output-format stream-json" in err
    args = ["--offline", "-p", "hi", "--input-format", "stream-json", "--output-format", "stream-json"]
    status, out, err = run(args, capfd)
    assert (status, out) == (2, "") and "give -p no prompt" in err
    with pytest.raises(SystemExit) as exited:  # argparse's own usage error
        run(["--output-format", "json"], capfd)
    assert exited.value.code == 2
    assert "are for -p runs" in capfd.readouterr().err
    status, out, err = run(["--offline", "--resume", "nosuchsession", "-p", "hi", "--output-format", "json"], capfd)
    (result,) = [json.loads(line) for line in out.splitlines()]  # still one result, saying why
    assert status == 1 and result["exit_code"] == 1 and result["stop_reason"] == "error"
    assert result["session_id"] is None and result["errors"] and result["errors"][0] in err


def test_stdin_lines_in_both_shapes_and_what_is_refused() -> None:
    assert prompt_of('{"type": "user", "text": "hi"}') == "hi"
    blocks = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    assert prompt_of(json.dumps({"type": "user", "message": {"role": "user", "content": blocks}})) == "a\nb"
    for line, why in [("{", "not JSON"), ("[1]", "not a user message"), ('{"type":"user","text":" "}', "no text")]:
        with pytest.raises(ValueError, match=why):
            prompt_of(line)


def test_events_the_examples_do_not_show() -> None:
    calls: dict[CallKey, str] = {}
    assert event_json(AssistantPartDelta(message_id="m", kind="reasoning", text="hm"), calls) == [
        {"type": "part", "message_id": "m", "kind": "reasoning", "text": "hm"}
    ]
    assert event_json(ReplyReplaced(message_id="m"), calls) == [{"type": "message.replaced", "message_id": "m"}]
    assert event_json(ReplyWaiting(message_id="m", since=0.0), calls) == []  # "still waiting": nothing to say
    retry = RetryScheduled(status=429, attempt=1, retries=2, at=time.monotonic() + 60)
    (line,) = event_json(ReplyWaiting(message_id="m", since=0.0, retry=retry), calls)
    assert line["type"] == "retry" and line["status"] == 429 and 0 < line["in_seconds"] <= 60
    stopped = TeamStopped(team="pair", reason="critic said APPROVED", rounds=2)
    assert event_json(stopped, calls) == [
        {"type": "team.stopped", "team": "pair", "reason": "critic said APPROVED", "rounds": 2}
    ]
    # a call that fails before its arguments parse is started and finished at once, each once; inside a sub-agent
    failed = ToolCall(call_id="c", name="t", raw_arguments="{", message_id="m", status=ToolStatus.FAILED, error="bad")
    nested = SubAgentEvent(call=("p", "ask"), agent="coder", session_id="s", event=ToolCallUpdated(call=failed))
    lines = event_json(nested, calls)
    assert [(line["type"], line["call_id"], line["event"]["type"]) for line in lines] == [
        ("subagent", "ask", "tool.started"),
        ("subagent", "ask", "tool.finished"),
    ]
    assert lines[1]["event"]["call"]["arguments"] == {} and lines[1]["event"]["call"]["error"] == "bad"
    assert event_json(nested, calls) == []


def test_a_tool_that_needs_approval_is_asked_and_denied_in_the_stream(capfd: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["--offline", "-p", "run ls", "--output-format", "stream-json"], capfd)
    lines = [json.loads(line) for line in out.splitlines()]
    kinds = [line["type"] for line in lines if line["type"].startswith(("tool.", "approval."))]
    assert kinds == ["tool.started", "approval.requested", "approval.answered", "tool.finished"]
    answered = next(line for line in lines if line["type"] == "approval.answered")
    assert answered["decision"] == "deny" and "--allow run_shell" in err
    assert status == 0 and lines[-1]["tool_calls"][0]["status"] == "denied"


def test_no_event_loop_is_left_behind() -> None:
    # cli.main runs its own loop with asyncio.run: none must be left set for the next test
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()


class StubAgent:
    """What `print_json_turn` reads of an agent at the end (the real one is run by the tests above)."""

    model = "offline"
    current_session_id = "s"
    meter = Meter()


async def test_a_cancelled_turn_still_prints_its_result() -> None:
    async def cut_short() -> AsyncIterator[AgentEvent]:
        yield TurnStarted(session_id="s", user_message_id="u", prompt="hi")
        yield AssistantTextDelta(message_id="m", text="half an ans")
        raise asyncio.CancelledError  # Ctrl+C: asyncio.run cancels the run

    out = io.StringIO()
    with pytest.raises(asyncio.CancelledError):
        await print_json_turn(StubAgent(), JsonPrinter(out, stream=False), io.StringIO(), cut_short())
    (result,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (result["stop_reason"], result["exit_code"], result["text"]) == ("cancelled", 130, "half an ans")
