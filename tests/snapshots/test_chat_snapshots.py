"""Snapshots of the chat screen (fixed size, fixed clock, no cursor blink): regenerate with --snapshot-update."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from tests.ui.helpers import SIZE, call, chat_ready, make_app, send, showing, under_the_pointer, wait_until
from tui_agent.agent.events import (
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantTextDelta,
    MessageStatus,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
)
from tui_agent.testing.scripted import AskApproval, Gate, Script, reply_script
from tui_agent.tool_call import ToolCall
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.widgets.thinking import ThinkingBlock

SnapCompare = Callable[..., bool]

REPLY = """## Weather report

Paris is **sunny** today. Here is how to fetch it yourself:

```python
import httpx
print(httpx.get("https://wttr.in/Paris?format=3").text)
```

| City  | °C | Sky    |
|-------|----|--------|
| Paris | 21 | sunny  |
| Oslo  | 9  | cloudy |
"""


def after_sending(prompt: str, until: Callable[[Pilot[None]], bool] | None = None) -> Callable[..., Any]:
    async def run_before(pilot: Pilot[None]) -> None:
        await chat_ready(pilot)
        await send(pilot, prompt, wait=until is None)  # by default until the prompt is taken and answered
        if until is not None:
            await wait_until(pilot, lambda: until(pilot))
        await pilot.pause()

    return run_before


def snapshot(snap_compare: SnapCompare, scripts: list[Script], run_before: Callable[..., Any] | None) -> bool:
    app, _ = make_app(scripts)
    return snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_empty_chat(snap_compare: SnapCompare) -> None:
    assert snapshot(snap_compare, [], None)


def test_finished_reply_with_code_and_table(snap_compare: SnapCompare) -> None:
    chunks = [REPLY[i : i + 9] for i in range(0, len(REPLY), 9)]
    assert snapshot(snap_compare, [reply_script(chunks, usage=(1234, 567))], after_sending("Weather in Paris?"))


def test_tool_panels_mid_run(snap_compare: SnapCompare) -> None:
    gate = Gate()
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "Checking two cities at once…"),
        call("c1", ToolStatus.DONE, started=100.0, finished=101.4, result="Paris: sunny, 21 °C"),
        call("c2", ToolStatus.RUNNING, arguments='{"location": "Oslo", "unit": "celsius"}', started=101.0),
        call("c3", ToolStatus.PENDING, name="search", arguments='{"query": "Oslo forec'),
        gate,
    ]
    assert snapshot(snap_compare, [script], after_sending("Weather in Paris and Oslo?", lambda _: gate.reached))


def test_tool_panels_done(snap_compare: SnapCompare) -> None:
    long_result = "\n".join(f"{hour:02d}:00  {15 + hour % 7} °C" for hour in range(24))
    script: Script = [
        call("c1", ToolStatus.DONE, started=100.0, finished=101.4, result=long_result),
        call(
            "c2",
            ToolStatus.FAILED,
            name="shell",
            arguments='{"command": "false"}',
            started=100.0,
            finished=100.1,
            error="The command exited with status 1.",
        ),
        call("c3", ToolStatus.DENIED, name="write_file", arguments='{"path": "/etc/hosts"}'),
        call(
            "c4",
            ToolStatus.INTERRUPTED,
            name="fetch",
            arguments='{"url": "https://example.com"}',
            started=100.0,
            finished=102.0,
        ),
        *reply_script(["Paris will stay warm all day."]),
    ]
    assert snapshot(snap_compare, [script], after_sending("Hourly weather?"))


def test_inline_error(snap_compare: SnapCompare) -> None:
    error = "No API key: set OPENAI_API_KEY or run with --offline."
    script: Script = [
        AssistantMessageStarted("m1"),
        AssistantTextDelta("m1", "Let me"),
        AssistantMessageFinished("m1", MessageStatus.FAILED, error),
        TurnFinished(TurnEndReason.ERROR, error),
    ]
    assert snapshot(snap_compare, [script], after_sending("Hello?"))


def test_approval_modal(snap_compare: SnapCompare) -> None:
    ask = call(
        "c1",
        ToolStatus.AWAITING_APPROVAL,
        name="shell",
        arguments='{"command": "rm -rf build/ [bold]dist[/bold]", "cwd": "/home/me/project"}',
    )
    script: Script = [AskApproval(ask)]
    run_before = after_sending("Clean the build", lambda pilot: showing(pilot.app, ApprovalScreen))
    assert snapshot(snap_compare, [script], run_before)


def test_edit_approval_shows_the_diff_at_80x24(snap_compare: SnapCompare) -> None:
    content = "".join(f"print('line {number}')\n" for number in range(1, 30))
    arguments = {"path": "docs/no-such-folder/hello.py", "content": content}  # a new file: the same diff anywhere
    ask = ToolCallUpdated(
        ToolCall(
            "c1",
            "write_file",
            json.dumps(arguments),
            arguments=arguments,
            message_id="m1",
            status=ToolStatus.AWAITING_APPROVAL,
        )
    )
    run_before = after_sending("Create hello.py", lambda pilot: showing(pilot.app, ApprovalScreen))
    app, _ = make_app([[AskApproval(ask)]])
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


THOUGHT = [
    "The user wants Paris weather. ",
    "I should check the forecast first, ",
    "then answer in one short sentence with the temperature.",
]


def test_thinking_block_collapsed(snap_compare: SnapCompare) -> None:
    script = reply_script(["Paris is **sunny**, 21 °C."], reasoning=THOUGHT)
    assert snapshot(snap_compare, [script], after_sending("Weather in Paris?"))


def test_thinking_block_expanded(snap_compare: SnapCompare) -> None:
    async def open_it(pilot: Pilot[None]) -> None:
        await after_sending("Weather in Paris?")(pilot)
        block = pilot.app.screen.query_one(ThinkingBlock)
        await wait_until(pilot, lambda: under_the_pointer(pilot, block), "the block laid out")
        await pilot.click(ThinkingBlock)
        await wait_until(pilot, lambda: block.expanded and block.size.height > 1, lambda: f"opened ({block.size})")
        await pilot.wait_for_scheduled_animations()  # the log follows the grown block to its end
        await pilot.pause()

    script = reply_script(["Paris is **sunny**, 21 °C."], reasoning=THOUGHT)
    assert snapshot(snap_compare, [script], open_it)
