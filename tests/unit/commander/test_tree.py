"""Completion rules of the task tree: bodies, children, callbacks, ordering."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.unit.commander.helpers import FuncJob, record_events, sleeper
from tui_agent.commander import (
    PASS_WORD,
    Commander,
    CommanderAsync,
    HandlerCoroutine,
    Job,
    NodeCancelled,
    NodeFinished,
    NodeState,
    as_handler,
    handler,
    tasker,
)


async def test_job_completes_only_after_its_children() -> None:
    log: list[str] = []
    commander: CommanderAsync[Any] = Commander()

    async def body(job: FuncJob) -> HandlerCoroutine:
        job.add_callback_functions("at_job_end", {"function": lambda: log.append("job end")})
        return sleeper(0.02, log, "child")

    await commander.run_async(FuncJob(body), auto_exit=True)
    assert log == ["child start", "child end", "child finally", "job end"]


async def test_end_callbacks_fire_leaves_first() -> None:
    order: list[str] = []

    @as_handler
    async def leaf(node: HandlerCoroutine, name: str) -> None:
        node.add_callback_functions("at_handler_end", {"function": order.append, "params": {"args": (name,)}})
        await asyncio.sleep(0)

    @as_handler
    async def middle(node: HandlerCoroutine) -> None:
        node.add_callback_functions("at_handler_end", {"function": order.append, "params": {"args": ("middle",)}})
        node.call_handler(leaf("leaf1"))
        node.call_handler(leaf("leaf2"))

    async def body(job: FuncJob) -> HandlerCoroutine:
        job.add_callback_functions("at_job_end", {"function": order.append, "params": {"args": ("job",)}})
        return middle()

    await Commander().run_async(FuncJob(body), auto_exit=True)
    assert set(order[:2]) == {"leaf1", "leaf2"}
    assert order[2:] == ["middle", "job"]


async def test_job_bodies_run_in_submission_order_and_handlers_concurrently() -> None:
    log: list[str] = []

    async def slow_body(job: FuncJob) -> HandlerCoroutine:
        log.append(f"{job.name} body")
        return sleeper(0.05, log, f"{job.name}-h")

    async def root(job: FuncJob) -> None:
        for name in ("a", "b", "c"):
            await job.put_job(FuncJob(slow_body, name))

    await Commander().run_async(FuncJob(root), auto_exit=True)
    bodies = [entry for entry in log if entry.endswith("body")]
    assert bodies == ["a body", "b body", "c body"]
    # all three handlers started before any of them ended: they ran concurrently
    starts = [log.index(f"{n}-h start") for n in "abc"]
    first_end = min(log.index(f"{n}-h end") for n in "abc")
    assert max(starts) < first_end


async def test_put_job_defaults_to_child_of_caller_and_commander_parent_detaches() -> None:
    seen: dict[str, Any] = {}

    async def child_body(job: FuncJob) -> None:
        seen[job.name] = job.parent

    async def root(job: FuncJob) -> None:
        seen["root"] = job
        await job.put_job(FuncJob(child_body, "attached"))
        await job.put_job(FuncJob(child_body, "detached"), parent=job.commander)

    commander: CommanderAsync[Any] = Commander()
    await commander.run_async(FuncJob(root), auto_exit=True)
    assert seen["attached"] is seen["root"]
    assert seen["detached"] is commander


async def test_states_move_pending_active_completed() -> None:
    states: list[NodeState] = []

    async def body(job: FuncJob) -> None:
        states.append(job.state)

    job = FuncJob(body)
    commander: CommanderAsync[Any] = Commander()
    events = record_events(commander)
    await commander.run_async(job, auto_exit=True)
    assert states == [NodeState.ACTIVE]
    assert job.state is NodeState.COMPLETED
    assert [type(e).__name__ for e in events] == ["NodeCreated", "NodeStarted", "NodeFinished"]
    finished = events[-1]
    assert isinstance(finished, NodeFinished) and finished.started_at is not None
    assert finished.at >= finished.started_at and finished.parent_id == commander.id


async def test_tutorial_surface_methods_and_functions_get_self_handler() -> None:
    received: list[Any] = []

    class Holder:
        @handler(PASS_WORD)
        async def method(self, self_handler: HandlerCoroutine, value: int) -> int:
            received.append((self, self_handler, value))
            return value * 2

    @handler(PASS_WORD)
    async def function(self_handler: HandlerCoroutine, value: int) -> int:
        received.append((None, self_handler, value))
        return value + 1

    holder = Holder()

    class Start(Job):
        @tasker(PASS_WORD)
        async def task(self) -> None:
            received.append(await holder.method(21))
            received.append(await function(1))

    await CommanderAsync().run_async(Start(), auto_exit=True)
    assert received[0][0] is holder and isinstance(received[0][1], HandlerCoroutine) and received[0][2] == 21
    assert received[1] == 42
    assert received[2][0] is None and received[2][2] == 1
    assert received[3] == 2


async def test_sync_tasker_body_is_accepted() -> None:
    ran: list[bool] = []

    class SyncJob(Job):
        @tasker(PASS_WORD)
        def task(self) -> None:  # type: ignore[override]  # a sync body is the point: @tasker wraps it
            ran.append(True)

    await Commander().run_async(SyncJob(), auto_exit=True)
    assert ran == [True]


async def test_get_node_finds_live_nodes_only() -> None:
    commander: CommanderAsync[Any] = Commander()
    found: list[Any] = []

    async def body(job: FuncJob) -> None:
        found.append(commander.get_node(job.id))

    job = FuncJob(body)
    await commander.run_async(job, auto_exit=True)
    assert found == [job]
    assert commander.get_node(job.id) is None


async def test_awaiting_a_handler_outside_the_tree_is_a_clear_error() -> None:
    @as_handler
    async def lonely(node: HandlerCoroutine) -> None:
        return None

    with pytest.raises(Exception, match="inside a job or handler"):
        await lonely()


async def test_cancelled_event_for_pending_job_has_no_start_time() -> None:
    commander: CommanderAsync[Any] = Commander()
    events = record_events(commander)
    pending = FuncJob(lambda job: asyncio.sleep(0), "pending")

    async def root(job: FuncJob) -> None:
        await job.put_job(pending)
        pending.cancel()

    await commander.run_async(FuncJob(root), auto_exit=True)
    cancelled = [e for e in events if isinstance(e, NodeCancelled)]
    assert [e.node_id for e in cancelled] == [pending.id]
    assert cancelled[0].started_at is None
