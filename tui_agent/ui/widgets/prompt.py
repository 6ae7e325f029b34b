"""Provides `PromptInput`: the multi-line prompt. Enter sends; Shift+Enter or Ctrl+J adds a newline;
Up on the first line and Down on the last line walk through earlier prompts, this run's and earlier runs'
(`PromptHistory`: a private file in the data dir, redacted, read at the first Enter or Up, not before the first
frame), with the files and images they were sent with as chips: an earlier run's are read back from history
by their hash (`files_in_history`), and one that history no longer holds is named in a note.

A paste longer than `PASTE_CHIP_CHARS` shows as a chip (`[pasted 1.0 MB, 1 line]`) instead of its text:
a megabyte in the box would make every later keystroke re-lay it out. The whole paste is sent in the
chip's place; deleting any of the chip's characters drops the paste. An earlier prompt that long, recalled
with Up, shows as a chip too.

Files and images: `@` at the start of the prompt or after a space opens the file picker (`FilePicker`; Esc
there types a plain `@`); the chosen file is read (`load_attachment`: text capped, images by their bytes, a
binary file refused with a message) and shown as a chip above the prompt (`AttachmentChips`, which the screen
draws from `AttachmentsChanged`). A paste that is the path of an image file attaches the image; a paste longer
than `[ui] attach_paste_over` characters is offered as an attachment (`AttachPasteScreen`). Backspace on an
empty prompt removes the last attachment; Enter sends them with the text (`Submitted.attachments`). The picker
lists the MCP servers' resources too (`mcp_resources`); one chosen is read and attached (`attach_resource`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from textual import events, on, work
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea

from tui_agent.errors import user_message

if TYPE_CHECKING:  # attachments load with the first one, not before the first frame
    from tui_agent.agent.records import Attachment, AttachmentRef, PromptHistory, ResourcePick
    from tui_agent.ui.resource_attach import McpResources
    from tui_agent.ui.widgets.command_menu import CommandMenu, MenuKey

FilesInHistory = Callable[["list[AttachmentRef]"], Awaitable["list[Attachment]"]]
"""Reads back the files and images refs name from history (those it no longer holds left out)."""
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j", "newline"})
PASTE_CHIP_CHARS = 10_000
"""A paste (or recalled prompt) longer than this shows as a chip standing for it."""


class AttachLimits(NamedTuple):
    """The `[ui]` settings for attachments: a paste longer than `paste_over` characters is offered as an
    attachment; a text file is cut after `max_bytes` (`Settings.ui`'s defaults)."""

    paste_over: int = 20_000
    max_bytes: int = 256_000


def chip_label(text: str, what: str = "pasted") -> str:
    """`[pasted 1.0 MB, 3 lines]`: what a chip shows for `text`."""
    size = len(text.encode("utf-8", errors="replace"))
    amount = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} KB"
    return f"[{what} {amount}, {line_count(text)}]"


def line_count(text: str) -> str:
    """`1 line`, `3,000 lines`."""
    lines = text.count("\n") + (not text.endswith("\n"))  # a last line end starts no line
    return f"{lines:,} line{'s' if lines != 1 else ''}"


def unix_lines(text: str) -> str:
    """`text` with its line ends as `\n`: terminals paste line ends as `\r` (xterm, VTE, tmux)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


class PromptInput(TextArea):
    """The prompt at the bottom of the chat screen (TextArea's own look; `#prompt` in app.tcss draws its border)."""

    class Submitted(Message):
        """The person pressed Enter on a non-empty prompt."""

        def __init__(self, prompt_input: PromptInput, text: str, attachments: list[Attachment] | None = None) -> None:
            super().__init__()
            self.prompt_input, self.text = prompt_input, text
            self.attachments: list[Attachment] = attachments or []

    class AttachmentsChanged(Message):
        """The files and images the next prompt carries changed (the screen shows them as chips)."""

        def __init__(self, refs: list[AttachmentRef]) -> None:
            super().__init__()
            self.refs = refs

    def __init__(
        self,
        *,
        id: str | None = None,  # noqa: A002
        cursor_blink: bool = True,
        attach_limits: AttachLimits | None = None,
        files_in_history: FilesInHistory | None = None,
        command_menu: CommandMenu | None = None,
        mcp_resources: Callable[[], McpResources | None] | None = None,
    ) -> None:
        """`command_menu`: the `/` commands' menu this prompt opens and hands its keys to while it is open;
        `mcp_resources()`: the run's MCP servers, whose resources the @-picker lists (None while starting)."""
        super().__init__(
            id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False, highlight_cursor_line=False
        )
        self.cursor_blink = cursor_blink
        self.placeholder = "Ask anything — Enter sends, Shift+Enter or Ctrl+J for a new line, Esc stops a reply"
        self.prompt_history: list[str] = []
        self._stored: PromptHistory | None = None
        """Earlier runs' prompts, loaded into `prompt_history` when first needed."""
        self._recall_index: int | None = None
        self._draft = ""
        self._draft_files: list[Attachment] = []
        self._files_of: dict[int, list[Attachment]] = {}
        """The files and images prompts were sent with (or read back), by index in `prompt_history`."""
        self._refs_of: dict[int, list[AttachmentRef]] = {}
        """What earlier runs' prompts were sent with, by index: read back from history when Up shows one."""
        self._files_in_history = files_in_history
        self._mcp_resources = mcp_resources
        self._reading: int | None = None
        """The index whose files are being read back; Enter meanwhile sends once they are there."""
        self._send_when_read = False
        self._chips: dict[str, str] = {}
        """The text each chip in the box stands for."""
        self.attach_limits = attach_limits or AttachLimits()
        self.attachments: list[Attachment] = []
        """Files and images the next prompt carries."""
        self._pastes = 0
        self.command_menu = command_menu

    @property
    def prompt_text(self) -> str:
        """What Enter would send: the box's text with each chip replaced by the text it stands for."""
        text = self.text
        for chip, full in self._chips.items():
            text = text.replace(chip, full)
        return text

    def _chip(self, text: str, what: str = "pasted") -> str:
        """A chip standing for `text` (numbered when the same label is already in use)."""
        chip, label, number = chip_label(text, what), chip_label(text, what), 1
        while chip in self._chips and self._chips[chip] != text:
            number += 1
            chip = f"{label[:-1]} #{number}]"
        self._chips[chip] = text
        return chip

    def on_paste(self, event: events.Paste) -> None:
        """An image's path attaches the image; a paste over `attach_paste_over` is offered as an attachment; a
        long one goes in as a chip; anything else is left to TextArea (it inserts the text)."""
        if self.read_only:
            return
        # deferred: with the first paste, not the first frame
        from tui_agent.ui.widgets.pasted_path import image_path_in

        if (image := image_path_in(event.text)) is not None:
            self._consume(event)
            self.attach_path(str(image))
        elif len(event.text) > self.attach_limits.paste_over:
            self._consume(event)
            self._offer_attachment(unix_lines(event.text))
        elif len(event.text) > PASTE_CHIP_CHARS:
            self._consume(event)
            self._paste_as_chip(unix_lines(event.text))

    def _paste_as_chip(self, text: str) -> None:
        result = self.replace(self._chip(text), *self.selection, maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        self.focus()

    def _offer_attachment(self, text: str) -> None:
        """Ask whether a long paste goes with the prompt as a file or into the box."""
        # deferred: with the first attachment, not the first frame
        from tui_agent.agent.records import Attachment, human_size

        # deferred: with the first paste, not the first frame
        from tui_agent.ui.screens.attach_paste import AttachPasteScreen, PasteChoice

        self._pastes += 1
        name = f"paste-{self._pastes}.txt"
        size = f"{human_size(len(text.encode('utf-8', errors='replace')))}, {line_count(text)}"

        def chosen(choice: PasteChoice | None) -> None:
            if choice == "attach":
                self.add_attachment(Attachment.of_text(name, text))
                self.notify(f"The paste ({size}) is attached as {name}, not put in the prompt box.", timeout=6)
            elif choice == "paste":
                self._paste_as_chip(text)
            self.focus()

        self.app.push_screen(AttachPasteScreen(size, name), callback=chosen)

    def attach_path(self, path: str) -> None:
        """Read `path` (relative to the working directory, or absolute) in a thread and attach it; a file that
        cannot be attached (binary, unreadable) is said in a notification, by name."""
        self._load_attachment(path)

    @work(thread=True, group="attach", exit_on_error=False)
    def _load_attachment(self, path: str) -> None:
        # deferred: with the first attachment, not the first frame
        from tui_agent.agent.records import AttachmentError, load_attachment

        try:
            found = load_attachment(Path(path).expanduser(), name=path, max_bytes=self.attach_limits.max_bytes)
        except AttachmentError as error:
            self.app.call_from_thread(self.notify, error.user_message, severity="error", timeout=8, markup=False)
            return
        self.app.call_from_thread(self.add_attachment, found)

    def add_attachment(self, attachment: Attachment) -> None:
        """Carry `attachment` with the next prompt (a cut text file is said)."""
        self.attachments.append(attachment)
        self._attachments_changed()
        if attachment.note:
            self.notify(f"{attachment.name} is long: {attachment.note} (see [ui] attach_max_bytes).", markup=False)

    def remove_attachment(self, index: int = -1) -> None:
        if -len(self.attachments) <= index < len(self.attachments):
            del self.attachments[index]
            self._attachments_changed()

    def set_attachments(self, attachments: list[Attachment]) -> None:
        self.attachments = list(attachments)
        self._attachments_changed()

    def _attachments_changed(self) -> None:
        self.post_message(self.AttachmentsChanged([a.ref for a in self.attachments]))

    def _open_picker(self) -> None:
        """`@`: choose a file to attach; Esc in the picker types the `@` after all."""
        from tui_agent.ui.resource_attach import attach_resource  # deferred: with the first @, not the first frame
        from tui_agent.ui.widgets.file_picker import FilePicker  # deferred: with the first @, not the first frame

        servers = self._mcp_resources() if self._mcp_resources is not None else None

        def picked(choice: str | ResourcePick | None) -> None:
            if choice is None:
                self.insert("@")
            elif isinstance(choice, str):
                self.attach_path(choice)
            elif servers is not None:
                attach_resource(self.app, servers, choice, self.attach_limits.max_bytes, self.add_attachment)
            self.focus()

        resources = servers.resource_picks() if servers is not None else []
        self.app.push_screen(FilePicker(resources=resources), callback=picked)

    def _at_word_start(self) -> bool:
        row, column = self.cursor_location
        return column == 0 or self.document.get_line(row)[column - 1 : column].isspace()

    def render_line(self, y: int) -> Strip:
        if self.content_size.width < 1:  # TextArea wraps its placeholder to this width: 0 would raise
            return Strip.blank(0)
        return super().render_line(y)

    @on(TextArea.Changed)
    def _text_changed(self) -> None:
        if self.command_menu is not None:  # only a one-line prompt can be a command's name: no need for all of it
            document = self.document
            self.command_menu.typed(document.get_line(0) if document.line_count == 1 else "\n")

    def menu_clicked(self) -> None:
        """A command of the `/` menu was clicked: as Enter on it."""
        if self.command_menu is not None and (asked := self.command_menu.key("enter")) is not None:
            self.focus()
            self._menu_asked(asked)

    def _menu_asked(self, asked: MenuKey) -> None:
        """Tab or Enter in the `/` menu: the chosen command's name in the box (and sent, for `run`)."""
        chosen = self.command_menu.chosen if self.command_menu is not None else None
        if chosen is None or asked == "taken":
            return
        self.load_text(f"/{chosen.name}" + (" " if asked == "complete" else ""))
        self.move_cursor(self.document.end)
        if asked == "run":
            self.submit()

    def on_key(self, event: events.Key) -> None:
        """The prompt's own keys; any other key is left to TextArea (typing, cursor moves, its bindings). While
        the `/` menu is open it takes the keys it moves, completes, runs and closes with."""
        if self.command_menu is not None and (asked := self.command_menu.key(event.key)) is not None:
            self._consume(event)
            self._menu_asked(asked)
        elif event.key == "enter":
            self._consume(event)
            self.submit()
        elif event.key in NEWLINE_KEYS:
            self._consume(event)
            self.insert("\n")
            # TextArea scrolls to the cursor before the new line is laid out: at the bottom of a full
            # prompt the cursor's line stayed hidden until the next key.
            self.call_after_refresh(self.scroll_cursor_visible)
        elif event.character == "@" and self._at_word_start() and not self.read_only:
            self._consume(event)
            self._open_picker()
        elif event.key == "backspace" and self.attachments and not self.text:
            self._consume(event)
            self.remove_attachment()
        elif event.key == "up" and self.cursor_location[0] == 0 and self._recall(-1):
            self._consume(event)
        elif event.key == "down" and self.cursor_location[0] == self.document.line_count - 1 and self._recall(+1):
            self._consume(event)

    @staticmethod
    def _consume(event: events.Key | events.Paste) -> None:
        """Handled here: the event goes no further, and TextArea's own handler (the default) does not run."""
        event.stop()
        event.prevent_default()

    def submit(self) -> None:
        """Send the prompt (if it has any text), remember it and clear the input."""
        if self._reading is not None:  # Enter right after Up: sent once the prompt's files are read back
            self._send_when_read = True
            return
        text = self.prompt_text
        if not text.strip() and not self.attachments:
            return
        stored = self._stored_history()
        attachments, self.attachments = self.attachments, []
        self._remember(text, attachments)
        stored.add(text, attachments)
        self._recall_index = None
        self._chips.clear()
        self.load_text("")  # much cheaper than an undoable delete when a huge paste was sent
        if attachments:
            self._attachments_changed()
        self.post_message(self.Submitted(self, text, attachments))

    def _remember(self, text: str, attachments: list[Attachment]) -> None:
        """Keep a sent prompt for Up, with its files, unless it repeats the one before."""
        last = len(self.prompt_history) - 1
        refs = [attachment.ref for attachment in attachments]
        if last >= 0 and self.prompt_history[last] == text and self._refs_at(last) == refs:
            return
        if text.strip() or attachments:
            self.prompt_history.append(text)
            if attachments:
                self._files_of[last + 1] = list(attachments)

    def _recall(self, step: int) -> bool:
        """Show the previous (-1) or next (+1) prompt from history; False when there is none to move to."""
        self._stored_history()
        if not self.prompt_history or (self._recall_index is None and step > 0):
            return False
        if self._recall_index is None:
            self._draft, self._draft_files = self.prompt_text, list(self.attachments)
            index = len(self.prompt_history) - 1
        else:
            index = self._recall_index + step
        if index < 0:
            return True  # at the oldest prompt: stay there
        self._reading, self._send_when_read = None, False
        if index >= len(self.prompt_history):
            self._recall_index = None
            self._show(self._draft, self._draft_files)
            return True
        self._recall_index = index
        files = self._files_of.get(index)
        self._show(self.prompt_history[index], files or [])
        if files is None and index in self._refs_of:
            self._reading = index
            self.run_worker(self._read_back(index), group="recall-files", exclusive=True, exit_on_error=False)
        return True

    def _refs_at(self, index: int) -> list[AttachmentRef]:
        files = self._files_of.get(index)
        return [attachment.ref for attachment in files] if files is not None else self._refs_of.get(index, [])

    async def _read_back(self, index: int) -> None:
        """Read prompt `index`'s files back from history, show them as chips, and say which are missing."""

        refs, problem = self._refs_of[index], ""
        try:
            found = await self._files_in_history(refs) if self._files_in_history is not None else []
        except Exception as error:  # history unreadable, no engine: the text is back, the files are said
            found, problem = [], user_message(error)
        if self._reading != index:  # moved on meanwhile
            return
        self._reading = None
        if not problem:
            self._files_of[index] = found
        self.set_attachments(found)
        there = {attachment.hash for attachment in found}
        if missing := [ref.name for ref in refs if ref.hash not in there]:
            why = f"history could not be read: {problem}" if problem else "no longer in history"
            self.notify(f"Not attached: {', '.join(missing)} ({why}).", severity="warning", timeout=8, markup=False)
        elif self._send_when_read:
            self.submit()
        self._send_when_read = False

    def _show(self, text: str, attachments: list[Attachment]) -> None:
        if attachments or self.attachments:
            self.set_attachments(attachments)
        self._chips.clear()
        self.load_text(self._chip(text, "earlier prompt") if len(text) > PASTE_CHIP_CHARS else text)
        self.move_cursor(self.document.end)
        if self.command_menu is not None:  # an earlier `/help` shown: Up and Down go on walking the history
            self.command_menu.close()

    def _stored_history(self) -> PromptHistory:
        """The stored history, loading earlier runs' prompts ahead of this run's the first time."""
        if self._stored is None:
            # The history module (and its redactor) load here, at the first Enter or Up, not before the first frame.
            # deferred: with the engine's history, not the first frame
            from tui_agent.agent.records import PromptHistory

            self._stored = PromptHistory.default()
            entries = self._stored.entries()
            self.prompt_history[:0] = [entry.text for entry in entries]
            self._refs_of = {index: list(entry.files) for index, entry in enumerate(entries) if entry.files}
        return self._stored
