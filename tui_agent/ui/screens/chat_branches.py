"""Provides `Branches`: the conversation tree in one chat screen — the `‹2/3›` marks, and edit, regenerate,
switch branch and fork, sent through the port (`ChatPort.edit`, `regenerate`, `siblings`, `switch_branch`,
`SessionLibrary.fork_session`).

Marks are asked of the port as messages mount (once per message, remembered) and asked again after a turn
that made a sibling. An edit or a regeneration takes the entries after the branch point out of the log (and
their tool calls out of the column), then runs its turn like any other; a switch redraws the conversation
from history along the new active branch, tool calls included, so the column follows the log. The status
line says when the branch shown is not the newest one.
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import TYPE_CHECKING, Protocol

from textual.command import SimpleCommand

from tui_agent.errors import EngineUnavailableError, user_message
from tui_agent.ui.fresh_chat import FreshChatWanted
from tui_agent.ui.history_view import HISTORY_PAGE, message_widgets, tool_update
from tui_agent.ui.widgets.branch_mark import branch_label
from tui_agent.ui.widgets.messages import MarkedMessage, UserMessage

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from textual.timer import Timer
    from textual.widget import Widget
    from textual.worker import Worker

    from tui_agent.agent.events import AgentEvent
    from tui_agent.agent.port import ChatBackend
    from tui_agent.agent.records import Attachment
    from tui_agent.ui.history_view import HistoryView
    from tui_agent.ui.hosts import ChatEngine, ChatIdle, ChatWidgets, ScreenNode
    from tui_agent.ui.screens.chat_rewind import Rewinds
    from tui_agent.ui.screens.chat_turns import TurnOf
    from tui_agent.ui.widgets.messages import AssistantMessage

    class BranchTurns(Protocol):
        """The screen's turns (`TurnRunner`): an edit or a regeneration runs as one."""

        def start_branch_turn(self, turn: TurnOf) -> None: ...

    class BranchesHost(ScreenNode, ChatWidgets, ChatEngine, ChatIdle, Protocol):
        """What the branches use of their chat screen."""

        @property
        def turns(self) -> BranchTurns: ...

        @property
        def history(self) -> HistoryView: ...

        @property
        def rewinds(self) -> Rewinds: ...


MARK_DELAY = 0.15
"""Seconds without a message mounting before the marks of those mounted are asked for."""
EDITING_TITLE = "editing — Enter sends it as a new version (the old one is kept), Esc cancels"
REWOUND_TITLE = "rewound — Enter continues from here (the dimmed branch is kept), Esc puts it back"
BUSY = "A reply is running: press Esc to stop it first."


def version_model(models: list[str | None], index: int, session_model: str) -> str:
    """The model version `index` names beside its mark (`models`: each version's): the one that made it, when the
    versions were not all made with the session's model (a regeneration with another model); "" otherwise."""
    made = {model or "" for model in models}
    return models[index] or "" if len(models) > 1 and made != {session_model} and "" not in made else ""


class Branches:
    """Marks, edits, regenerations, switches and forks for one chat screen."""

    def __init__(self, screen: BranchesHost) -> None:
        self.screen = screen
        self.marks: dict[str, tuple[int, int, str]] = {}
        """(index, count, model) among its siblings, by message id, as the port last said (see `version_model`)."""
        self._wanted: dict[str, list[MarkedMessage]] = {}
        self._asking: Timer | None = None
        self._asker: Worker[None] | None = None
        self.editing: UserMessage | None = None
        """The prompt whose new version is in the prompt box."""
        self._asked_again = False
        """A turn that makes a sibling runs: marks are asked again when it ends."""
        self._files_pending: UserMessage | None = None
        """The prompt being edited whose files are still being read back (sent meanwhile, it keeps them)."""
        self.rewound = False
        """The edit comes from a rewind, whose files were asked about already (not asked again on sending)."""

    async def _backend(self) -> ChatBackend:
        return await self.screen.engine.engine()

    # -- marks ----------------------------------------------------------------------------------------
    def want(self, entry: MarkedMessage, message_id: str) -> None:
        """Show `entry`'s mark: at once when known, else once the port has said (asked when messages have
        stopped mounting for a moment: a scroll through pages asks for those left on screen only)."""
        if (mark := self.marks.get(message_id)) is not None:
            entry.branch_mark.show(*mark)
            self._say_branch()
            return
        self._wanted.setdefault(message_id, []).append(entry)
        if self._asking is not None:
            self._asking.stop()
        self._asking = self.screen.set_timer(MARK_DELAY, self._ask_soon, name="branch-marks")

    def stop(self) -> None:
        """The screen is retired: no more marks are asked for or shown."""
        if self._asking is not None:
            self._asking.stop()
        self._asking = None
        self._wanted.clear()

    def _ask_soon(self) -> None:
        if self.screen.retired:
            return
        if self._asker is not None and not self._asker.is_finished:  # still asking: ask again once it is done
            self._asking = self.screen.set_timer(MARK_DELAY, self._ask_soon, name="branch-marks")
            return
        self._asking = None
        self._asker = self.screen.run_worker(self._ask_marks(), group="branch-marks", exit_on_error=False)

    async def _ask_marks(self) -> None:
        with contextlib.suppress(EngineUnavailableError):  # said by the app; marks are only decoration
            backend = await self._backend()
            while self._wanted:
                message_id, entries = self._wanted.popitem()
                shown = [entry for entry in entries if entry.is_attached]
                if not shown:
                    continue  # let go meanwhile: a copy mounted later asks again
                try:
                    found = await backend.siblings(message_id)
                    models = [message.model for message in found.messages]
                    mark = (found.index, len(models), version_model(models, found.index, backend.model))
                except Exception:  # a message not (yet) stored, a history that can't be read: no mark
                    mark = (0, 1, "")
                self.marks[message_id] = mark
                for entry in shown:
                    if entry.message_id == message_id:  # (a cut-off reply's widget goes on as its continuation)
                        entry.branch_mark.show(*mark)
            self._say_branch()

    def ask_again(self) -> None:
        """A sibling was made: every mounted message asks for its mark anew."""
        self.marks.clear()
        for entry in self.screen.chat_log.entries:
            if isinstance(entry, MarkedMessage) and (message_id := entry.message_id) is not None:
                self.want(entry, message_id)

    def _say_branch(self) -> None:
        """The status line says when a message shown has a newer version than the one on this branch."""
        if self.screen.retired:
            return
        older = [
            entry.branch_mark.branch
            for entry in self.screen.chat_log.entries
            if isinstance(entry, MarkedMessage)
            and entry.branch_mark.branch is not None
            and entry.branch_mark.branch[0] < entry.branch_mark.branch[1] - 1
            and not getattr(entry, "replaced", False)
        ]
        note = f"older branch {branch_label(*older[-1])} — ← → on a message switches" if older else None
        self.screen.status_bar.set_branch_note(note)

    def turn_started(self, user_message_id: str) -> None:
        """The prompt just sent is stored: its widget learns its id (to be edited, and to show its mark)."""

        prompts = [entry for entry in self.screen.chat_log.entries if isinstance(entry, UserMessage)]
        if prompts and prompts[-1].message_id is None:
            prompts[-1].message_id = user_message_id
            self.want(prompts[-1], user_message_id)

    def sibling_made(self) -> None:
        """A retry or a continuation made a sibling reply: marks are asked again when the turn ends."""
        self._asked_again = True

    def turn_ended(self) -> None:
        if self._asked_again:
            self._asked_again = False
            self.ask_again()

    # -- edit -----------------------------------------------------------------------------------------
    def begin_edit(self, entry: UserMessage, text: str | None = None, *, rewound: bool = False) -> None:
        """Put the prompt's text (or `text`) in the prompt box, marked "editing", and its files and images above
        it as chips (read back from history); Enter sends it as a new version with the chips then in the box.
        `rewound`: a rewind to before it — it and what follows show dimmed until sent (Esc: back as it was)."""
        prompt = self.screen.prompt_input
        self.editing = entry
        prompt.load_text(entry.prompt if text is None else text)
        prompt.set_attachments([])
        self.rewound = rewound
        if rewound:
            self._dim_from(entry)
        if entry.attachments and entry.message_id is not None and (text is None or text == entry.prompt):
            self._files_pending = entry
            self.screen.run_worker(
                self._restore_attachments(entry, entry.message_id), group="edit-files", exit_on_error=False
            )
        prompt.move_cursor(prompt.document.end)
        prompt.border_title = REWOUND_TITLE if rewound else EDITING_TITLE
        prompt.add_class("-editing")
        prompt.focus()

    async def _restore_attachments(self, entry: UserMessage, message_id: str) -> None:
        try:
            found = await (await self._backend()).prompt_attachments(message_id)
        finally:
            self._files_pending = None
        if self.editing is entry:  # still editing it
            self.screen.prompt_input.set_attachments(found)
        if len(found) < len(entry.attachments):
            self.screen.notify("Some of this prompt's files are no longer in history: not attached.", timeout=8)

    def _dim_from(self, entry: UserMessage) -> None:
        entries = self.screen.chat_log.entries
        for shown in entries[entries.index(entry) :] if entry in entries else []:
            shown.add_class("-rewound")

    def end_edit(self) -> None:
        prompt = self.screen.prompt_input
        for entry in self.screen.chat_log.entries:
            entry.remove_class("-rewound")
        self.editing, self.rewound = None, False
        prompt.border_title = None
        prompt.remove_class("-editing")

    def cancel_edit(self) -> bool:
        """Esc while editing: the box is emptied and the prompt stays as it was; False when not editing."""
        if self.editing is None:
            return False
        self.end_edit()
        self.screen.prompt_input.load_text("")
        self.screen.prompt_input.set_attachments([])
        return True

    def send_edit(self, text: str, attachments: list[Attachment]) -> None:
        """Send `text` with `attachments` as a new version of the prompt being edited: a sibling on a new branch,
        answered."""
        entry, screen = self.editing, self.screen
        assert entry is not None and entry.message_id is not None
        if not screen.idle:
            screen.notify(BUSY, severity="warning")
            screen.prompt_input.load_text(text)
            screen.prompt_input.set_attachments(attachments)
            return
        message_id = entry.message_id
        files = None if self._files_pending is entry and not attachments else attachments  # None: the old ones
        rewound = self.rewound
        self.end_edit()
        self._leave_from(entry)
        screen.chat_log.add_user(text, entry.attachments if files is None else [a.ref for a in files])
        self._asked_again = True

        def edit(backend: ChatBackend) -> AsyncIterator[AgentEvent]:
            return backend.edit(message_id, text, files)

        screen.turns.start_branch_turn(edit if rewound else screen.rewinds.files_first(message_id, edit, "Editing"))

    def _leave_from(self, entry: MarkedMessage | None) -> None:
        """The entries from `entry` on (all when it is no longer mounted) leave the log, with their calls."""
        log = self.screen.chat_log
        gone = log.cut_from(entry if entry is not None and entry in log.entries else None)
        self.screen.tool_panels.forget_calls_of(gone)

    # -- regenerate -----------------------------------------------------------------------------------
    def regenerate(self, reply: AssistantMessage, model: str | None = None) -> None:
        """Ask again for `reply` (with `model` this once, if given): a sibling reply; what followed it leaves
        the log (it stays in history, on its branch)."""
        screen = self.screen
        if not screen.idle:
            screen.notify(BUSY, severity="warning")
            return
        log = screen.chat_log
        entries = log.entries
        after = entries[entries.index(reply) + 1 :] if reply in entries else []
        if after:
            gone = log.cut_from(after[0])
            screen.tool_panels.forget_calls_of(gone)
        self._asked_again = True
        message_id = reply.message_id
        turn = screen.rewinds.files_first(
            message_id, lambda backend: backend.regenerate(message_id, model), "Regenerating"
        )
        screen.turns.start_branch_turn(turn)

    async def regenerate_with_model(self, reply: AssistantMessage) -> None:
        """Offer the endpoint's models; the one picked writes the new version of `reply` (this once)."""

        try:
            backend = await self._backend()
            models = await backend.list_models()
        except Exception as error:  # the client's errors carry a sentence a person can act on
            self.screen.notify(f"Could not list the models: {user_message(error)}", severity="error")
            return
        commands = [SimpleCommand(name, partial(self.regenerate, reply, name)) for name in sorted(models)]
        self.screen.app.search_commands(commands, placeholder="Regenerate with model…")

    # -- switch ---------------------------------------------------------------------------------------
    async def switch(self, entry: MarkedMessage, step: int) -> str | None:
        """Show the previous (-1) or next (+1) version of `entry`'s message and the branch below it; returns
        the message now shown in its place (None: there is no such version, or a turn runs)."""
        screen, message_id = self.screen, entry.message_id
        if message_id is None:
            return None
        if not screen.idle:
            screen.notify(BUSY, severity="warning")
            return None
        backend = await self._backend()
        found = await backend.siblings(message_id)
        index = found.index + step
        if not 0 <= index < len(found.messages):
            where = "first" if step < 0 else "newest"
            screen.notify(f"This is the {where} version ({branch_label(found.index, len(found.messages))}).")
            return None
        target = found.messages[index].id
        left = await backend.active_leaf()
        await backend.switch_branch(target)
        await self.redraw(backend, target)
        title = "This branch's files are not the ones on disk"
        await screen.rewinds.offer(backend, backend.plan_branch_files(left), title, "Bring the files to this branch")
        return target

    async def redraw(self, backend: ChatBackend, target: str | None = None) -> None:
        """Show the active branch from history, its tool calls in the column: from message `target` down when
        what is above it is on screen (the common part stays mounted), else its newest page afresh."""

        screen = self.screen
        page = await backend.load_history(None, HISTORY_PAGE)
        at = next((i for i, message in enumerate(page) if message.id == target), None)
        first = at == 0 and page[0].parent_id is None  # the branch point is the session's first message
        cut = self._first_entry_not_of({message.id for message in page[:at]}, first) if at is not None else None
        if at is None or cut is None:
            screen.chat_log.cut_from(None)
            screen.tool_panels.forget_calls_of(None)
            screen.history.oldest_position = None
            await screen.history.show_page(page)
            return
        screen.tool_panels.forget_calls_of(screen.chat_log.cut_from(cut))
        below = page[at:]
        for message in below:
            screen.tool_panels.note_speaker(message.id, message.agent)
        for call in (call for message in below for call in message.tool_calls):
            screen.tool_panels.update_call(tool_update(call))
        widgets = [w for message in below for w in message_widgets(message, screen.chat_log.reasoning)]
        await screen.chat_log.append_settled(widgets)
        screen.chat_log.scroll_end(animate=False)

    def _first_entry_not_of(self, kept: set[str], seen: bool = False) -> Widget | None:
        """The first entry of the log after the branch's common part (`kept`, the newest page's messages above
        the branch point); None when none of that part is mounted (older entries above it stay too). `seen`:
        the branch point is the first message (the lines above it, tui-agent's own, stay)."""
        for entry in self.screen.chat_log.entries:
            message_id = getattr(entry, "message_id", None)
            if message_id in kept:
                seen = True
            elif message_id is not None and seen:
                return entry
        return None

    # -- fork -----------------------------------------------------------------------------------------
    async def fork(self, entry: MarkedMessage) -> None:
        """A new session holding the conversation up to `entry`, opened in a fresh chat screen."""
        screen, message_id = self.screen, entry.message_id
        if not screen.idle:
            screen.notify(BUSY, severity="warning")
            return
        backend = await self._backend()
        if message_id is None or backend.current_session_id is None:
            screen.notify("This message is not stored yet: nothing to fork from.", severity="warning")
            return
        fork = await backend.fork_session(backend.current_session_id, message_id)
        await backend.open_session(fork.id)
        screen.app.notify(f"Forked into {fork.title}.", markup=False)
        screen.app.post_message(FreshChatWanted())
