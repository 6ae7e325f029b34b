"""Small building blocks for commander tests: jobs and handlers that record what happened."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from tui_agent.commander import CommanderAsync, HandlerCoroutine, Job, NodeEvent, as_handler


class FuncJob(Job):
    """A job whose body is a plain async function of the job."""

    def __init__(self, body: Callable[[FuncJob], Awaitable[Any]], name: str = "job") -> None:
        super().__init__()
        self.body = body
        self.name = name

    async def run(self) -> HandlerCoroutine | None:
        result: HandlerCoroutine | None = await self.body(self)
        return result


@as_handler
async def sleeper(node: HandlerCoroutine, seconds: float, log: list[str], name: str) -> str:
    """Sleep, logging start, end and whether the finally block ran."""
    log.append(f"{name} start")
    try:
        await asyncio.sleep(seconds)
        log.append(f"{name} end")
        return name
    finally:
        log.append(f"{name} finally")


def record_events(commander: CommanderAsync[Any]) -> list[NodeEvent]:
    """Subscribe and return the list the events land in."""
    events: list[NodeEvent] = []
    commander.subscribe(events.append)
    return events
