"""Provides `Rewinds`: the files the conversation tree carries, moved with the conversation in one chat screen —
"rewind to here" on a message (`u` on the message cursor, the palette), the offer to bring the files along when
a branch is switched to, a reply regenerated or a prompt edited, and undoing the last rewind.

Every move is asked first (`FilesScreen`: the files, their diffs, conflicts with the person's own edits) and
done through the port (`FilesPort`); the plan is the engine's. A rewind to a prompt puts that prompt back in
the box (Enter sends it as a new version, the old branch kept); to a reply, the box starts empty and the next
prompt continues from that reply. What would be dropped shows dimmed until then; Esc puts it back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Protocol

from tui_agent.errors import user_message
from tui_agent.ui.screens.files_restore import FilesScreen
from tui_agent.ui.widgets.messages import UserMessage

if TYPE_CHECKING:
    from tui_agent.agent.events import AgentEvent
    from tui_agent.agent.port import ChatBackend
    from tui_agent.agent.rewind import FilesPlan
    from tui_agent.ui.hosts import ChatEngine, ChatIdle, ChatWidgets, ScreenNode
    from tui_agent.ui.screens.chat_turns import TurnOf
    from tui_agent.ui.widgets.messages import MarkedMessage

    class RewindEdits(Protocol):
        """The chat screen's branches (`Branches`): a rewind continues as an edit of the prompt after it."""

        def begin_edit(self, entry: UserMessage, text: str | None = None, *, rewound: bool = False) -> None: ...

    class RewindHost(ScreenNode, ChatWidgets, ChatEngine, ChatIdle, Protocol):
        """What the rewinds use of their chat screen."""

        @property
        def branches(self) -> RewindEdits: ...


BUSY = "A reply is running: press Esc to stop it first."
UNDO_HINT = "Undo: “Undo the last rewind” in the palette."


class Rewinds:
    """Rewinds and the files offers of one chat screen."""

    def __init__(self, screen: RewindHost) -> None:
        self.screen = screen

    async def rewind(self, entry: MarkedMessage) -> None:
        """Rewind to `entry`: the files (asked first) and the conversation back to that point."""
        screen, message_id = self.screen, entry.message_id
        if not screen.idle:
            screen.notify(BUSY, severity="warning")
            return
        if message_id is None:
            screen.notify("This message is not stored yet: nothing to rewind to.", severity="warning")
            return
        backend = await screen.engine.engine()
        try:
            plan = await backend.plan_rewind(message_id)
        except Exception as error:  # a message on another branch, a history that cannot be read: said
            screen.notify(f"Cannot rewind: {user_message(error)}", severity="error")
            return
        if plan.edit_prompt is None and plan.files.empty:
            screen.notify("Nothing to rewind: the conversation ends here and the files are as they were then.")
            return
        if not plan.files.empty:
            shown = FilesScreen(
                plan.files,
                title="Rewind to here: the conversation and the files go back to this point",
                restore="Rewind files and conversation",
                keep="Conversation only" if plan.edit_prompt is not None else None,
                cancel=True,
            )
            answer = await screen.app.push_screen_wait(shown)
            if answer is None:
                return
            if answer.restore:
                await self._restore(backend, plan.files, answer.overwrite)
        if plan.edit_prompt is not None:
            self._continue_from(plan.edit_prompt, plan.prompt_text)

    def _continue_from(self, prompt_id: str, text: str) -> None:
        """The next prompt is sent as a new version of `prompt_id`, starting from `text`."""
        prompt = next(
            (e for e in self.screen.chat_log.entries if isinstance(e, UserMessage) and e.message_id == prompt_id),
            None,
        )
        if prompt is None:
            self.screen.notify("That prompt is no longer on screen: scroll up to it and press e to edit it.")
            return
        self.screen.branches.begin_edit(prompt, text, rewound=True)

    async def undo(self) -> None:
        """Take the last rewind (or files brought along) back, asked first."""
        screen = self.screen
        if not screen.idle:
            screen.notify(BUSY, severity="warning")
            return
        backend = await screen.engine.engine()
        try:
            plan = await backend.plan_undo_restore()
        except Exception as error:  # no session yet, a history that cannot be read: said
            screen.notify(f"Cannot undo: {user_message(error)}", severity="error")
            return
        if plan is None or plan.empty:
            screen.notify("No rewind to undo." if plan is None else "The files are already as before the last rewind.")
            return
        shown = FilesScreen(plan, title="Undo the last rewind", restore="Put the files back", keep=None, cancel=True)
        answer = await screen.app.push_screen_wait(shown)
        if answer is not None and answer.restore:
            await self._restore(backend, plan, answer.overwrite, hint=False)

    async def offer(self, backend: ChatBackend, planned: Awaitable[FilesPlan], title: str, restore: str) -> None:
        """When `planned` moves any file, ask whether to bring the files along (keeping them is the default)."""
        try:
            plan = await planned
        except Exception as error:  # the conversation moves on; the files are said not to
            self.screen.notify(f"The files stay as they are: {user_message(error)}", severity="warning")
            return
        if plan.empty:
            return
        shown = FilesScreen(plan, title=title, restore=restore, keep="Keep the files as they are")
        answer = await self.screen.app.push_screen_wait(shown)
        if answer is not None and answer.restore:
            await self._restore(backend, plan, answer.overwrite)

    def files_first(self, message_id: str, turn: TurnOf, doing: str) -> TurnOf:
        """`turn` (a regeneration of, or an edit of, `message_id`), after offering to bring the files back to the
        point before that message."""

        async def run(backend: ChatBackend) -> AsyncIterator[AgentEvent]:
            title = f"{doing}: the replies after this point changed files"
            await self.offer(backend, backend.plan_files_before(message_id), title, "Restore them first")
            async for event in turn(backend):
                yield event

        return run

    async def _restore(
        self, backend: ChatBackend, plan: FilesPlan, overwrite: frozenset[str], *, hint: bool = True
    ) -> None:
        try:
            outcome = await backend.restore_files(plan, overwrite)
        except Exception as error:  # nothing half-done is hidden: the files written so far are recorded
            self.screen.notify(f"The files could not be restored: {user_message(error)}", severity="error")
            return
        said = outcome.summary() + (f" {UNDO_HINT}" if hint and outcome.restored else "")
        if outcome.failed:
            self.screen.notify(said, severity="warning")
        else:
            self.screen.notify(said)
