"""Provides the app's key bindings as data: the bindings a class starts with and the keys in force under the
`[keys]` overrides (for the help screen and the hints widgets show).

Every binding tui-agent declares has an id, its action name (`app.sessions` -> `sessions`; bindings of screens
F1 does not list get a dotted id such as `mcp.restart`, which no override names). The bindings tui-agent
inherits from Textual (focus moves, copy, a tree's cursor keys) have no id: they stay in force, unlisted and
fixed. Which parts of the app own bindings, and the overrides themselves, are `key_overrides.py` (it names the
screens, which use this module).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingsMap, Keymap
from textual.dom import DOMNode

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
