"""Provides `HoverBar`: the mouse's way to the message cursor's actions. With the pointer over a prompt or a reply,
a small bar of links sits on the blank line above its top-right corner (`bar_row`: it hides none of the
conversation) — edit (a prompt), regenerate (a reply), copy, copy code (a reply with code), fork, and `‹ ›`
between versions when it has some; a click does what the key would on that message (`MessageCursor.act_once`)
and the keys go back to the prompt. The bar floats over the conversation (screen overlay), so showing and
moving it lays nothing else out; it goes when the pointer leaves the messages or the log scrolls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from textual.content import Content
from textual.widgets import Static

from tui_agent.ui.code_blocks import code_blocks

if TYPE_CHECKING:
    from tui_agent.ui.widgets.chat_log import ChatLog
    from tui_agent.ui.widgets.message_cursor import MessageCursor
    from tui_agent.ui.widgets.messages import MarkedMessage

    class HoverHost(Protocol):
        """What the bar uses of the chat screen it is mounted on (`LaterWidgets` mounts it on one)."""

        @property
        def chat_log(self) -> ChatLog: ...

        @property
        def message_cursor(self) -> MessageCursor: ...


LINKS = {
    "edit": "✎ edit",
    "regenerate": "↻ regenerate",
    "copy": "⧉ copy",
    "code": "⧉ code",
    "fork": "⑂ fork",
    "previous": "‹",
    "next": "›",
}
"""What each link says, by the action it names."""
ACTIONS = {
    "edit": "edit",
    "regenerate": "regenerate",
    "copy": "copy_message",
    "code": "copy_code",
    "fork": "fork",
}
"""The message cursor's action behind each link (`‹ ›`: its branch action)."""


def bar_row(message_top: int, log_top: int) -> int:
    """The screen row the bar goes on: the blank line above the message (every message has a one-line top
    margin), so the bar hides none of its text; at the log's top edge, where that line is out of view, the
    message's first visible row."""
    return message_top - 1 if message_top - 1 >= log_top else max(message_top, log_top)


def links_for(entry: MarkedMessage) -> list[str]:
    """The links a message's bar offers, in order."""
    from tui_agent.ui.widgets.messages import UserMessage  # deferred: loaded with the first message

    prompt = isinstance(entry, UserMessage)
    links = ["edit" if prompt else "regenerate", "copy"]
    if not prompt and code_blocks(getattr(entry, "text", "") or ""):
        links.append("code")
    links.append("fork")
    if entry.branch_mark.branch is not None and entry.branch_mark.branch[1] > 1:
        links += ["previous", "next"]
    return links


class HoverBar(Static):
    """A bar of actions over the message under the pointer."""

    DEFAULT_CSS = """
    HoverBar {
        display: none;
        position: absolute;
        overlay: screen;
        width: auto;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text;
    }
    HoverBar.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.entry: MarkedMessage | None = None

    @property
    def chat(self) -> HoverHost:
        return cast("HoverHost", self.screen)

    def hover(self, node: object) -> None:
        """The pointer is over `node`: show the bar over it if it is a message, hide it if it left the messages."""
        if node is self:
            return
        from tui_agent.ui.widgets.messages import AssistantMessage, UserMessage  # deferred: with the first message

        if not isinstance(node, UserMessage | AssistantMessage) or node.message_id is None:
            self.hide()
            return
        self.entry = node
        links = links_for(node)
        self.update(Content.from_markup("  ".join(f"[@click=act('{name}')]{LINKS[name]}[/]" for name in links)))
        width = sum(len(LINKS[name]) for name in links) + 2 * (len(links) - 1) + 2
        log, region = self.chat.chat_log.region, node.region
        x = max(region.x, region.right - width - 1)
        self.styles.offset = (x, bar_row(region.y, log.y))
        self.add_class("-shown")

    def hide(self) -> None:
        self.entry = None
        self.remove_class("-shown")

    def action_act(self, name: str) -> None:
        """A link was clicked: act on the message as the cursor's key would, then the keys are the prompt's
        again (left with the cursor, the next prompt typed was read as its keys: `r` regenerated the reply)."""
        entry = self.entry
        self.hide()
        if entry is None or not entry.is_attached:
            return
        if name in ("previous", "next"):
            self.chat.message_cursor.act_once(entry, "branch", -1 if name == "previous" else 1)
        else:
            self.chat.message_cursor.act_once(entry, ACTIONS[name])
