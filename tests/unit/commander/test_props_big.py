"""Property test: random trees of jobs and handlers with random errors, cancellations and exits.

Whatever happens, every node ends exactly once, children end before their parents, `run_async` with
`auto_exit` always returns, and no task is left running.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent.commander import (
    Commander,
    CommanderAsync,
    HandlerCoroutine,
    Job,
    NodeCreated,
    NodeEnded,
    NodeEvent,
    TaskNode,
    as_handler,
)


@dataclass
class Spec:
    kind: str
    delay: float
    raises: bool
    callback_raises: bool
    children: list[Spec] = field(default_factory=list)


def specs() -> st.SearchStrategy[Spec]:
    leaf = st.builds(
        Spec,
        kind=st.sampled_from(["job", "handler"]),
        delay=st.sampled_from([0.0, 0.001, 0.004]),
        raises=st.booleans(),
        callback_raises=st.booleans(),
    )
    return st.recursive(
        leaf,
        lambda kids: st.builds(
            Spec,
            kind=st.sampled_from(["job", "handler"]),
            delay=st.sampled_from([0.0, 0.001, 0.004]),
            raises=st.booleans(),
            callback_raises=st.booleans(),
            children=st.lists(kids, max_size=3),
        ),
        max_leaves=12,
    )


class Builder:
    """Turns specs into live nodes, remembering them so chaos can cancel them."""

    def __init__(self) -> None:
        self.nodes: list[TaskNode] = []

    def make(self, spec: Spec) -> TaskNode:
        node: TaskNode = SpecJob(self, spec) if spec.kind == "job" else spec_handler(self, spec)
        if spec.callback_raises:
            hook = "at_job_end" if spec.kind == "job" else "at_handler_end"
            node.add_callback_functions(hook, {"function": explode})  # type: ignore[arg-type]
        self.nodes.append(node)
        return node

    async def body(self, node: TaskNode, spec: Spec) -> None:
        for child_spec in spec.children:
            child = self.make(child_spec)
            if isinstance(child, Job):
                await node.put_job(child)
            else:
                node.call_handler(child)  # type: ignore[arg-type]
        if spec.delay:
            await asyncio.sleep(spec.delay)
        if spec.raises:
            raise RuntimeError("random failure")


def explode() -> None:
    raise RuntimeError("callback failure")


class SpecJob(Job):
    def __init__(self, builder: Builder, spec: Spec) -> None:
        super().__init__()
        self.builder, self.spec = builder, spec

    async def run(self) -> None:
        await self.builder.body(self, self.spec)


@as_handler
async def _spec_handler(node: HandlerCoroutine, builder: Builder, spec: Spec) -> None:
    await builder.body(node, spec)


def spec_handler(builder: Builder, spec: Spec) -> HandlerCoroutine:
    return _spec_handler(builder, spec)


async def chaos(
    commander: CommanderAsync[Any], builder: Builder, plan: list[tuple[int, float]], exit_at: float | None
) -> None:
    for index, delay in plan:
        await asyncio.sleep(delay)
        if index < len(builder.nodes) and builder.nodes[index]._commander is not None:
            builder.nodes[index].cancel()
    if exit_at is not None:
        await asyncio.sleep(exit_at)
        commander.exit("stopped")


async def run_tree(root: Spec, plan: list[tuple[int, float]], exit_at: float | None) -> tuple[list[NodeEvent], Builder]:
    commander: CommanderAsync[Any] = Commander()
    events: list[NodeEvent] = []
    commander.subscribe(events.append)
    builder = Builder()
    roots = [builder.make(root)]
    chaos_task = asyncio.create_task(chaos(commander, builder, plan, exit_at))
    top: Any = roots[0] if isinstance(roots[0], Job) else _Wrapper(roots[0])  # type: ignore[arg-type]
    await asyncio.wait_for(commander.run_async(top, auto_exit=True), timeout=10)
    chaos_task.cancel()
    await asyncio.gather(chaos_task, return_exceptions=True)
    for node in builder.nodes:
        if isinstance(node, HandlerCoroutine) and node._commander is None and node.coro is not None:
            node.coro.close()  # built but never submitted (its parent was cancelled first)
    leftovers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert leftovers == [], f"tasks left running: {leftovers}"
    return events, builder


class _Wrapper(Job):
    """Lets a handler be the root: a job that returns it."""

    def __init__(self, inner: HandlerCoroutine) -> None:
        super().__init__()
        self.inner = inner

    async def run(self) -> HandlerCoroutine:
        return self.inner


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    root=specs(),
    plan=st.lists(st.tuples(st.integers(0, 15), st.sampled_from([0.0, 0.001, 0.002])), max_size=4),
    exit_at=st.none() | st.sampled_from([0.0, 0.002, 0.005]),
)
def test_random_trees_end_every_node_once_children_first(
    root: Spec, plan: list[tuple[int, float]], exit_at: float | None
) -> None:
    events, builder = asyncio.run(run_tree(root, plan, exit_at))
    created = [e.node_id for e in events if isinstance(e, NodeCreated)]
    ended = [e for e in events if isinstance(e, NodeEnded)]
    ended_ids = [e.node_id for e in ended]
    assert sorted(ended_ids, key=str) == sorted(created, key=str), "every node ends exactly once"
    assert len(set(ended_ids)) == len(ended_ids)
    position = {e.node_id: i for i, e in enumerate(ended)}
    for event in ended:
        if event.parent_id in position:
            assert position[event.node_id] < position[event.parent_id], "children end before parents"
    for node in builder.nodes:
        if node._commander is not None:
            assert node.state.value in {"completed", "failed", "cancelled"}
