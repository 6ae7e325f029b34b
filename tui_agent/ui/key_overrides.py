"""Provides the `[keys]` table's overrides: which parts of the app have bindings a person may move (the app, its
screens and widgets, each with a title), the keymap an override table makes, and one notice about names that
match no binding and keys an override takes from another binding.

Textual's keymap (`App.set_keymap`) moves a binding to other keys by its id, so the config file names actions:
`[keys] cancel_turn = "ctrl+g"`. Names that match no listed binding are reported once; the app still starts.
This module names the screens and widgets that own bindings, so it sits above them; the bindings in force and
the help screen's rows are `keys.py`, which the widgets use for their hints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import App
from textual.dom import DOMNode

from tui_agent.ui.keys import action_name, bindings_in_force
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.message_cursor import MessageCursor
from tui_agent.ui.widgets.task_tree import TaskTree
from tui_agent.ui.widgets.thinking import ThinkingBlock
from tui_agent.ui.widgets.tool_panel import ToolPanel


def binding_owners(app: App[Any]) -> list[tuple[str, type[DOMNode]]]:
    """The parts of the app whose bindings are listed and overridable, with a title for each."""
    return [
        ("Everywhere", type(app)),
        ("Chat screen", ChatScreen),
        ("Conversation", ChatLog),
        ("Selected message", MessageCursor),
        ("Thinking block", ThinkingBlock),
        ("Tool panel", ToolPanel),
        ("Task tree", TaskTree),
        ("Approval dialog", ApprovalScreen),
        ("Session screen", SessionsScreen),
    ]


def overridable_actions(app: App[Any]) -> set[str]:
    """Every action name the `[keys]` table may name: the ids of the listed parts' bindings."""
    return {
        binding.id
        for _, owner in binding_owners(app)
        for binding in bindings_in_force(owner, ours_only=True)
        if binding.id
    }


def key_overrides(app: App[Any], overrides: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """The keymap to install for the `[keys]` table, and one notice about unknown names and taken keys, if any."""
    known = overridable_actions(app)
    keymap = {name: spelled(keys) for name, keys in overrides.items() if name in known}
    problems = []
    if unknown := sorted(set(overrides) - set(keymap)):
        problems.append(
            f"The [keys] table names no key binding called {', '.join(repr(n) for n in unknown)}; "
            "those lines were skipped (F1 lists the action names)."
        )
    problems.extend(taken_keys(app, keymap))
    return keymap, "\n".join(problems) or None


def spelled(keys: str) -> str:
    """`"ctrl+o, f9"` -> `"ctrl+o,f9"`: a keymap entry as bindings spell keys (Textual strips them the same way)."""
    return ",".join(key.strip() for key in keys.split(","))


def taken_keys(app: App[Any], keymap: Mapping[str, str]) -> list[str]:
    """One sentence per binding whose key an override takes in the same part of the app: Textual then drops
    that binding (its own clash check misses bindings that have ids, so this one is ours)."""
    found: list[str] = []
    for title, owner in binding_owners(app):
        listed = bindings_in_force(owner)
        ids = {binding.id for binding in listed}
        for name, keys in keymap.items():
            if name not in ids:
                continue
            for key in keys.split(","):
                found.extend(
                    f"[keys]: {key} was {taken!r} in {title.lower()}; {name!r} takes it, so {taken!r} "
                    "has no key there now."
                    for binding in listed
                    if binding.key == key
                    and (taken := binding.id or action_name(binding)) != name
                    and taken not in keymap
                )
    return found
