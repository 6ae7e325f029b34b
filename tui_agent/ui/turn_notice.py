"""Provides `TurnNotice`: tells the person that a long turn ended while they were in another window.

A turn that took at least `after` seconds and ends while the terminal is not focused (Textual learns that from
the terminal's focus reports) rings the terminal: the bell, or a desktop notification where the terminal shows
one for OSC 9 (iTerm2, WezTerm, Ghostty, Windows Terminal) or OSC 777 (foot, urxvt, Ghostty). `auto` picks by
the terminal's own environment variables; inside tmux or screen it rings the bell, which they pass on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

from tui_agent.config_fields import NoticeKind
from tui_agent.sanitize import sanitize

OSC9_TERMINALS = frozenset({"iTerm.app", "WezTerm", "ghostty"})
"""`TERM_PROGRAM` values of terminals that show OSC 9 as a desktop notification."""
TITLE = "tui-agent"


def pick_kind(setting: NoticeKind, environ: Mapping[str, str] | None = None) -> NoticeKind:
    """The kind of notice to give for the `[ui] notify` setting: `auto` resolved for this terminal."""
    if setting != "auto":
        return setting
    env = os.environ if environ is None else environ
    if env.get("TMUX") or env.get("STY"):
        return "bell"  # a multiplexer swallows OSC notifications but marks the window on a bell
    if env.get("TERM_PROGRAM") in OSC9_TERMINALS or env.get("WT_SESSION"):
        return "osc9"
    if env.get("TERM", "").startswith(("foot", "rxvt")):
        return "osc777"
    return "bell"


def notice_sequence(kind: NoticeKind, body: str) -> str:
    """What to write to the terminal for a notice saying `body` ("" for `off`); `body` cannot end it early."""
    text = sanitize(body).replace(";", ",").replace("\n", " ")  # no escape, BEL or field separator gets through
    match kind:
        case "osc9":
            return f"\x1b]9;{TITLE}: {text}\x07"
        case "osc777":
            return f"\x1b]777;notify;{TITLE};{text}\x07"
        case "bell":
            return "\x07"
        case _:
            return ""


class TurnNotice(NamedTuple):
    """When and how a finished turn is announced (`[ui] notify` and `notify_after`; a NamedTuple rather than a
    frozen dataclass: boot makes it before the first frame, where the dataclass's class cost ~0.4 ms more)."""

    kind: NoticeKind = "auto"
    after: float = 10.0

    def sequence_for(self, took: float, focused: bool, what: str) -> str:
        """The bytes to ring the terminal with for a turn that took `took` seconds ("" when none is due)."""
        if focused or took < self.after:
            return ""
        return notice_sequence(pick_kind(self.kind), f"{what} ({took:.0f} s)")
