"""Provides `compact_then_send`: the chat screen's compaction, from the palette ("Compact conversation") or
before a turn once the context has reached the configured share of the model's window (`compact_at`).

While the model writes the summary the status line says so and prompts sent meanwhile wait in the queue.
Then the screen is drawn again from history — the compacted messages collapsed, the summary where it was
made — with a line saying what happened, and the prompts that waited are sent. A compaction that fails (or
finds nothing to compact) changes nothing: the reason is shown and the prompts are sent as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tui_agent.errors import EngineUnavailableError, user_message
from tui_agent.ui.fresh_chat import FreshChatWanted

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Sequence

    from tui_agent.agent.compaction import Compaction
    from tui_agent.agent.meter import Meter
    from tui_agent.ui.hosts import ChatEngine, ChatWidgets, ScreenNode

    class Turns(Protocol):
        """The screen's turns (`TurnRunner`), as a compaction waits for them and hands them its prompts."""

        @property
        def turn_lock(self) -> asyncio.Lock: ...

        def send_prompts(self, prompts: Sequence[str]) -> None: ...

    class CompactionHost(ScreenNode, ChatWidgets, ChatEngine, Protocol):
        """What a compaction uses of its chat screen."""

        @property
        def turns(self) -> Turns: ...


async def compact_then_send(screen: CompactionHost, prompt: str | None) -> None:
    """Compact the conversation (before `prompt`, when the context is full; from the palette when None),
    then send `prompt` and whatever was queued meanwhile."""
    async with screen.turns.turn_lock:
        try:
            backend = await screen.engine.engine()
        except EngineUnavailableError as error:
            screen.notify(error.user_message, severity="error")
            return
        before = backend.meter
        screen.status_bar.set_compacting(True)
        try:
            done = await backend.compact(auto=prompt is not None)
        except Exception as error:  # every failure is a sentence (the model's, or nothing to compact)
            failed: str | None = user_message(error)
        else:
            failed = None
        finally:
            screen.status_bar.set_compacting(False)
    waiting = [prompt] if prompt is not None else []
    while (queued := screen.queued.take_first()) is not None:
        waiting.append(queued)
    if failed is not None:
        screen.notify(failed + (" The prompt is sent as it is." if prompt is not None else ""), severity="warning")
        screen.turns.send_prompts(waiting)
        return
    note = compacted_note(done, before, auto=prompt is not None)
    screen.app.post_message(FreshChatWanted(note=note, then_send=waiting))


def compacted_note(done: Compaction, before: Meter, *, auto: bool) -> str:
    """The line the redrawn conversation starts its end with: what was compacted, and why when automatic."""
    count = len(done.compacted)
    what = f"{count} older message{'s' if count != 1 else ''} were compacted into the summary above"
    if done.pieces > 1:  # the model could not read them at once
        what += f" (summarised in {done.pieces} pieces, as together they do not fit the model's context window)"
    share = before.context_share
    if auto and share is not None and before.context_window is not None:
        return (
            f"The context had reached {share:.0%} of the model's {before.context_window:,} tokens: {what}, "
            "before your prompt was sent. They stay above, collapsed; the model gets the summary instead."
        )
    return f"{what[:1].upper()}{what[1:]}. They stay above, collapsed; the model gets the summary instead."
