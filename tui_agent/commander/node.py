"""Provides `TaskNode`, the unit of the task tree, and its two kinds: `Job` and `HandlerCoroutine`.

A node completes when its own body has returned **and** every child has ended; then its end
callbacks run, then its parent is told. `cancel()` cancels the whole subtree for real: running bodies
get `CancelledError` (their `finally` blocks run), pending ones never start.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Coroutine, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from tui_agent.commander.callbacks import Callback, CallbackDict, CallbackType, call_entry, check_hook, describe
from tui_agent.commander.errors import CommanderError, NodeEndedError, NotHandlerError, NotTaskerError
from tui_agent.commander.events import NodeKind, NodeState

if TYPE_CHECKING:
    from tui_agent.commander.commander import CommanderAsync

log = logging.getLogger("tui_agent.commander")

current_node: contextvars.ContextVar[TaskNode | None] = contextvars.ContextVar("current_node", default=None)
"""The node whose body is running in the current task (None outside the tree)."""

END_HOOKS: dict[NodeKind, dict[NodeState, CallbackType]] = {
    NodeKind.JOB: {NodeState.COMPLETED: "at_job_end", NodeState.CANCELLED: "at_terminate"},
    NodeKind.HANDLER: {NodeState.COMPLETED: "at_handler_end", NodeState.CANCELLED: "at_terminate"},
    NodeKind.COMMANDER: {},
}


class TaskNode:
    """A node of the task tree: identity, parent/children, state, callbacks and cancellation."""

    kind: ClassVar[NodeKind]

    def __init__(self, callback: Callback | None = None) -> None:
        self._id: int | str | None = getattr(self, "_id", None)
        self._commander: CommanderAsync[Any] | None = None
        self._parent: TaskNode | None = None
        self._children: dict[int, TaskNode] = {}
        self._callback: Callback | None = None
        self._state = NodeState.PENDING
        self._task: asyncio.Task[None] | None = None
        self._started = False
        self._body_done = False
        self._body_cancelled = False
        self._ending = False
        self._cancel_requested = False
        self._done: asyncio.Future[NodeState] | None = None
        self.exception: BaseException | None = None
        """What the body raised, if it failed."""
        self.result: Any = None
        """What the body returned."""
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.title = ""
        """What the node is in the user's words ("turn 3", "get_weather(Paris)", "researcher"), set by whoever
        makes it, before it joins the tree; "" for the engine's own steps, which a task-tree view may leave out."""
        if callback is not None:
            self.add_callback(callback)

    # -- identity and structure -------------------------------------------------------------------
    @property
    def id(self) -> int | str:
        """Unique id, assigned when the node joins the tree (or set by hand, preferably a str)."""
        if self._id is None:
            raise CommanderError(f"{self!r} has no id yet: it has not joined a commander's tree")
        return self._id

    @id.setter  # noqa: A003 - Agere's public name
    def id(self, value: int | str) -> None:
        self._id = value

    @property
    def label(self) -> str:
        """A readable name: the job class or handler function."""
        return type(self).__name__

    @property
    def commander(self) -> CommanderAsync[Any]:
        """The commander managing this node."""
        if self._commander is None:
            raise CommanderError(f"{self!r} has not joined a commander's tree yet")
        return self._commander

    @property
    def parent(self) -> TaskNode | None:
        """The parent node (None for the commander itself)."""
        return self._parent

    @property
    def children(self) -> list[TaskNode]:
        """The children that have not ended yet."""
        return list(self._children.values())

    @property
    def state(self) -> NodeState:
        """Current state: pending, active, completed, failed or cancelled."""
        return self._state

    @property
    def callback(self) -> Callback | None:
        """The callback bundle attached to this node."""
        return self._callback

    def walk(self) -> Iterator[TaskNode]:
        """This node and every live descendant, parents before children."""
        yield self
        for child in list(self._children.values()):
            yield from child.walk()

    def __repr__(self) -> str:
        return f"<{self.label} id={self._id} {self._state.value}>"

    # -- callbacks ----------------------------------------------------------------------------------
    def add_callback_functions(self, which: CallbackType, functions_info: CallbackDict | list[CallbackDict]) -> None:
        """Register callback entries for one hook; a hook that cannot fire on this node is rejected."""
        check_hook(self.kind, which)
        if self._callback is None:
            self._callback = Callback(task_node=self)
        self._callback.add(which, functions_info)
        if which == "at_commander_end" and self._commander is not None:
            self._commander._watch_commander_end(self)

    def add_callback(self, callback: Callback | Sequence[Callback | None]) -> None:
        """Attach a `Callback` bundle (or several, merged); hooks are checked against the node kind."""
        bundle = callback if isinstance(callback, Callback) else Callback.merge(list(callback))
        for which in bundle.used_hooks():
            check_hook(self.kind, which)
        if self._callback is None:
            self._callback = bundle
        else:
            self._callback.update(bundle)
        self._callback._task_node = self

    async def _fire(self, which: str) -> None:
        if self._callback is None:
            return
        for entry in list(self._callback.entries(which)):
            try:
                await call_entry(entry, self)
            except (Exception, asyncio.CancelledError) as exc:  # a callback must never wedge the tree
                if isinstance(exc, asyncio.CancelledError) and not self._body_done:
                    raise  # cancelled during a start callback: the body must not run
                log.exception("callback %s (%s) on %r failed", describe(entry["function"]), which, self)
                self.commander._report_callback_failure(self, which, entry["function"], exc)

    # -- building the tree ------------------------------------------------------------------------
    async def put_job(self, job: Job, parent: TaskNode | None = None, requester: TaskNode | None = None) -> None:
        """Submit a job; its parent is this node unless `parent` is given (`node.commander` detaches it)."""
        self.commander._submit_job(job, parent or self)

    def call_handler(
        self, handler: HandlerCoroutine, parent: TaskNode | None = None, requester: TaskNode | None = None
    ) -> HandlerCoroutine:
        """Start a handler concurrently as a child of this node (or of `parent`); returns it."""
        if not isinstance(handler, HandlerCoroutine):
            raise NotHandlerError(f"{handler!r} is not a handler: decorate the function with @handler(PASS_WORD)")
        self.commander._start_handler(handler, parent or self)
        return handler

    async def exit_commander(self, return_result: Any = None) -> None:
        """Ask the commander to exit with this result; remaining work is cancelled."""
        self.commander.exit(return_result)

    def _adopt(self, child: TaskNode) -> None:
        if self._ending:
            raise NodeEndedError(
                f"cannot add {child!r} under {self!r}: it has already ended; "
                "pass parent=node.commander to start detached work"
            )
        child._parent = self
        child._commander = self.commander
        self._children[id(child)] = child
        if self._cancel_requested:
            child._cancel_requested = True

    # -- running and ending -------------------------------------------------------------------------
    async def _body(self) -> Any:
        raise NotImplementedError

    async def _run(self) -> None:
        """Run the body in this node's own task, then try to end."""
        if self._cancel_requested:
            self._body_cancelled = True
        else:
            await self._run_body()
        self._body_done = True
        if self.exception is not None:
            await self._fire("at_exception")
        await self._maybe_end()

    async def _run_body(self) -> None:
        self._started = True
        self._state = NodeState.ACTIVE
        self.started_at = time.monotonic()
        commander = self._commander
        assert commander is not None
        if commander._observers:
            commander._node_started(self)
        token = current_node.set(self)
        try:
            if self._callback is not None:
                await self._fire("at_job_start" if self.kind is NodeKind.JOB else "at_handler_start")
            self.result = await self._body()
            if self._cancel_requested:
                await asyncio.sleep(0)  # the body cancelled itself and returned: take the pending cancel here
        except asyncio.CancelledError:
            self._body_cancelled = True
            if self._cancel_requested and (task := asyncio.current_task()) is not None:
                task.uncancel()  # this cancel was ours and ends here; keep timeouts in this task working
        except Exception as exc:
            self.exception = exc
            log.warning("%r failed: %s", self, exc, exc_info=exc)
        finally:
            current_node.reset(token)

    async def _maybe_end(self) -> None:
        if self._ending or not self._body_done or self._children:
            return
        self._ending = True
        if self.exception is not None:
            self._state = NodeState.FAILED
        elif self._cancel_requested or self._body_cancelled:
            self._state = NodeState.CANCELLED
        else:
            self._state = NodeState.COMPLETED
        self.finished_at = time.monotonic()
        commander = self._commander
        assert commander is not None
        commander._node_ended(self)
        if self._callback is not None and (hook := END_HOOKS[self.kind].get(self._state)) is not None:
            await self._fire(hook)
        if self._done is not None and not self._done.done():
            self._done.set_result(self._state)
        parent = self._parent
        if parent is not None:
            del parent._children[id(self)]
            await parent._maybe_end()

    def cancel(self) -> bool:
        """Cancel this node and its whole subtree; returns False if it had already ended."""
        if self._ending:
            return False
        for node in list(self.walk()):
            if node._ending:
                continue
            node._cancel_requested = True
            if node._started and not node._body_done and node._task is not None:
                node._task.cancel()
            elif not node._started and node._task is None and node.kind is NodeKind.JOB:
                self.commander._finish_unstarted(node)
        return True

    async def wait(self) -> NodeState:
        """Wait until this node has ended; returns its final state."""
        if self._ending:
            return self._state
        if self._done is None:
            self._done = asyncio.get_running_loop().create_future()
        return await self._done


def _is_tasker(method: Any) -> bool:
    return getattr(method, "_tasker_", False) is True


class Job(TaskNode):
    """A unit of work. Subclass it and define `run()` (native) or `@tasker(PASS_WORD) async def task()`.

    The body may return a handler, which then runs as this job's child. Job bodies run one at a time in
    submission order, so keep them short and delegate slow work to handlers.
    """

    kind = NodeKind.JOB

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        task = cls.__dict__.get("task")
        if task is not None and not _is_tasker(task):
            raise NotTaskerError(
                f"{cls.__qualname__}.task must be decorated with @tasker(PASS_WORD), or define run() instead"
            )

    async def task(self) -> HandlerCoroutine | None:
        """The Agere-style body; by default it runs the native `run()`."""
        return await self.run()

    task._tasker_ = True  # type: ignore[attr-defined]

    async def run(self) -> HandlerCoroutine | None:
        """The native body: override this (no decorator needed)."""
        raise NotImplementedError(f"{type(self).__qualname__} must define run() or a @tasker task()")

    async def _body(self) -> Any:
        outcome = await self.task()
        if isinstance(outcome, HandlerCoroutine):
            self.call_handler(outcome)
        elif outcome is not None:
            raise TypeError(f"{self.label}.task() returned {type(outcome).__name__}; it may return a handler or None")
        return outcome


class HandlerCoroutine(TaskNode):
    """A running handler: wraps the coroutine of a `@handler` function, which receives this node."""

    kind = NodeKind.HANDLER

    def __init__(self, name: str = "handler") -> None:
        super().__init__()
        self._name = name
        self.coro: Coroutine[Any, Any, Any] | None = None

    @property
    def label(self) -> str:
        return self._name

    def named(self, name: str, title: str = "") -> HandlerCoroutine:
        """This handler, shown in the tree as `name` instead of its function's name (a tool call: the tool), and
        to the user as `title` (see `TaskNode.title`)."""
        self._name = name
        self.title = title
        return self

    async def _body(self) -> Any:
        assert self.coro is not None
        return await self.coro

    async def _maybe_end(self) -> None:
        if self._body_done and not self._started and self.coro is not None:
            self.coro.close()  # cancelled before it ran: close it so Python does not warn "never awaited"
        await super()._maybe_end()

    def __await__(self) -> Any:
        """Awaiting a handler that is not yet running starts it as a child of the current node."""
        return self._await_result().__await__()

    async def _await_result(self) -> Any:
        if self._commander is None:
            parent = current_node.get()
            if parent is None:
                if self.coro is not None:
                    self.coro.close()
                raise CommanderError(f"await {self!r} from inside a job or handler, or use call_handler()")
            parent.call_handler(self)
        await self.wait()
        return self.result
