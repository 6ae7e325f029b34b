"""Provides the app's key bindings as data: who owns which binding, the overrides from the `[keys]` table, and
the keys in force (for the help screen).

Every binding tui-agent declares has an id, its action name (`app.sessions` -> `sessions`; bindings of screens
F1 does not list get a dotted id such as `mcp.restart`, which no override names). Textual's keymap
(`App.set_keymap`) moves a binding to other keys by its id, so the config file names actions:
`[keys] cancel_turn = "ctrl+g"`. Names that match no listed binding are reported once; the app still starts.
The bindings tui-agent inherits from Textual (focus moves, copy, a tree's cursor keys) have no id: they stay
in force, unlisted and fixed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingsMap, Keymap
from textual.dom import DOMNode

from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.message_cursor import MessageCursor
from tui_agent.ui.widgets.task_tree import TaskTree
from tui_agent.ui.widgets.thinking import ThinkingBlock
from tui_agent.ui.widgets.tool_panel import ToolPanel

PACKAGE = "tui_agent."
"""Classes from this package declare the bindings listed and overridable; Textual's own are left alone."""


@dataclass(frozen=True)
class KeyRow:
    """One line of the help screen: the key(s) in force, what they do, and the name to override them by."""

    keys: str
    description: str
    action: str


FIXED = "(fixed)"
PROMPT_KEYS = [
    KeyRow("enter", "Send the prompt", FIXED),
    KeyRow("shift+enter ctrl+j", "New line", FIXED),
    KeyRow("up down", "Recall earlier / later prompts", FIXED),
]
"""The prompt's own keys: handled by the prompt widget itself, so they are listed but not overridable."""


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


def bindings_in_force(owner: type[DOMNode], *, ours_only: bool = False) -> list[Binding]:
    """The bindings an instance of `owner` starts with, merged from the `BINDINGS` of its classes the way
    Textual merges them (a subclass's binding for a key replaces its base's); system bindings left out.

    Args:
        owner: The app, screen or widget class.
        ours_only: Only the bindings tui-agent's classes declare (ours always win a key: they are the subclasses).
    """
    keys: dict[str, list[Binding]] = {}
    for cls in reversed(owner.__mro__):
        if issubclass(cls, DOMNode) and (cls.__module__.startswith(PACKAGE) or not ours_only):
            keys.update(BindingsMap(cls.__dict__.get("BINDINGS", [])).key_to_bindings)
    return [binding for listed in keys.values() for binding in listed if not binding.system]


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


def action_name(binding: Binding) -> str:
    """The binding's action without its namespace (`app.sessions` -> `sessions`)."""
    return binding.action.removeprefix("app.").removeprefix("screen.")


def key_rows(owner: type[DOMNode], keymap: Keymap) -> list[KeyRow]:
    """The bindings one part of the app declares, with the keys in force under `keymap` (the app's overrides)."""
    bindings = BindingsMap(bindings_in_force(owner, ours_only=True))
    bindings.apply_keymap(keymap)  # the same overlay Textual applies when it looks a key up
    grouped: dict[tuple[str | None, str], tuple[Binding, list[str]]] = {}
    for _, binding in bindings:
        grouped.setdefault((binding.id, binding.action), (binding, []))[1].append(binding.key)  # as [keys] spells it
    return [
        KeyRow(
            " ".join(keys), binding.description or action_name(binding).replace("_", " "), binding.id or FIXED
        )  # a binding without an id is out of the keymap's reach
        for binding, keys in grouped.values()
    ]


def keys_of(owner: type[DOMNode], binding_id: str, keymap: Keymap) -> str:
    """The key(s) binding `binding_id` of `owner` has under `keymap` (`"ctrl+r"`), for hints elsewhere."""
    return next((row.keys for row in key_rows(owner, keymap) if row.action == binding_id), "")
