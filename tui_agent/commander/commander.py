"""Provides `CommanderAsync`: the root of the task tree, the job dispatcher, exit and observers.

Job bodies run one at a time in submission order (Agere's rule: a job body only decides what to do
next); handlers run concurrently as tasks. `run_async` runs inside an existing event loop (Textual's);
`run` is the blocking form for scripts.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from tui_agent.commander.callbacks import describe
from tui_agent.commander.errors import CommanderAlreadyRunningError, CommanderError, RunInsideLoopError
from tui_agent.commander.events import (
    CallbackFailed,
    NodeCancelled,
    NodeCreated,
    NodeEvent,
    NodeFailed,
    NodeFinished,
    NodeKind,
    NodeStarted,
    NodeState,
)
from tui_agent.commander.node import HandlerCoroutine, Job, TaskNode, current_node

T = TypeVar("T")
Observer = Callable[[NodeEvent], None]
log = logging.getLogger("tui_agent.commander")


class CommanderAsync(TaskNode, Generic[T]):
    """Runs a tree of jobs and handlers until `exit_commander` (or, with `auto_exit`, until it is empty)."""

    kind = NodeKind.COMMANDER

    def __init__(self, shutdown_grace: float = 5.0) -> None:
        super().__init__()
        self._commander = self
        self._ids = itertools.count(1)
        self._id = 0
        self._queue: deque[Job] = deque()
        self._wakeup: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._observers: list[Observer] = []
        self._commander_end_nodes: list[TaskNode] = []
        self._nodes: dict[int | str, TaskNode] = {}
        self._running = False
        self._closing = False
        self._auto_exit = False
        self._return_result: T | None = None
        self.shutdown_grace = shutdown_grace
        """Seconds to wait for cancelled work to unwind at exit before giving up on it."""

    @property
    def label(self) -> str:
        return "commander"

    @property
    def running_status(self) -> bool:
        """Whether the commander is running."""
        return self._running

    def is_empty(self) -> bool:
        """Whether no job or handler is left in the tree."""
        return not self._children

    def get_node(self, node_id: int | str) -> TaskNode | None:
        """The live node with this id, if any (the UI cancels a subtree by id)."""
        return self._nodes.get(node_id)

    # -- running ------------------------------------------------------------------------------------
    def run(self, job: Job | Sequence[Job] | None = None, auto_exit: bool = False) -> T | None:
        """Block until the commander exits and return the exit result; for scripts, not inside a loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run_async(job, auto_exit=auto_exit))
        raise RunInsideLoopError("run() blocks and cannot be called inside a running event loop; use await run_async()")

    async def run_async(self, job: Job | Sequence[Job] | None = None, auto_exit: bool = False) -> T | None:
        """Run inside the current event loop until exit; returns the exit result (None if none was given)."""
        if self._running:
            raise CommanderAlreadyRunningError(f"{self!r} is already running")
        self._start_run(auto_exit)
        dispatcher = asyncio.create_task(self._dispatch(), name="commander-dispatch")
        try:
            for one in [job] if isinstance(job, Job) else list(job or []):
                self._submit_job(one, self)
            self._check_idle()
            assert self._stop is not None
            await self._stop.wait()
        finally:
            await self._shut_down(dispatcher)
        return self._return_result

    def _start_run(self, auto_exit: bool) -> None:
        self._running, self._closing, self._auto_exit = True, False, auto_exit
        self._return_result = None
        self._state = NodeState.ACTIVE
        self._wakeup, self._stop = asyncio.Event(), asyncio.Event()
        self._commander_end_nodes = [self] if self._callback else []
        if self._queue:
            self._wakeup.set()

    def exit(self, return_result: T | None = None) -> None:
        """Ask the commander to exit with `return_result`; running work is cancelled, not completed."""
        self._return_result = return_result
        if self._stop is not None:
            self._stop.set()

    async def _shut_down(self, dispatcher: asyncio.Task[None]) -> None:
        self._closing = True
        for child in list(self._children.values()):
            child.cancel()
        assert self._wakeup is not None
        self._wakeup.set()
        await asyncio.wait((dispatcher,), timeout=self.shutdown_grace)
        dispatcher.cancel()
        await asyncio.gather(dispatcher, return_exceptions=True)
        await self._drain()
        self._queue.clear()
        for node in self._commander_end_nodes:
            await node._fire("at_commander_end")
        self._commander_end_nodes = []
        self._state = NodeState.COMPLETED
        self._running = False

    async def _drain(self) -> None:
        deadline = time.monotonic() + self.shutdown_grace
        while self._tasks:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                log.error("%d task(s) ignored cancellation; abandoning them", len(self._tasks))
                self._tasks.clear()
                self._children.clear()
                return
            await asyncio.wait(set(self._tasks), timeout=remaining)

    # -- scheduling -----------------------------------------------------------------------------
    async def put_job(self, job: Job, parent: TaskNode | None = None, requester: TaskNode | None = None) -> None:
        """Submit a job under `parent`, else under the node running this code, else under the commander."""
        self._submit_job(job, parent or current_node.get() or self)

    def call_handler(
        self, handler: HandlerCoroutine, parent: TaskNode | None = None, requester: TaskNode | None = None
    ) -> HandlerCoroutine:
        """Start a handler under `parent`, else under the node running this code, else under the commander."""
        return (parent or current_node.get() or self).call_handler(handler)

    def _join(self, node: TaskNode, parent: TaskNode) -> None:
        parent._adopt(node)
        if node._id is None:
            node._id = next(self._ids)
        self._nodes[node._id] = node
        if self._closing:
            node._cancel_requested = True
        if node._callback is not None and node._callback.at_commander_end:
            self._watch_commander_end(node)
        if self._observers:
            self._emit(NodeCreated(node.id, parent._id, node.kind, node.label, time.monotonic(), title=node.title))

    def _submit_job(self, job: Job, parent: TaskNode) -> None:
        if not isinstance(job, Job):
            raise CommanderError(f"{job!r} is not a Job")
        self._join(job, parent)
        self._queue.append(job)
        if self._wakeup is not None:
            self._wakeup.set()

    def _start_handler(self, handler: HandlerCoroutine, parent: TaskNode) -> None:
        self._join(handler, parent)
        handler._task = self._spawn(handler._run())

    def _finish_unstarted(self, job: TaskNode) -> None:
        job._body_cancelled = job._body_done = True
        self._spawn(job._maybe_end())

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _dispatch(self) -> None:
        """Run queued job bodies one at a time, inline in this task.

        Inline rather than one task per job: most bodies never suspend, so many run per loop iteration.
        While a body runs, the job's `_task` is this task, so cancelling the job cancels just its body.
        """
        wakeup, dispatcher = self._wakeup, asyncio.current_task()
        assert wakeup is not None and dispatcher is not None
        while not self._closing:
            while self._queue:
                job = self._queue.popleft()
                if job._cancel_requested or job._body_done:
                    continue  # cancelled while waiting: _finish_unstarted ends it
                job._task = dispatcher
                await job._run()
            wakeup.clear()
            if not self._closing:
                await wakeup.wait()

    # -- tree bookkeeping -----------------------------------------------------------------------
    async def _maybe_end(self) -> None:
        self._check_idle()

    def _check_idle(self) -> None:
        if self._auto_exit and not self._children and self._stop is not None:
            self._stop.set()

    def _watch_commander_end(self, node: TaskNode) -> None:
        if node not in self._commander_end_nodes:
            self._commander_end_nodes.append(node)

    def cancel(self) -> bool:
        """Cancel every job and handler in the tree; the commander keeps running."""
        for child in list(self._children.values()):
            child.cancel()
        return True

    # -- observers ------------------------------------------------------------------------------
    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Deliver every node event to `observer`; returns a function that unsubscribes it."""
        self._observers.append(observer)
        return lambda: self._observers.remove(observer) if observer in self._observers else None

    def _emit(self, event: NodeEvent) -> None:
        for observer in list(self._observers):
            try:
                observer(event)
            except Exception:
                log.exception("commander observer %s failed on %s", describe(observer), type(event).__name__)

    def _node_started(self, node: TaskNode) -> None:
        if self._observers:
            parent_id = node._parent._id if node._parent else None
            at = node.started_at or time.monotonic()
            self._emit(NodeStarted(node.id, parent_id, node.kind, node.label, at, title=node.title))

    def _node_ended(self, node: TaskNode) -> None:
        self._nodes.pop(node.id, None)
        if not self._observers:
            return
        parent_id = node._parent._id if node._parent else None
        common = (node.id, parent_id, node.kind, node.label, node.finished_at or time.monotonic(), node.started_at)
        if node.state is NodeState.FAILED:
            error = str(node.exception) or type(node.exception).__name__
            self._emit(NodeFailed(*common, error=error, title=node.title))
        elif node.state is NodeState.CANCELLED:
            self._emit(NodeCancelled(*common, title=node.title))
        else:
            self._emit(NodeFinished(*common, title=node.title))

    def _report_callback_failure(self, node: TaskNode, which: str, function: Any, exc: BaseException) -> None:
        if self._observers:
            parent_id = node._parent._id if node._parent else None
            error = str(exc) or type(exc).__name__
            common = (node.id, parent_id, node.kind, node.label, time.monotonic())
            self._emit(CallbackFailed(*common, hook=which, function=describe(function), error=error))
