"""How many MCP server processes start at once (`StartQueue`), and a server waiting for its turn: the queue
itself in plain asyncio, then real servers behind a slot the test holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fixtures.mcp_servers.config import stdio
from tests.unit.tools.helpers import WAIT_LIMIT
from tui_agent.config import ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.tools.mcp.server import ServerState
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.mcp.start_queue import StartQueue, default_slots
from tui_agent.tools.registry import ToolRegistry


async def until(condition: Callable[[], bool], what: str) -> None:
    """Let the loop run until `condition` holds (the limit bounds a hang; not a timing check)."""
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        assert time.monotonic() < deadline, f"never reached: {what}"
        await asyncio.sleep(0.01)


async def test_at_most_slots_start_at_once_and_a_slow_start_gives_its_slot_up_after_hold() -> None:
    """Issue 28: twenty servers started together on two cores all missed their start-up timeout. At most
    `slots` start at a time, in order (one more while a turn waits for them); a slot comes free when a start
    ends (failing too) or after `hold`."""
    assert default_slots() >= 1
    queue = StartQueue(slots=2, hold=600)
    inside: list[int] = []
    gates = [asyncio.Event() for _ in range(5)]

    async def start(index: int) -> None:
        async with queue.turn():
            inside.append(index)
            await gates[index].wait()
            inside.remove(index)
            if index == 1:
                raise OSError("the command does not exist")

    tasks = [asyncio.create_task(start(index)) for index in range(5)]
    await until(lambda: len(inside) == 2, "two starts")
    await asyncio.sleep(0.05)
    assert inside == [0, 1]  # the others wait for a slot
    gates[0].set()
    await until(lambda: 2 in inside, "the third start after the first ended")
    gates[1].set()  # a start that fails gives its slot up too
    await until(lambda: 3 in inside, "the fourth start after the second failed")
    assert sorted(inside) == [2, 3]
    with queue.urgent():  # a turn waits for the servers: one more starts
        await until(lambda: 4 in inside, "a third start at once while a turn waits")
    for gate in gates[2:]:
        gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert [type(result).__name__ for result in results] == ["NoneType", "OSError", "NoneType", "NoneType", "NoneType"]
    assert queue.limit() == 2

    slow = StartQueue(slots=1, hold=0.05)  # a start still going after `hold`: the next one starts anyway
    stuck, behind = asyncio.Event(), asyncio.Event()

    async def stays() -> None:
        async with slow.turn():
            await stuck.wait()

    async def follows() -> None:
        async with slow.turn():
            behind.set()

    first = asyncio.create_task(stays())
    await asyncio.sleep(0)
    second = asyncio.create_task(follows())
    await until(behind.is_set, "the start behind a slow one")
    assert not first.done()
    stuck.set()
    await asyncio.gather(first, second)

    single = StartQueue(slots=1, hold=600)  # a server stopped while it waits for its turn gives no slot away

    async def enter() -> None:
        async with single.turn():
            pass

    async with single.turn():
        queued = asyncio.create_task(enter())
        await asyncio.sleep(0.01)
        queued.cancel()
        await asyncio.gather(queued, return_exceptions=True)
    await asyncio.wait_for(enter(), WAIT_LIMIT)


async def test_a_server_waits_for_its_turn_and_its_startup_timeout_runs_from_then(tmp_path: Path) -> None:
    """A server queued behind starts that hold every slot is still starting and not begun: its
    `startup_timeout` runs from its turn (`_connect`), however long the queue took. A turn's wait for it (never
    seen ready: any prompt may need it) waits for its turn too, instead of giving up on it."""
    queue = StartQueue(slots=1, hold=600)
    registry = ToolRegistry(ToolsSettings())
    servers = McpServers(
        {"late": stdio(approval="never")}, registry, tmp_path / "mcp", redact=Redactor().text, queue=queue
    )
    taken, both_taken, give_back = [0], asyncio.Event(), asyncio.Event()

    async def hold_a_slot() -> None:
        async with queue.turn():
            taken[0] += 1
            if taken[0] == 2:
                both_taken.set()
            await give_back.wait()

    with queue.urgent():  # a waiting turn's extra slot, taken too: the turn below opens no more
        holders = [asyncio.create_task(hold_a_slot()) for _ in range(2)]
        await both_taken.wait()
        servers.start()
        try:
            waiting = asyncio.create_task(registry.settled_for("say hi"))
            begun = asyncio.create_task(servers.servers["late"].begun())
            await asyncio.sleep(0.3)
            assert servers.still_starting() == ["late"] and not begun.done() and not waiting.done()
            late = servers.servers["late"]
            assert late.state == ServerState.STARTING
            give_back.set()
            await asyncio.gather(*holders)
            await waiting
            assert begun.done() and late.describe() == "ready with 8 tools"
            assert "echo" in registry.names() and servers.still_starting() == []
        finally:
            await servers.close()


@pytest.mark.parametrize("slots", [0, -1])
def test_a_queue_always_has_a_slot(slots: int) -> None:
    """A queue of no slots would never start anything: at least one."""
    assert StartQueue(slots=slots).slots == 1
