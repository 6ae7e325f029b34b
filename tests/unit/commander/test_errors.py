"""Failures: failing nodes, raising callbacks, misuse of the API — each reported, none wedging the tree."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.unit.commander.helpers import FuncJob, record_events, sleeper
from tui_agent.commander import (
    PASS_WORD,
    Callback,
    CallbackFailed,
    Commander,
    CommanderAlreadyRunningError,
    CommanderAsync,
    HandlerCoroutine,
    InvalidCallbackError,
    Job,
    NodeEndedError,
    NodeFailed,
    NodeState,
    NotTaskerError,
    RunInsideLoopError,
    WrongPasswordError,
    as_handler,
    handler,
    tasker,
)


async def test_failing_handler_is_failed_with_exception_and_siblings_carry_on() -> None:
    log: list[str] = []
    seen: list[BaseException | None] = []

    @as_handler
    async def broken(node: HandlerCoroutine) -> None:
        node.add_callback_functions(
            "at_exception", {"function": lambda exception: seen.append(exception), "inject_exception": True}
        )
        raise ValueError("boom")

    holder: dict[str, HandlerCoroutine] = {}

    async def body(job: FuncJob) -> None:
        holder["broken"] = job.call_handler(broken())
        job.call_handler(sleeper(0.02, log, "sibling"))

    commander: CommanderAsync[Any] = Commander()
    events = record_events(commander)
    job = FuncJob(body)
    await commander.run_async(job, auto_exit=True)
    assert holder["broken"].state is NodeState.FAILED
    assert isinstance(seen[0], ValueError) and str(seen[0]) == "boom"
    assert "sibling end" in log
    assert job.state is NodeState.COMPLETED
    failed = [e for e in events if isinstance(e, NodeFailed)]
    assert [e.error for e in failed] == ["boom"]


async def test_failing_job_fires_at_exception_with_task_node() -> None:
    nodes: list[Any] = []

    class Broken(Job):
        @tasker(PASS_WORD)
        async def task(self) -> None:
            raise RuntimeError("no")

    job = Broken()
    job.add_callback_functions(
        "at_exception", {"function": lambda task_node: nodes.append(task_node), "inject_task_node": True}
    )
    await Commander().run_async(job, auto_exit=True)
    assert nodes == [job] and job.state is NodeState.FAILED and isinstance(job.exception, RuntimeError)


@pytest.mark.parametrize("hook", ["at_job_start", "at_job_end"])
async def test_raising_callback_is_reported_and_never_wedges(hook: str) -> None:
    def explode() -> None:
        raise KeyError("callback broke")

    async def body(job: FuncJob) -> HandlerCoroutine:
        return sleeper(0, [], "child")

    job = FuncJob(body)
    job.add_callback_functions(hook, {"function": explode})  # type: ignore[arg-type]
    commander: CommanderAsync[Any] = Commander()
    events = record_events(commander)
    await asyncio.wait_for(commander.run_async(job, auto_exit=True), 5)
    failures = [e for e in events if isinstance(e, CallbackFailed)]
    assert len(failures) == 1 and failures[0].hook == hook and "callback broke" in failures[0].error
    assert job.state is NodeState.COMPLETED


def test_raising_callback_never_wedges_blocking_run() -> None:
    async def explode(task_node: Job) -> None:
        raise RuntimeError("async callback broke")

    job = FuncJob(lambda job: asyncio.sleep(0))
    job.add_callback_functions("at_job_end", {"function": explode, "inject_task_node": True})
    assert CommanderAsync().run(job, auto_exit=True) is None


async def test_observer_that_raises_does_not_break_the_tree() -> None:
    commander: CommanderAsync[Any] = Commander()

    def bad_observer(event: object) -> None:
        raise RuntimeError("observer broke")

    commander.subscribe(bad_observer)
    job = FuncJob(lambda job: asyncio.sleep(0))
    await commander.run_async(job, auto_exit=True)
    assert job.state is NodeState.COMPLETED


def test_hook_on_wrong_node_kind_is_rejected() -> None:
    @as_handler
    async def some_handler(node: HandlerCoroutine) -> None:
        return None

    node = some_handler()
    with pytest.raises(InvalidCallbackError, match="at_job_start.*never fires on a handler"):
        node.add_callback_functions("at_job_start", {"function": print})
    with pytest.raises(InvalidCallbackError, match="at_handler_end.*never fires on a job"):
        FuncJob(lambda job: asyncio.sleep(0)).add_callback(Callback(at_handler_end=[{"function": print}]))
    with pytest.raises(InvalidCallbackError, match="unknown callback hook"):
        node.add_callback_functions("at_teatime", {"function": print})  # type: ignore[arg-type]
    assert node.coro is not None
    node.coro.close()


def test_wrong_password_and_missing_tasker_are_clear_errors() -> None:
    with pytest.raises(WrongPasswordError):
        tasker("please")
    with pytest.raises(WrongPasswordError):
        handler("please")
    with pytest.raises(NotTaskerError, match="must be decorated with @tasker"):

        class Undecorated(Job):
            async def task(self) -> None:
                return None


def test_run_inside_running_loop_raises_and_commander_stays_usable() -> None:
    commander: CommanderAsync[str] = CommanderAsync()

    class Quit(Job):
        @tasker(PASS_WORD)
        async def task(self) -> None:
            await self.exit_commander(return_result="QUIT")

    async def inside() -> None:
        with pytest.raises(RunInsideLoopError, match="use await run_async"):
            commander.run(Quit())
        assert await commander.run_async(Quit()) == "QUIT"

    asyncio.run(inside())
    assert commander.run(Quit()) == "QUIT"


def test_exit_result_is_reset_for_every_run() -> None:
    commander: CommanderAsync[str] = CommanderAsync()

    class Quit(Job):
        @tasker(PASS_WORD)
        async def task(self) -> None:
            await self.exit_commander(return_result="first")

    assert commander.run(Quit()) == "first"
    assert commander.run(FuncJob(lambda job: asyncio.sleep(0)), auto_exit=True) is None


async def test_second_concurrent_run_is_refused() -> None:
    commander: CommanderAsync[Any] = Commander()
    running = asyncio.create_task(commander.run_async())
    await asyncio.sleep(0)
    with pytest.raises(CommanderAlreadyRunningError):
        await commander.run_async()
    commander.exit("x")
    assert await running == "x"


async def test_adding_a_child_to_an_ended_node_is_a_clear_error() -> None:
    errors: list[str] = []

    async def late_child(task_node: Job) -> None:
        try:
            await task_node.put_job(FuncJob(lambda job: asyncio.sleep(0)))
        except NodeEndedError as exc:
            errors.append(str(exc))

    job = FuncJob(lambda job: asyncio.sleep(0))
    job.add_callback_functions("at_job_end", {"function": late_child, "inject_task_node": True})
    await Commander().run_async(job, auto_exit=True)
    assert errors and "parent=node.commander" in errors[0]


async def test_task_returning_something_else_fails_clearly() -> None:
    async def body(job: FuncJob) -> Any:
        return 42

    job = FuncJob(body)
    await Commander().run_async(job, auto_exit=True)
    assert job.state is NodeState.FAILED and "may return a handler or None" in str(job.exception)
