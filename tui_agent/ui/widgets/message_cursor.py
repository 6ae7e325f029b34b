"""Provides `MessageCursor`: the keyboard's way into the conversation. `ctrl+up` from the prompt selects the
newest message; `up`/`down` move between prompts and replies (the view follows), `escape` goes back to the
prompt. On the selected message: `e` edit (a prompt, or the prompt a reply answers), `r` regenerate (a reply, or
the reply to a prompt; `R` asks which model), `u` rewind the conversation and the files to it, `t` show or hide
a reply's thinking, `c` copy it as Markdown, `tab` select its next code block and `y` copy that block, `o` open a
passage it cites (`path:12-30`) in the viewer, `f` fork a new session from it, `left`/`right` its previous / next
version (another branch).

The cursor is a one-line bar above the prompt, shown and focused while a message is selected: it says what
is selected and which keys act on it (the keys in force, `[keys]` overrides included). The selected message
is outlined, its selected code block highlighted. Each action is also a method the command palette and the
hover bar call (`run`): it acts on the selected message, else selects the newest message it applies to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, cast

from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region
from textual.widgets import Static

from tui_agent.ui.citations import in_text
from tui_agent.ui.clipboard import copy_text
from tui_agent.ui.code_blocks import code_blocks, code_rows
from tui_agent.ui.keys import keys_of

if TYPE_CHECKING:
    from tui_agent.ui.hosts import Workers
    from tui_agent.ui.widgets.chat_log import ChatLog
    from tui_agent.ui.widgets.messages import AssistantMessage, MarkedMessage, UserMessage
    from tui_agent.ui.widgets.prompt import PromptInput
    from tui_agent.ui.widgets.thinking import ThinkingBlock

    class BranchActions(Protocol):
        """The chat screen's conversation tree (`Branches`): what the cursor's keys ask of it."""

        def begin_edit(self, entry: UserMessage) -> None: ...

        def regenerate(self, reply: AssistantMessage) -> None: ...

        async def regenerate_with_model(self, reply: AssistantMessage) -> None: ...

        async def fork(self, entry: MarkedMessage) -> None: ...

        async def switch(self, entry: MarkedMessage, step: int) -> str | None: ...

    class RewindActions(Protocol):
        """The chat screen's rewinds (`Rewinds`)."""

        async def rewind(self, entry: MarkedMessage) -> None: ...

    class CursorHost(Workers, Protocol):
        """What the cursor uses of the chat screen it is mounted on (`LaterWidgets` mounts it on one)."""

        @property
        def chat_log(self) -> ChatLog: ...

        @property
        def prompt_input(self) -> PromptInput: ...

        @property
        def idle(self) -> bool: ...

        @property
        def branches(self) -> BranchActions: ...

        @property
        def rewinds(self) -> RewindActions: ...

        @property
        def is_attached(self) -> bool: ...


HINTS = [
    ("message_up", "↑↓", ""),
    ("edit_message", "e", "edit"),
    ("regenerate_message", "r", "regenerate"),
    ("copy_message", "c", "copy"),
    ("message_thinking", "t", "thinking"),
    ("next_code_block", "tab", "code"),
    ("copy_code", "y", "copy code"),
    ("fork_here", "f", "fork"),
    ("rewind_here", "u", "rewind"),
    ("previous_branch", "←→", "branch"),
    ("leave_messages", "esc", "back"),
]
"""The bar's hints: binding id, default key shown, what it does."""


def run_later(screen: Workers, work: Callable[[], Awaitable[object]], description: str) -> None:
    """Run a branch action in a worker; a failure ends in the app's notification (`on_worker_failed`)."""
    screen.run_worker(work(), group="branch-action", exclusive=True, exit_on_error=False, description=description)


class MessageCursor(Static, can_focus=True):
    """The selected message of the conversation and the keys that act on it."""

    DEFAULT_CSS = """
    MessageCursor {
        display: none;
        height: 1;
        padding: 0 1;
        background: $boost;
        color: $text-muted;
    }
    MessageCursor.-active { display: block; }
    """

    BINDINGS = [
        Binding("up", "move(-1)", "Previous message", id="message_up"),
        Binding("down", "move(1)", "Next message", id="message_down"),
        Binding("escape", "leave", "Back to the prompt", id="leave_messages"),
        Binding("e", "edit", "Edit the prompt (a new branch)", id="edit_message"),
        Binding("r", "regenerate", "Regenerate the reply", id="regenerate_message"),
        Binding("R", "regenerate_with_model", "Regenerate with another model", id="regenerate_with_model"),
        Binding("c", "copy_message", "Copy the message (Markdown)", id="copy_message"),
        Binding("t", "toggle_thinking", "Show / hide its thinking", id="message_thinking"),
        Binding("tab", "next_code_block", "Next code block in the reply", id="next_code_block"),
        Binding("y", "copy_code", "Copy the selected code block", id="copy_code"),
        Binding("o", "open_citation", "Open a passage the reply cites", id="open_citation"),
        Binding("f", "fork", "Fork a new session from here", id="fork_here"),
        Binding("u", "rewind", "Rewind (files too) to here", id="rewind_here"),
        Binding("left", "branch(-1)", "Previous version (branch)", id="previous_branch"),
        Binding("right", "branch(1)", "Next version (branch)", id="next_branch"),
    ]

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.selected: MarkedMessage | None = None
        self.code_index: int | None = None
        """Which of the selected reply's code blocks is selected (tab), if any."""
        self._switching = asyncio.Lock()

    @property
    def chat(self) -> CursorHost:
        return cast("CursorHost", self.screen)

    @property
    def active(self) -> bool:
        return self.has_class("-active")

    def messages(self) -> list[MarkedMessage]:
        """The prompts and replies mounted in the log, top to bottom (a reply that is all reasoning has none)."""
        from tui_agent.ui.widgets.messages import (  # deferred: loaded with the first message
            AssistantMessage,
            UserMessage,
        )

        return [
            entry
            for entry in self.chat.chat_log.entries
            if isinstance(entry, UserMessage | AssistantMessage) and not entry.has_class("-thought-only")
        ]

    # -- selecting ------------------------------------------------------------------------------------
    def enter(self, kind: type | None = None) -> bool:
        """Select the newest message (of `kind`, when given) and take the keys; False when there is none."""
        candidates = [entry for entry in self.messages() if kind is None or isinstance(entry, kind)]
        if not candidates:
            self.app.notify("No messages yet.", timeout=3)
            return False
        self.add_class("-active")
        self.select(candidates[-1])
        self.focus()
        return True

    def select(self, entry: MarkedMessage) -> None:
        if self.selected is not None and self.selected is not entry:
            self.selected.remove_class("-cursor")
            self.selected.branch_mark.highlight_code(None)
        self.selected, self.code_index = entry, None
        entry.add_class("-cursor")
        entry.branch_mark.highlight_code(None)
        self.chat.chat_log.scroll_to_widget(entry, animate=False)
        self._show_hints()

    def leave(self) -> None:
        """Back to the prompt: nothing selected."""
        if self.selected is not None:
            self.selected.remove_class("-cursor")
            self.selected.branch_mark.highlight_code(None)
        self.selected, self.code_index = None, None
        self.remove_class("-active")
        if self.is_attached and self.app.focused is self:
            self.chat.prompt_input.focus()

    def _current(self) -> MarkedMessage | None:
        """The selected message while still in the log (paging may have let it go)."""
        entry = self.selected
        if entry is not None and not entry.is_attached:
            entry = self.selected = next((m for m in self.messages() if m.message_id == entry.message_id), None)
            if entry is not None:
                entry.add_class("-cursor")
        return entry

    def _show_hints(self) -> None:
        from tui_agent.ui.widgets.messages import UserMessage  # deferred: loaded with the first message

        entry, shown = self._current(), self.messages()
        if entry is None:
            return
        overrides = getattr(self.app, "key_overrides", {})
        left_out = {"message_thinking"} if not self._thinking() else set()  # `t` only where there is some
        hints = [
            f"{keys_of(MessageCursor, name, overrides) if name in overrides else key} {what}".strip()
            for name, key, what in HINTS
            if name not in left_out
        ]
        kind = "prompt" if isinstance(entry, UserMessage) else "reply"
        where = f"{kind} {shown.index(entry) + 1}/{len(shown)}" if entry in shown else kind
        code = f" · code block {self.code_index + 1}" if self.code_index is not None else ""
        self.update(Content(f"▸ {where}{code}  │  " + " · ".join(hints)))

    def action_move(self, step: int) -> None:
        entry, shown = self._current(), self.messages()
        if entry is None or entry not in shown:
            if shown:
                self.select(shown[-1])
            return
        index = shown.index(entry) + step
        if index < 0:  # older messages load at the top, as when scrolling there
            self.chat.chat_log.scroll_home(animate=False)
            return
        if index >= len(shown):
            return
        self.select(shown[index])

    def action_leave(self) -> None:
        self.leave()

    def on_blur(self) -> None:
        if not self.app.screen.is_modal:  # a modal (palette, model picker) comes back to the cursor
            self.leave()

    # -- acting on it ---------------------------------------------------------------------------------
    def _prompt(self) -> UserMessage | None:
        """The selected prompt, or the prompt the selected reply answers (as `r` on a prompt regenerates its
        reply: the bar offers `e` on both)."""
        from tui_agent.ui.widgets.messages import UserMessage  # deferred: loaded with the first message

        entry, shown = self._current(), self.messages()
        if entry is not None and not isinstance(entry, UserMessage) and entry in shown:
            before = shown[: shown.index(entry)]
            entry = next((m for m in reversed(before) if isinstance(m, UserMessage)), None)
        if isinstance(entry, UserMessage) and entry.message_id is not None:
            return entry
        self.app.notify("Only a stored prompt can be edited: select one with ↑↓ (r regenerates a reply).", timeout=4)
        return None

    def _reply(self) -> AssistantMessage | None:
        """The selected reply, or the reply that follows the selected prompt."""
        from tui_agent.ui.widgets.messages import (  # deferred: loaded with the first message
            AssistantMessage,
            UserMessage,
        )

        entry, shown = self._current(), self.messages()
        if isinstance(entry, UserMessage) and entry in shown:
            entry = next((m for m in shown[shown.index(entry) + 1 :] if isinstance(m, AssistantMessage)), None)
        if isinstance(entry, AssistantMessage) and entry.closed:
            return entry
        self.app.notify("There is no finished reply here to regenerate.", timeout=4)
        return None

    def action_edit(self) -> None:
        if (prompt := self._prompt()) is None:
            return
        if not self.chat.idle:
            self.app.notify("A reply is running: press Esc to stop it first.", severity="warning")
            return
        self.leave()
        self.chat.branches.begin_edit(prompt)

    def action_regenerate(self) -> None:
        if (reply := self._reply()) is not None:
            self.leave()
            self.chat.branches.regenerate(reply)

    def action_regenerate_with_model(self) -> None:
        if (reply := self._reply()) is not None:
            run_later(self.chat, lambda: self.chat.branches.regenerate_with_model(reply), "pick a model")

    def _thinking(self) -> list[ThinkingBlock]:
        """The thinking blocks of the selected reply (of the reply after a selected prompt)."""
        from tui_agent.ui.widgets.messages import UserMessage  # deferred: loaded with the first message
        from tui_agent.ui.widgets.thinking import ThinkingBlock  # deferred: with the message widgets

        entry, shown = self._current(), self.messages()
        if isinstance(entry, UserMessage) and entry in shown:
            entry = next((m for m in shown[shown.index(entry) + 1 :] if not isinstance(m, UserMessage)), None)
        if entry is None:
            return []
        return [
            block
            for block in self.chat.chat_log.entries
            if isinstance(block, ThinkingBlock) and block.message_id == entry.message_id
        ]

    def action_toggle_thinking(self) -> None:
        """Open or close the thinking of the selected reply (of the reply after a selected prompt)."""
        blocks = self._thinking()
        if not blocks:
            self.app.notify("This reply has no thinking to show.", timeout=3)
            return
        for block in blocks:
            block.action_toggle_expanded()

    def action_copy_message(self) -> None:
        entry = self._current()
        if entry is not None:
            text = getattr(entry, "prompt", None) or getattr(entry, "text", "")
            copy_text(self.app, str(text), "the message")

    def _blocks(self) -> list[str]:
        entry = self._current()
        return [block.code for block in code_blocks(getattr(entry, "text", "") or "")]

    def action_next_code_block(self) -> None:
        entry = self._current()
        blocks = code_blocks(getattr(entry, "text", "") or "") if entry is not None else []
        if entry is None or not blocks:
            self.app.notify("This message has no code block.", timeout=3)
            return
        self.code_index = 0 if self.code_index is None else (self.code_index + 1) % len(blocks)
        shown = entry.shown_text().split("\n") if hasattr(entry, "shown_text") else []
        rows, after = None, 0
        for block in blocks[: self.code_index + 1]:
            rows = code_rows(shown, block, after)
            after = rows[1] if rows is not None else after
        entry.branch_mark.highlight_code(rows)
        if rows is not None:  # the view follows the block, not only the message
            top = entry.virtual_region
            self.chat.chat_log.scroll_to_region(
                Region(top.x, top.y + rows[0], top.width, rows[1] - rows[0]), animate=False
            )
        self._show_hints()

    def action_copy_code(self) -> None:
        blocks = self._blocks()
        if not blocks:
            self.app.notify("This message has no code block.", timeout=3)
            return
        if self.code_index is None:
            self.action_next_code_block()
        index = self.code_index or 0
        copy_text(self.app, blocks[index], f"code block {index + 1}")

    def action_open_citation(self) -> None:
        """Open the first passage the selected reply cites (`path:12-30`) in the viewer; `n` / `p` there go
        through the others."""
        from tui_agent.ui.screens.passage import PassageScreen  # deferred: loaded when a passage is first opened

        entry = self._current()
        citations = in_text(str(getattr(entry, "text", "") or "")) if entry is not None else []
        if not citations:
            self.app.notify("This message cites no passage of a file here.", timeout=3)
            return
        self.app.push_screen(PassageScreen(citations))

    def action_fork(self) -> None:
        entry = self._current()
        if entry is not None:
            run_later(self.chat, lambda: self.chat.branches.fork(entry), "fork the session")

    def action_rewind(self) -> None:
        entry = self._current()
        if entry is not None:
            self.leave()
            run_later(self.chat, lambda: self.chat.rewinds.rewind(entry), "rewind")

    def action_branch(self, step: int, *, then_prompt: bool = False) -> None:
        if self._current() is not None:  # left, right pressed quickly: two switches, one after the other
            self.chat.run_worker(self._switch(step, then_prompt), group="branch-switch", exit_on_error=False)

    async def _switch(self, step: int, then_prompt: bool = False) -> None:
        """Switch the selected message's version; a switch asked for meanwhile waits, then starts from the
        version this one landed on (not from an entry this one took off the log). `then_prompt`: the keys go
        back to the prompt after (a click on the hover bar's `‹ ›`)."""
        async with self._switching:
            entry = self._current()
            if entry is not None:
                await self._switch_from(entry, step, then_prompt)
            if then_prompt:
                self.back_to_prompt()

    async def _switch_from(self, entry: MarkedMessage, step: int, then_prompt: bool = False) -> None:
        target = await self.chat.branches.switch(entry, step)
        if target is None or then_prompt:
            return
        self.focus()
        landed = next((m for m in self.messages() if m.message_id == target), None)
        if landed is not None:
            self.add_class("-active")
            self.select(landed)
            self.call_after_refresh(self.chat.chat_log.scroll_to_widget, landed, animate=False)

    def act_once(self, entry: MarkedMessage, action: str, step: int = 1) -> None:
        """Do `action` on `entry` as its key would, then give the keys back to the prompt: the hover bar's way
        in (a click is one action, not a move into the conversation, whose keys would take the next prompt)."""
        self.add_class("-active")
        self.select(entry)
        if action == "branch":
            self.action_branch(step, then_prompt=True)
            return
        getattr(self, f"action_{action}")()
        self.back_to_prompt()

    def back_to_prompt(self) -> None:
        """Nothing selected, and the prompt takes the keys (an edit begun has put its text there)."""
        self.leave()
        if self.is_attached and self.chat.is_attached:
            self.chat.prompt_input.focus()

    def run(self, action: str, kind: type | None = None, step: int = 1) -> None:
        """Do `action` (`edit`, `regenerate`, `branch`...) on the selected message, or, with none selected, on the
        newest message (of `kind`): the command palette's and the hover bar's way in."""
        if (self.selected is None or not self.active) and not self.enter(kind):
            return
        if action == "branch":
            self.action_branch(step)
        else:
            getattr(self, f"action_{action}")()
