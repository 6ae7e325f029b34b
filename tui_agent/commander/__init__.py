"""The commander: an async engine of jobs and handlers forming a task tree, with completion callbacks.

A **job** is a short step that decides what happens next; a **handler** is a long-running coroutine
(streaming a reply, running a tool). Both are nodes of one tree. A node completes when its own body
has returned *and* every child has completed; then its end callbacks fire, then its parent is told.
So "when this whole turn is done, start the next one" is an `at_job_end` callback.

Native API::

    from tui_agent.commander import Commander, Job, as_handler

    class Greet(Job):
        async def run(self):                 # a job body; may return a handler to run as its child
            return say_hello("world")

    @as_handler
    async def say_hello(node, who):          # first parameter: the handler's own node
        node.call_handler(other_handler())   # fork concurrent children
        await node.put_job(NextStep())       # or queue a job (child of this node by default)
        print("hello", who)

    result = await Commander().run_async(Greet(), auto_exit=True)   # inside a running loop
    commander.run(Greet(), auto_exit=True)                            # blocking, for scripts

Agere-compatible API (the tutorial in shared/seeds/agere-getting-started.md runs unchanged but for
its imports): `PASS_WORD`, `CommanderAsync`, `Callback`, `Job` with `@tasker(PASS_WORD) async def task`,
`@handler(PASS_WORD)` functions and methods receiving `self_handler`, `put_job(job, parent=...)`,
`call_handler`, `add_callback_functions(which=..., functions_info={...})`, `exit_commander(...)`.

Beyond Agere: `node.cancel()` really cancels a subtree (`at_terminate` fires, `finally` blocks run);
errors mark a node failed and fire `at_exception` (siblings carry on); a raising callback is logged and
reported as a `CallbackFailed` event; a hook that cannot fire on a node kind is rejected;
`commander.subscribe(observer)` delivers typed node events.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui_agent.commander.callbacks import Callback, CallbackDict, CallbackType, Params
    from tui_agent.commander.commander import CommanderAsync
    from tui_agent.commander.decorators import PASS_WORD, as_handler, handler, tasker
    from tui_agent.commander.errors import (
        CommanderAlreadyRunningError,
        CommanderError,
        InvalidCallbackError,
        NodeEndedError,
        NotHandlerError,
        NotTaskerError,
        RunInsideLoopError,
        WrongPasswordError,
    )
    from tui_agent.commander.events import (
        CallbackFailed,
        NodeCancelled,
        NodeCreated,
        NodeEnded,
        NodeEvent,
        NodeFailed,
        NodeFinished,
        NodeKind,
        NodeStarted,
        NodeState,
    )
    from tui_agent.commander.node import HandlerCoroutine, Job, TaskNode, current_node

    Commander = CommanderAsync

_HOMES = {
    "Callback": "callbacks",
    "CallbackDict": "callbacks",
    "CallbackFailed": "events",
    "CallbackType": "callbacks",
    "CommanderAlreadyRunningError": "errors",
    "CommanderAsync": "commander",
    "CommanderError": "errors",
    "HandlerCoroutine": "node",
    "InvalidCallbackError": "errors",
    "Job": "node",
    "NodeCancelled": "events",
    "NodeCreated": "events",
    "NodeEnded": "events",
    "NodeEndedError": "errors",
    "NodeEvent": "events",
    "NodeFailed": "events",
    "NodeFinished": "events",
    "NodeKind": "events",
    "NodeStarted": "events",
    "NodeState": "events",
    "NotHandlerError": "errors",
    "NotTaskerError": "errors",
    "PASS_WORD": "decorators",
    "Params": "callbacks",
    "RunInsideLoopError": "errors",
    "TaskNode": "node",
    "WrongPasswordError": "errors",
    "as_handler": "decorators",
    "current_node": "node",
    "handler": "decorators",
    "tasker": "decorators",
    "Commander": "commander",
}
"""Where each public name lives: they are imported on first use, so importing one module of the
package (the UI imports `commander.events` before its first paint) does not load the engine."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), "CommanderAsync" if name == "Commander" else name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "PASS_WORD",
    "Callback",
    "CallbackDict",
    "CallbackFailed",
    "CallbackType",
    "Commander",
    "CommanderAlreadyRunningError",
    "CommanderAsync",
    "CommanderError",
    "HandlerCoroutine",
    "InvalidCallbackError",
    "Job",
    "NodeCancelled",
    "NodeCreated",
    "NodeEndedError",
    "NodeEnded",
    "NodeEvent",
    "NodeFailed",
    "NodeFinished",
    "NodeKind",
    "NodeStarted",
    "NodeState",
    "NotHandlerError",
    "NotTaskerError",
    "Params",
    "RunInsideLoopError",
    "TaskNode",
    "WrongPasswordError",
    "as_handler",
    "current_node",
    "handler",
    "tasker",
]
