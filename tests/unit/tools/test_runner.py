"""The runner: concurrency, timeout, cancel, output cap, failures, unknown tools and approval paths."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from tui_agent.config import ToolsSettings
from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools import tool
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.results import ToolResult
from tui_agent.tools.runner import Asker, OnChange, ToolRunner


@tool(approval="never")
def shout(word: str) -> str:
    """Upper-case a word (sync: runs in a thread)."""
    return word.upper()


@tool(approval="never")
async def whisper(word: str) -> str:
    """Lower-case a word (async)."""
    return word.lower()


@tool(approval="never", effect="edit")
def rename_note(new: str) -> ToolResult:
    """Reports a change it made (sync)."""
    return ToolResult(f"renamed to {new}", changes=[FileChange("note.txt", b"old\n", new.encode())])


@tool(approval="never", effect="edit")
async def remove_note() -> ToolResult:
    """Reports a file it deleted (async)."""
    return ToolResult("removed", changes=[FileChange("note.txt", b"old\n", None)])


@tool(approval="never")
def explode() -> str:
    """Always raises."""
    raise RuntimeError("kaboom")


@tool(approval="never")
def bad_value() -> str:
    """Raises a ValueError with a sentence."""
    raise ValueError("the file is empty")


@tool(approval="never")
async def leave() -> str:
    """Calls sys.exit."""
    raise SystemExit(1)


@tool(approval="never", timeout=0.2)
async def sleepy() -> str:
    """Sleeps far longer than its timeout."""
    await asyncio.sleep(60)
    return "never"


@tool(approval="never")
async def forever() -> str:
    """Waits until cancelled."""
    await asyncio.Event().wait()
    return "never"


@tool(approval="never")
def flood(size: int) -> str:
    """Returns `size` bytes."""
    return "x" * size


@tool(approval="never")
def structured() -> dict[str, Any]:
    """Returns a dict."""
    return {"a": 1, "b": [1, 2]}


@tool(approval="ask")
def guarded(word: str) -> str:
    """Needs approval."""
    return f"ran with {word}"


@tool(approval="deny")
def forbidden() -> str:
    """Never allowed."""
    return "never"


@tool(approval="never", to_user=True)
def speaks(city: str) -> str:
    """Has a to_user parameter."""
    return city


RELEASE = threading.Event()


@tool(approval="never", timeout=0.2)
def stuck() -> str:
    """A sync tool that blocks past its timeout (released at the end of the test)."""
    RELEASE.wait(30)
    return "late"


@tool(approval="never")
def quit_sync() -> str:
    """A sync tool calling sys.exit in its thread."""
    raise SystemExit(2)


BARRIER: dict[str, asyncio.Barrier] = {}


@tool(approval="never")
async def meet(side: str) -> str:
    """Waits until the other call is running too: only passes if calls really overlap."""
    async with asyncio.timeout(10):
        await BARRIER["meet"].wait()
    return side


class Witness:
    """A value whose text form notes the thread it is made on."""

    threads: list[str] = []

    def __str__(self) -> str:
        Witness.threads.append(threading.current_thread().name)
        return "witness"


@tool(approval="never")
async def witnessed() -> list[Any]:
    """Returns a value whose conversion to text notes its thread."""
    return [Witness(), Witness()]


TOOLS: list[Callable[..., Any]] = [
    witnessed,
    shout,
    whisper,
    explode,
    bad_value,
    leave,
    sleepy,
    forever,
    flood,
    structured,
    guarded,
    forbidden,
    speaks,
    meet,
    stuck,
    quit_sync,
    rename_note,
    remove_note,
]


class AskingRunner(ToolRunner):
    """A runner that asks `approval` in every run (a turn passes its own question to each call instead)."""

    def __init__(self, registry: ToolRegistry, approval: Asker | None, **options: Any) -> None:
        super().__init__(registry, **options)
        self.approval = approval

    async def run(
        self, calls: Sequence[ToolCall], on_change: OnChange, ask: Asker | None = None, session_id: str = ""
    ) -> list[ToolCall]:
        return await super().run(calls, on_change, ask or self.approval, session_id)


def make_runner(approval: Asker | None = None, **options: Any) -> ToolRunner:
    registry = ToolRegistry.from_functions(TOOLS, ToolsSettings(output_cap=1024))
    assert registry.problems == []
    return AskingRunner(registry, approval, **options)


class Recorder:
    def __init__(self) -> None:
        self.states: list[ToolCall] = []

    def __call__(self, state: ToolCall) -> None:
        self.states.append(state)

    def statuses(self, call_id: str) -> list[ToolStatus]:
        return [state.status for state in self.states if state.call_id == call_id]


async def run_one(
    runner: ToolRunner, name: str, arguments: dict[str, Any] | None = None, recorder: Recorder | None = None
) -> ToolCall:
    [result] = await runner.run([ToolCall("c1", name, arguments=arguments or {})], recorder or Recorder())
    return result


async def test_sync_and_async_tools_in_request_order() -> None:
    recorder = Recorder()
    calls = [ToolCall("a", "shout", arguments={"word": "Hi"}), ToolCall("b", "whisper", arguments={"word": "Hi"})]
    results = await make_runner().run(calls, recorder)
    assert [(r.call_id, r.outcome, r.status) for r in results] == [
        ("a", "HI", ToolStatus.DONE),
        ("b", "hi", ToolStatus.DONE),
    ]
    assert recorder.statuses("a") == [ToolStatus.PENDING, ToolStatus.RUNNING, ToolStatus.DONE]
    final = recorder.states[-1]
    assert final.started_at is not None and final.finished_at is not None and final.finished_at >= final.started_at


async def test_calls_really_overlap() -> None:
    BARRIER["meet"] = asyncio.Barrier(2)
    results = await make_runner().run(
        [ToolCall("a", "meet", arguments={"side": "left"}), ToolCall("b", "meet", arguments={"side": "right"})],
        Recorder(),
    )
    assert [r.outcome for r in results] == ["left", "right"]


async def test_unknown_tool() -> None:
    result = await run_one(make_runner(), "nope")
    assert result.status == ToolStatus.FAILED
    assert result.outcome.startswith("no tool named nope")


async def test_invalid_arguments_go_back_as_the_result() -> None:
    recorder = Recorder()
    result = await run_one(make_runner(), "shout", {"word": 3, "loud": True}, recorder)
    assert result.status == ToolStatus.FAILED
    assert "Invalid arguments for shout" in result.outcome
    assert "- word: Input should be a valid string (got 3)" in result.outcome
    assert "- loud: Extra inputs are not permitted" in result.outcome
    assert ToolStatus.RUNNING not in recorder.statuses("c1")


async def test_to_user_is_stripped() -> None:
    result = await run_one(make_runner(), "speaks", {"city": "Oslo", "to_user": "Looking it up"})
    assert (result.status, result.outcome) == (ToolStatus.DONE, "Oslo")


async def test_exception_becomes_an_error_result() -> None:
    recorder = Recorder()
    result = await run_one(make_runner(), "explode", recorder=recorder)
    assert (result.status, result.outcome) == (ToolStatus.FAILED, "explode failed: RuntimeError: kaboom")
    assert recorder.states[-1].error == result.outcome and recorder.states[-1].result is None


async def test_value_error_message_is_passed_as_a_sentence() -> None:
    result = await run_one(make_runner(), "bad_value")
    assert result.outcome == "bad_value failed: the file is empty"


async def test_system_exit_from_a_tool_is_only_a_failed_call() -> None:
    result = await run_one(make_runner(), "leave")
    assert result.status == ToolStatus.FAILED and "SystemExit" in result.outcome


async def test_timeout() -> None:
    result = await run_one(make_runner(), "sleepy")
    assert result.status == ToolStatus.FAILED
    assert result.outcome == "sleepy timed out after 0.2 s and was stopped."


async def test_runner_default_timeout_applies() -> None:
    result = await run_one(make_runner(timeout=0.1), "forever")
    assert result.outcome == "forever timed out after 0.1 s and was stopped."


async def test_output_cap_marks_truncation() -> None:
    result = await run_one(make_runner(), "flood", {"size": 5000})
    assert result.outcome == "x" * 1024 + "\n[truncated 3976 bytes]"
    small = await run_one(make_runner(), "flood", {"size": 1024})
    assert small.outcome == "x" * 1024


async def test_structured_results_are_json() -> None:
    result = await run_one(make_runner(), "structured")
    assert result.outcome == '{"a": 1, "b": [1, 2]}'


async def test_cancel_interrupts_running_calls() -> None:
    recorder = Recorder()
    runner = make_runner()
    task = asyncio.create_task(
        runner.run([ToolCall("a", "forever", arguments={}), ToolCall("b", "shout", arguments={"word": "x"})], recorder)
    )
    while ToolStatus.RUNNING not in recorder.statuses("a"):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert recorder.statuses("a")[-1] == ToolStatus.INTERRUPTED


async def test_deny_policy() -> None:
    recorder = Recorder()
    result = await run_one(make_runner(), "forbidden", recorder=recorder)
    assert result.status == ToolStatus.DENIED and "not allowed to run" in result.outcome
    assert recorder.statuses("c1") == [ToolStatus.PENDING, ToolStatus.DENIED]


async def test_ask_without_an_approver_is_denied() -> None:
    result = await run_one(make_runner(), "guarded", {"word": "w"})
    assert result.status == ToolStatus.DENIED and "non-interactive" in result.outcome


async def test_ask_allow_once_asks_every_time() -> None:
    asked: list[ToolCall] = []

    async def approve(request: ToolCall) -> Decision:
        asked.append(request)
        return Decision.ALLOW_ONCE

    runner, recorder = make_runner(approval=approve), Recorder()
    first = await run_one(runner, "guarded", {"word": "a"}, recorder)
    await run_one(runner, "guarded", {"word": "b"})
    assert first.outcome == "ran with a"
    assert [request.arguments for request in asked] == [{"word": "a"}, {"word": "b"}]
    assert asked[0].name == "guarded" and asked[0].call_id == "c1"
    assert recorder.statuses("c1") == [
        ToolStatus.PENDING,
        ToolStatus.AWAITING_APPROVAL,
        ToolStatus.RUNNING,
        ToolStatus.DONE,
    ]


async def test_allow_always_is_remembered_for_the_runner() -> None:
    asked: list[str] = []

    async def approve(request: ToolCall) -> Decision:
        asked.append(request.name)
        return Decision.ALLOW_ALWAYS

    runner = make_runner(approval=approve)
    assert (await run_one(runner, "guarded", {"word": "a"})).status == ToolStatus.DONE
    assert (await run_one(runner, "guarded", {"word": "b"})).status == ToolStatus.DONE
    assert asked == ["guarded"]
    assert (await run_one(make_runner(approval=approve), "guarded", {"word": "c"})).status == ToolStatus.DONE
    assert asked == ["guarded", "guarded"]


async def test_user_denial() -> None:
    async def refuse(request: ToolCall) -> Decision:
        return Decision.DENY

    result = await run_one(make_runner(approval=refuse), "guarded", {"word": "a"})
    assert (result.status, result.outcome) == (ToolStatus.DENIED, "The user denied the call to guarded.")


async def test_broken_approver_denies() -> None:
    async def broken(request: ToolCall) -> Decision:
        raise RuntimeError("modal went away")

    result = await run_one(make_runner(approval=broken), "guarded", {"word": "a"})
    assert result.status == ToolStatus.DENIED and "modal went away" in result.outcome


async def test_config_override_turns_ask_into_never() -> None:
    registry = ToolRegistry.from_functions(TOOLS, ToolsSettings(approval={"guarded": "never"}))
    result = await run_one(ToolRunner(registry), "guarded", {"word": "a"})
    assert result.status == ToolStatus.DONE


async def test_failing_update_callback_does_not_break_the_call() -> None:
    def broken(state: ToolCall) -> None:
        raise RuntimeError("ui gone")

    result = await make_runner().run([ToolCall("c", "shout", arguments={"word": "a"})], broken)
    assert result[0].outcome == "A"


async def test_sync_tool_past_its_timeout_is_abandoned() -> None:
    try:
        result = await run_one(make_runner(), "stuck")
        assert (result.status, result.outcome) == (ToolStatus.FAILED, "stuck timed out after 0.2 s and was stopped.")
        assert (await run_one(make_runner(), "shout", {"word": "still works"})).outcome == "STILL WORKS"
    finally:
        RELEASE.set()


async def test_sys_exit_in_a_sync_tool_is_only_a_failed_call() -> None:
    result = await run_one(make_runner(), "quit_sync")
    assert result.status == ToolStatus.FAILED and "SystemExit: 2" in result.outcome


async def test_cancel_while_awaiting_approval_is_interrupted_and_never_runs() -> None:
    asked = asyncio.Event()

    async def slow_user(request: ToolCall) -> Decision:
        asked.set()
        await asyncio.Event().wait()
        return Decision.ALLOW_ONCE

    recorder = Recorder()
    task = asyncio.create_task(
        make_runner(approval=slow_user).run([ToolCall("c", "guarded", arguments={"word": "a"})], recorder)
    )
    await asyncio.wait_for(asked.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert recorder.statuses("c") == [ToolStatus.PENDING, ToolStatus.AWAITING_APPROVAL, ToolStatus.INTERRUPTED]


async def test_no_requests_no_results() -> None:
    assert await make_runner().run([], Recorder()) == []


async def test_parallel_asks_are_put_one_at_a_time_and_always_covers_the_queue() -> None:
    open_questions: list[str] = []
    overlapping: list[bool] = []

    async def approve(request: ToolCall) -> Decision:
        overlapping.append(bool(open_questions))
        open_questions.append(request.call_id)
        await asyncio.sleep(0)
        open_questions.remove(request.call_id)
        return Decision.ALLOW_ALWAYS

    requests = [ToolCall(f"c{n}", "guarded", arguments={"word": str(n)}) for n in range(3)]
    results = await make_runner(approval=approve).run(requests, Recorder())
    assert [result.outcome for result in results] == ["ran with 0", "ran with 1", "ran with 2"]
    assert overlapping == [False]


@tool(approval="never")
def interrupt_sync() -> str:
    """A sync tool raising KeyboardInterrupt in its thread."""
    raise KeyboardInterrupt


@tool(approval="never")
async def interrupt_async() -> str:
    """An async tool raising KeyboardInterrupt."""
    raise KeyboardInterrupt


@tool(approval="never")
async def generator_exit() -> str:
    """An async tool raising GeneratorExit."""
    raise GeneratorExit


@tool(approval="never")
async def cancels_itself() -> str:
    """An async tool raising CancelledError although nobody cancelled it."""
    raise asyncio.CancelledError


@tool(approval="never")
def cancels_itself_sync() -> str:
    """A sync tool raising CancelledError in its thread."""
    raise asyncio.CancelledError


class Strange(BaseException):
    """A BaseException subclass of a tool's own."""


@tool(approval="never")
def strange() -> str:
    """Raises a custom BaseException."""
    raise Strange("odd")


BASE_EXCEPTION_TOOLS = [interrupt_sync, interrupt_async, generator_exit, cancels_itself, cancels_itself_sync, strange]


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("interrupt_sync", "KeyboardInterrupt"),
        ("interrupt_async", "KeyboardInterrupt"),
        ("generator_exit", "GeneratorExit"),
        ("cancels_itself", "CancelledError"),
        ("cancels_itself_sync", "CancelledError"),
        ("strange", "Strange: odd"),
    ],
)
async def test_any_base_exception_from_a_tool_is_only_a_failed_call(name: str, shown: str) -> None:
    registry = ToolRegistry.from_functions([*TOOLS, *BASE_EXCEPTION_TOOLS], ToolsSettings())
    recorder = Recorder()
    result = await run_one(ToolRunner(registry), name, recorder=recorder)
    assert result.status == ToolStatus.FAILED and shown in result.outcome
    assert recorder.statuses("c1")[-1] == ToolStatus.FAILED
    assert (await run_one(ToolRunner(registry), "shout", {"word": "after"})).outcome == "AFTER"


async def test_a_result_is_turned_into_text_off_the_event_loop() -> None:
    """A huge result (tens of megabytes of JSON) is converted and capped in a thread, so the UI that shares
    the loop keeps drawing; here a value that notes where it is converted stands in for it."""
    Witness.threads.clear()
    result = await run_one(make_runner(), "witnessed")
    assert result.outcome == '["witness", "witness"]'
    assert Witness.threads and threading.main_thread().name not in Witness.threads


async def test_the_files_a_tool_changed_travel_on_its_call() -> None:
    runner = make_runner()
    renamed = await run_one(runner, "rename_note", {"new": "new"})
    assert (renamed.outcome, renamed.file_changes) == ("renamed to new", (FileChange("note.txt", b"old\n", b"new"),))
    removed = await run_one(runner, "remove_note")
    assert removed.file_changes == (FileChange("note.txt", b"old\n", None),)
    assert (await run_one(runner, "shout", {"word": "a"})).file_changes == ()
