"""Provides `FileRewinds`: the current session's files moved along its conversation tree, as the UI asks —
"rewind to here" from a message, the files of another branch after a switch, the files before a message about
to be regenerated or edited, and the last restore taken back. Each is a plan first (`agent/rewind.py`), shown
and confirmed by the person; nothing is written until `restore_files`. A part of `Agent`."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from tui_agent.agent.chat_state import ChatState, NotInSessionError
from tui_agent.agent.sessions import SessionBusyError
from tui_agent.agent.turns import BUSY_MESSAGE, Turns

if TYPE_CHECKING:  # the planning and restoring load with the first rewind (a `-p` run never rewinds)
    from tui_agent.agent.rewind import FilesPlan, RestoreOutcome, Rewind


class FileRewinds:
    """Rewinds of the current session's files (and the conversation point they go with)."""

    def __init__(self, state: ChatState, turns: Turns) -> None:
        self._state, self._turns = state, turns

    async def _session_id(self) -> str:
        if self._turns.running:
            raise SessionBusyError(BUSY_MESSAGE)
        await self._turns.saved()  # the last call's changes are read, not missed
        if self._state.session is None:
            raise NotInSessionError("There is no session yet: nothing to rewind.")
        return self._state.session.id

    async def active_leaf(self) -> str | None:
        """The newest message of the branch now active (None: no session, or an empty one)."""
        if self._state.session is None:
            return None
        await self._turns.saved()
        session = await self._state.store.get_session(self._state.session.id)
        return None if session is None else session.active_leaf_id

    async def plan_rewind(self, message_id: str) -> Rewind:
        """What "rewind to here" on message `message_id` does: the files back to that point (the disk read
        now), and the prompt whose new version comes next."""
        from tui_agent.agent.rewind import Rewind, plan_files, rewind_point  # deferred: `-p` never rewinds

        session_id = await self._session_id()
        leaf = await self.active_leaf()
        point, prompt = rewind_point(await self._state.store.tree(session_id), leaf, message_id)
        files = await plan_files(self._state.store, session_id, leaf, point)
        if prompt is None:
            return Rewind(files, None)
        return Rewind(files, prompt.id, prompt.content if prompt.id == message_id else "")

    async def plan_files_before(self, message_id: str) -> FilesPlan:
        """The files brought from the active branch to the point just before `message_id` (a reply about to be
        regenerated, a prompt about to be edited)."""
        from tui_agent.agent.rewind import plan_files  # deferred: `-p` never rewinds

        session_id = await self._session_id()
        _, message = await self._state.message_here(message_id)
        return await plan_files(self._state.store, session_id, await self.active_leaf(), message.parent_id)

    async def plan_branch_files(self, left: str | None) -> FilesPlan:
        """The files brought from branch point `left` (the leaf before a switch) to the active branch."""
        from tui_agent.agent.rewind import plan_files  # deferred: `-p` never rewinds

        session_id = await self._session_id()
        return await plan_files(self._state.store, session_id, left, await self.active_leaf())

    async def plan_undo_restore(self) -> FilesPlan | None:
        """The last restore of the session's files taken back (None: there was none)."""
        from tui_agent.agent.rewind import plan_undo  # deferred: `-p` never rewinds

        return await plan_undo(self._state.store, await self._session_id())

    async def restore_files(self, plan: FilesPlan, overwrite: Collection[str] = ()) -> RestoreOutcome:
        """Do `plan` (conflicts only for the files named in `overwrite`), recorded so it can be undone."""
        from tui_agent.agent.rewind import restore_files  # deferred: `-p` never rewinds

        if self._turns.running:
            raise SessionBusyError(BUSY_MESSAGE)
        return await restore_files(self._state.store, plan, overwrite)
