"""Real cancellation: subtrees stop, finally blocks run, at_terminate fires, parents complete."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.unit.commander.helpers import FuncJob, record_events, sleeper
from tui_agent.commander import (
    Commander,
    CommanderAsync,
    HandlerCoroutine,
    NodeCancelled,
    NodeFinished,
    NodeState,
    as_handler,
)


async def test_cancel_stops_subtree_runs_finally_and_parent_completes() -> None:
    log: list[str] = []
    terminated: list[str] = []
    nodes: dict[str, HandlerCoroutine] = {}

    @as_handler
    async def branch(node: HandlerCoroutine) -> None:
        node.add_callback_functions("at_terminate", {"function": lambda: terminated.append("branch")})
        leaf = node.call_handler(sleeper(10, log, "leaf"))
        leaf.add_callback_functions("at_terminate", {"function": lambda: terminated.append("leaf")})
        nodes["branch"] = node
        await asyncio.sleep(10)

    async def body(job: FuncJob) -> HandlerCoroutine:
        job.add_callback_functions("at_job_end", {"function": lambda: log.append("job end")})
        return branch()

    async def canceller(job: FuncJob) -> None:
        while "branch" not in nodes:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.01)
        nodes["branch"].cancel()

    commander: CommanderAsync[Any] = Commander()
    job = FuncJob(body)
    await commander.run_async([job, FuncJob(canceller)], auto_exit=True)
    assert "leaf finally" in log and "leaf end" not in log
    assert sorted(terminated) == ["branch", "leaf"]
    assert nodes["branch"].state is NodeState.CANCELLED
    assert job.state is NodeState.COMPLETED and log[-1] == "job end"


async def test_cancelling_a_job_cancels_its_running_body() -> None:
    log: list[str] = []

    async def body(job: FuncJob) -> None:
        try:
            log.append("body start")
            await asyncio.sleep(10)
        finally:
            log.append("body finally")

    job = FuncJob(body)

    async def watcher(node: HandlerCoroutine) -> None:
        while job.state is not NodeState.ACTIVE:
            await asyncio.sleep(0.001)
        job.cancel()

    commander: CommanderAsync[Any] = Commander()
    commander_task = asyncio.create_task(commander.run_async(job, auto_exit=True))
    await asyncio.sleep(0)
    await watcher(None)  # type: ignore[arg-type]
    await asyncio.wait_for(commander_task, 5)
    assert log == ["body start", "body finally"]
    assert job.state is NodeState.CANCELLED


async def test_exit_cancels_remaining_work_and_never_reports_it_completed() -> None:
    log: list[str] = []
    commander: CommanderAsync[Any] = Commander()
    events = record_events(commander)

    async def body(job: FuncJob) -> HandlerCoroutine:
        return sleeper(10, log, "long")

    @as_handler
    async def quitter(node: HandlerCoroutine) -> None:
        await asyncio.sleep(0.02)
        await node.exit_commander(return_result="bye")

    async def quit_body(job: FuncJob) -> HandlerCoroutine:
        return quitter()

    long_job = FuncJob(body)
    result = await commander.run_async([long_job, FuncJob(quit_body)])
    assert result == "bye"
    assert log == ["long start", "long finally"]
    assert long_job.state is NodeState.CANCELLED
    finished_ids = {e.node_id for e in events if isinstance(e, NodeFinished)}
    cancelled_ids = {e.node_id for e in events if isinstance(e, NodeCancelled)}
    assert long_job.id in cancelled_ids and long_job.id not in finished_ids
    assert not commander.running_status and commander.is_empty()


async def test_children_added_to_a_cancelled_node_never_run() -> None:
    log: list[str] = []

    @as_handler
    async def stubborn(node: HandlerCoroutine) -> None:
        try:
            await asyncio.sleep(10)
        finally:
            node.call_handler(sleeper(0, log, "late child"))

    holder: dict[str, HandlerCoroutine] = {}

    async def body(job: FuncJob) -> HandlerCoroutine:
        holder["h"] = stubborn()
        return holder["h"]

    async def canceller(job: FuncJob) -> None:
        await asyncio.sleep(0.01)
        holder["h"].cancel()

    await Commander().run_async([FuncJob(body), FuncJob(canceller)], auto_exit=True)
    assert log == []
    assert holder["h"].state is NodeState.CANCELLED


async def test_cancel_after_end_returns_false() -> None:
    job = FuncJob(lambda job: asyncio.sleep(0))
    await Commander().run_async(job, auto_exit=True)
    assert job.cancel() is False


async def test_commander_cancel_cancels_everything_but_keeps_running() -> None:
    log: list[str] = []
    commander: CommanderAsync[Any] = Commander()

    async def body(job: FuncJob) -> HandlerCoroutine:
        return sleeper(10, log, "x")

    async def after(job: FuncJob) -> None:
        log.append("new job ran")
        await job.exit_commander(return_result="done")

    running = asyncio.create_task(commander.run_async(FuncJob(body)))
    while "x start" not in log:
        await asyncio.sleep(0.001)
    commander.cancel()
    await commander.put_job(FuncJob(after))
    assert await asyncio.wait_for(running, 5) == "done"
    assert log == ["x start", "x finally", "new job ran"]


async def test_job_that_cancels_itself_and_returns_does_not_leak_the_cancel() -> None:
    log: list[str] = []

    async def self_cancel(job: FuncJob) -> None:
        job.cancel()
        log.append("returned")

    async def next_body(job: FuncJob) -> None:
        await asyncio.sleep(0.001)
        async with asyncio.timeout(0.005):  # a stale cancel in the dispatcher would break this
            await asyncio.sleep(0)
        log.append("next ran")

    first, second = FuncJob(self_cancel), FuncJob(next_body)
    await Commander().run_async([first, second], auto_exit=True)
    assert first.state is NodeState.CANCELLED
    assert second.state is NodeState.COMPLETED and log == ["returned", "next ran"]


async def test_timeouts_still_work_in_jobs_after_a_job_was_cancelled() -> None:
    outcome: list[str] = []

    async def victim(job: FuncJob) -> None:
        await asyncio.sleep(10)

    victim_job = FuncJob(victim)

    async def canceller(job: FuncJob) -> HandlerCoroutine:
        return cancel_soon(victim_job)

    @as_handler
    async def cancel_soon(node: HandlerCoroutine, target: FuncJob) -> None:
        await asyncio.sleep(0.01)
        target.cancel()

    async def timed(job: FuncJob) -> None:
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(1)
        except TimeoutError:
            outcome.append("timeout")

    commander: CommanderAsync[Any] = Commander()

    async def root(job: FuncJob) -> None:
        await job.put_job(FuncJob(canceller), parent=commander)
        await job.put_job(victim_job, parent=commander)
        await job.put_job(FuncJob(timed), parent=commander)

    await commander.run_async(FuncJob(root), auto_exit=True)
    assert victim_job.state is NodeState.CANCELLED and outcome == ["timeout"]
