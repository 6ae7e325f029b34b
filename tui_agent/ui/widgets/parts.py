"""Provides `PART_VIEWS`: how the chat log shows each kind of reply part other than the text, and the blocks
made from it (live and stored).

Every kind is drawn as a `ThinkingBlock` (one dimmed line above the reply, opened by Enter, a click or `t`) with
the labels and the widget class its `PartView` names; "reasoning" follows the `[ui] reasoning` setting
(collapsed, expanded or hidden). A kind with no entry here still shows, in a plain collapsed block named after
it, so a part a newer server (or a newer version's history) sends is never lost from view.

Adding a part kind: map the delta field that carries it to its kind in `tui_agent.llm.parts.PART_FIELDS`;
then, when the plain block does not do, register a `PartView` for it here (one line; a widget module of its
own, a `ThinkingBlock` subclass, when the labels are not enough). The agent, history, export, resume and `-p`
carry any kind as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_agent.ui.widgets.thinking import THINKING, PartLabels, ThinkingBlock


@dataclass(frozen=True)
class PartView:
    """How one kind of part is shown."""

    labels: PartLabels
    block: type[ThinkingBlock] = ThinkingBlock
    expanded: bool = False
    """Opened from the start (else one line until opened)."""
    follows_setting: bool = False
    """`[ui] reasoning` decides instead of `expanded`: "collapsed", "expanded" or "hidden"."""


PART_VIEWS: dict[str, PartView] = {
    "reasoning": PartView(THINKING, follows_setting=True),
    "refusal": PartView(PartLabels("refusing…", "refused", "refused"), expanded=True),
}
"""Kind → view; a kind missing here gets `plain_view(kind)`."""


def plain_view(kind: str) -> PartView:
    """A kind nobody registered: a collapsed block named after it."""
    name = kind.replace("_", " ")
    return PartView(PartLabels(f"{name}…", name, f"{name} — no answer followed"))


def view_of(kind: str) -> PartView:
    return PART_VIEWS.get(kind) or plain_view(kind)


def _expanded(view: PartView, setting: str) -> bool | None:
    """Whether a block of `view` starts open, None when it is not shown at all (`setting`: `[ui] reasoning`)."""
    if not view.follows_setting:
        return view.expanded
    return None if setting == "hidden" else setting == "expanded"


def is_hidden(kind: str, setting: str) -> bool:
    """Parts of `kind` are not shown at all (`setting`: `[ui] reasoning`)."""
    return _expanded(view_of(kind), setting) is None


def live_block(message_id: str, kind: str, setting: str) -> ThinkingBlock:
    """An empty block for a part of `kind` that begins streaming (see `is_hidden` first)."""
    view = view_of(kind)
    return view.block(message_id, expanded=bool(_expanded(view, setting)), kind=kind, labels=view.labels)


def stored_block(message_id: str, kind: str, text: str, setting: str, *, alone: bool) -> ThinkingBlock | None:
    """A stored reply's part of `kind`, complete (None: this kind is hidden; `alone`: the reply has no text)."""
    view = view_of(kind)
    expanded = _expanded(view, setting)
    if expanded is None or not text:
        return None
    return view.block.finished(message_id, text, expanded=expanded, alone=alone, kind=kind, labels=view.labels)
