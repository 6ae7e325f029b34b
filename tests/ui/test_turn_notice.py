"""The notice of a long turn's end: which kind a terminal gets, and that nothing a session title or model says
can end the escape sequence early."""

from __future__ import annotations

from tui_agent.ui.turn_notice import TurnNotice, notice_sequence, pick_kind


def test_auto_picks_by_the_terminal_and_a_multiplexer_gets_the_bell() -> None:
    assert pick_kind("auto", {"TERM_PROGRAM": "WezTerm"}) == "osc9"
    assert pick_kind("auto", {"WT_SESSION": "x"}) == "osc9"
    assert pick_kind("auto", {"TERM": "foot"}) == "osc777"
    assert pick_kind("auto", {"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-0/default,1,0"}) == "bell"
    assert pick_kind("auto", {"TERM": "xterm-256color"}) == "bell"
    assert pick_kind("osc777", {"TMUX": "x"}) == "osc777", "a kind set in the config is taken as it is"


def test_the_body_cannot_end_the_sequence_or_add_fields() -> None:
    sequence = notice_sequence("osc777", "done\x07\x1b]0;owned\x1b\\; and more\nlines")
    assert sequence.startswith("\x1b]777;notify;tui-agent;") and sequence.endswith("\x07")
    inner = sequence[len("\x1b]777;notify;tui-agent;") : -1]
    assert "\x07" not in inner and "\x1b" not in inner and ";" not in inner and "\n" not in inner
    assert notice_sequence("osc9", "reply ready") == "\x1b]9;tui-agent: reply ready\x07"
    assert notice_sequence("bell", "x") == "\x07" and notice_sequence("off", "x") == ""


def test_only_a_long_turn_ending_out_of_focus_rings() -> None:
    notice = TurnNotice(kind="osc9", after=10)
    assert notice.sequence_for(12.4, focused=False, what="reply ready") == "\x1b]9;tui-agent: reply ready (12 s)\x07"
    assert notice.sequence_for(12.4, focused=True, what="reply ready") == ""
    assert notice.sequence_for(9.9, focused=False, what="reply ready") == ""
