"""Provides the app's key bindings as data: who owns which binding, the overrides from the `[keys]` table, and
the keys in force (for the help screen).

Textual overrides a binding through the app's keymap, by binding id. Every binding of the parts listed in
`binding_owners` gets its action name as id (`app.sessions` -> `sessions`), so the config file names actions:
`[keys] cancel_turn = "ctrl+g"`. Names that match no binding are reported once; the app still starts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode

from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.task_tree import TaskTree
from tui_agent.ui.widgets.thinking import ThinkingBlock
from tui_agent.ui.widgets.tool_panel import ToolPanel

NAMESPACES = ("app.", "screen.")


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
    return [("Everywhere", type(app)), ("Chat screen", ChatScreen), ("Conversation", ChatLog),
            ("Thinking block", ThinkingBlock), ("Tool panel", ToolPanel), ("Task tree", TaskTree),
            ("Approval dialog", ApprovalScreen), ("Session screen", SessionsScreen)]


def action_name(binding: Binding) -> str:
    """The binding's action without its namespace: the name used in the `[keys]` table."""
    action = binding.action
    for prefix in NAMESPACES:
        action = action.removeprefix(prefix)
    return action


def _class_bindings(owner: type[DOMNode]) -> BindingsMap:
    # Textual keeps each class's merged BINDINGS here (textual is pinned, see pyproject.toml).
    return owner._merged_bindings or BindingsMap()


def ensure_binding_ids(owner: type[DOMNode]) -> None:
    """Give every binding of `owner` without an id its action name as id, so the keymap can reach it."""
    for listed in _class_bindings(owner).key_to_bindings.values():
        # In place: instances made before this (the app itself) share these lists through their copy.
        listed[:] = [binding if binding.id else dataclasses.replace(binding, id=action_name(binding))
                     for binding in listed]


def overridable_actions(app: App[Any]) -> set[str]:
    """Every action name the `[keys]` table may name."""
    names: set[str] = set()
    for _, owner in binding_owners(app):
        ensure_binding_ids(owner)
        names.update(binding.id or action_name(binding) for _, binding in _class_bindings(owner))
    return names


def apply_key_overrides(app: App[Any], overrides: Mapping[str, str]) -> str | None:
    """Install the overrides as the app's keymap; returns one notice about unknown names and taken keys, if any."""
    known = overridable_actions(app)
    usable = {name: key for name, key in overrides.items() if name in known}
    app.set_keymap(usable)
    problems = []
    if unknown := sorted(set(overrides) - set(usable)):
        problems.append(f"The [keys] table names no key binding called {', '.join(repr(n) for n in unknown)}; "
                        "those lines were skipped (F1 lists the action names).")
    problems.extend(taken_keys(app, app._keymap))
    return "\n".join(problems) or None


def taken_keys(app: App[Any], keymap: Mapping[str, str]) -> list[str]:
    """One sentence per default binding whose key an override takes in the same part of the app: Textual then
    drops that binding (its own clash check misses bindings that have ids, so this one is ours)."""
    found: list[str] = []
    for title, owner in binding_owners(app):
        listed = list(_class_bindings(owner))
        ids = {binding.id for _, binding in listed}
        for name, keys in keymap.items():
            if name not in ids:
                continue
            for key in keys.split(","):
                found.extend(
                    f"[keys]: {key} was {binding.id!r} in {title.lower()}; {name!r} takes it, so {binding.id!r} "
                    "has no key there now."
                    for bound, binding in listed
                    if bound == key and binding.id != name and binding.id not in keymap and not binding.system
                )
    return found


def _textual_defaults(owner: type[DOMNode]) -> set[Binding]:
    """Bindings `owner` inherits from Textual (focus moves, copy, a tree's cursor keys): left out of the help,
    not out of use."""
    inherited = [cls.__dict__.get("BINDINGS", []) for cls in owner.__mro__ if cls.__module__.startswith("textual.")]
    return {binding for listed in inherited for binding in Binding.make_bindings(listed)}


def key_rows(app: App[Any], owner: type[DOMNode]) -> list[KeyRow]:
    """The bindings one part of the app declares, with the keys in force now (overrides applied)."""
    ensure_binding_ids(owner)
    defaults = _textual_defaults(owner)
    declared = {
        key: kept for key, listed in _class_bindings(owner).key_to_bindings.items()
        if (kept := [b for b in listed if not b.system and dataclasses.replace(b, id=None) not in defaults])
    }
    bindings = BindingsMap.from_keys(declared)
    bindings.apply_keymap(app._keymap)  # the same overlay Textual applies when it looks a key up
    grouped: dict[str, tuple[Binding, list[str]]] = {}
    for _, binding in bindings:
        name = binding.id or action_name(binding)
        grouped.setdefault(name, (binding, []))[1].append(binding.key)  # as the [keys] table spells it
    return [KeyRow(" ".join(keys), binding.description or name.replace("_", " "), name)
            for name, (binding, keys) in grouped.items()]
