"""Provides `Turns`: one turn at a time on the session's commander.

It owns the commander (and its task tree), the running turn's job, the slot a turn holds from its start until
its stream ends, a `cancel` that came before the job was on the commander, the last turn (whose final writes
what comes next waits for) and the turn ids. Compaction marks it busy too (`compacting`), so a turn waits.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tui_agent.agent.events import AgentEvent, TurnFinished
from tui_agent.agent.tree import TreeFeed, TreeObserver, Unsubscribe
from tui_agent.agent.turn import Turn
from tui_agent.commander import CommanderAsync, Job
from tui_agent.errors import UserError

BUSY_MESSAGE = "A reply is still running: press Esc to stop it first."


class TurnInProgressError(UserError, RuntimeError):
    """`send` was called while a turn is still running."""


async def turn_events(events: asyncio.Queue[AgentEvent], turn_id: str) -> AsyncIterator[AgentEvent]:
    """The events of turn `turn_id` from `events`, up to and including its own `TurnFinished`; another turn's
    events (a nested turn's) are left out, and its end does not end this stream."""
    while True:
        event = await events.get()
        if event.turn_id != turn_id:
            continue
        yield event
        if isinstance(event, TurnFinished):
            return


class TurnSlot:
    """One turn at a time: held from a turn's start until its stream ends, a turn asked for meanwhile waits.
    A class, not an `asynccontextmanager`: asyncio closes every live async generator at shutdown, the one
    inside a turn's stream before the stream itself, and contextlib then raised "generator didn't stop after
    athrow()" as a signal ended the app mid-reply."""

    def __init__(self, begins: Callable[[], None]) -> None:
        self._lock = asyncio.Lock()
        self._begins = begins
        """Called once the slot is held (it may refuse the turn by raising)."""

    def locked(self) -> bool:
        return self._lock.locked()

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        try:
            self._begins()
        except BaseException:
            self._lock.release()
            raise

    async def __aexit__(self, *_: object) -> None:
        self._lock.release()


class Turns:
    """The session's commander and the one turn (a `ChatJob`, or a team's `TeamJob`) it runs at a time."""

    def __init__(self) -> None:
        self.commander: CommanderAsync[Any] = CommanderAsync()
        self._tree = TreeFeed(self.commander)
        self._commander_task: asyncio.Task[Any] | None = None
        self._job: Job | None = None
        self.slot = TurnSlot(self._begins)
        """Held by a turn from its start until its stream ends: a turn asked for meanwhile waits. Hold it with
        `async with turns.slot:` so two turns never write one conversation at once (the UI queues its own
        prompts); a compaction running refuses it."""
        self._cancel_asked = False
        """`cancel` came while the turn was being set up (session, prompt, context windows): no job to cancel
        yet, so its job is cancelled as soon as it is on the commander (`start_job`)."""
        self._compacting = False
        self.ended: Turn | None = None
        """The last turn: its end is announced before its final writes are committed (`Turn.end`)."""
        self._ids = itertools.count(1)

    @property
    def busy(self) -> bool:
        """A turn is running, or starting (its stream not ended yet)."""
        return self._job is not None or self.slot.locked()

    @property
    def running(self) -> bool:
        """A turn's job is on the commander."""
        return self._job is not None

    def next_id(self) -> str:
        return f"turn-{next(self._ids)}"

    def check_idle(self) -> None:
        """Refuse while a turn runs or starts (compaction, switching or opening a session); a `cancel` from before
        belonged to no turn of its own."""
        if self.busy or self._compacting:
            raise TurnInProgressError(BUSY_MESSAGE)
        self._cancel_asked = False

    @contextmanager
    def compacting(self) -> Iterator[None]:
        """A compaction runs: a turn asked for meanwhile is refused."""
        self._compacting = True
        try:
            yield
        finally:
            self._compacting = False

    def _begins(self) -> None:
        if self._compacting:
            raise TurnInProgressError(BUSY_MESSAGE)
        self._cancel_asked = False  # a `cancel` from before belonged to an earlier turn, or to none

    async def start_job(self, job: Job) -> None:
        """Put the turn's `job` on the commander, cancelled at once when `cancel` came while it was set up."""
        await self._start_commander()
        self._job = job  # nothing awaits from here until it is in the commander's tree: `cancel` finds it there
        await self.commander.put_job(job, parent=self.commander)
        if self._cancel_asked:
            job.cancel()

    def job_done(self) -> None:
        """The running job's stream has ended (a team run's, which settles its own job)."""
        self._job = None

    async def settle(self, turn: Turn) -> None:
        """The turn's stream has ended: its job is cancelled if it has not finished, its final writes awaited."""
        job, self._job = self._job, None
        if job is not None and not turn.finished:
            job.cancel()
            await job.wait()
        self.ended = turn
        await self.saved()  # history is whole when a turn's events end (the UI stops at `TurnFinished`)

    async def saved(self) -> None:
        """Wait for the last turn's final writes, so what is read or written next comes after them."""
        turn = self.ended
        if turn is not None and turn.finished:  # a turn whose end never began wrote nothing to wait for
            await turn.saved()

    def cancel(self) -> None:
        """Cancel the running turn; a turn still being set up is cancelled as soon as its job starts."""
        if self._job is not None:
            self._job.cancel()
        else:
            self._cancel_asked = True

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        return self._tree.subscribe(observer)

    def cancel_node(self, node_id: int | str) -> bool:
        return self._tree.cancel(node_id)

    async def _start_commander(self) -> None:
        if self._commander_task is None or self._commander_task.done():
            self._commander_task = asyncio.create_task(self.commander.run_async(), name="agent-commander")
            await asyncio.sleep(0)  # let it start before the first job arrives

    async def close(self) -> None:
        """Wait for the last turn's writes (`cancel` it first), then stop the commander."""
        await self.saved()  # before the commander's exit cancels what it still runs
        if self._commander_task is not None:
            self.commander.exit()
            await asyncio.gather(self._commander_task, return_exceptions=True)
