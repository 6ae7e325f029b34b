"""Provides `SlashCommand`, `BUILTINS`, `Invocation` and `Catalogue`: every `/` command by name, and what a prompt
that starts with one asks for.

The built-in commands are listed here by name and description only: the app maps each name to one of its palette's
actions (`tui_agent/ui/slash_builtins.py`), and `-p` says they are the app's. The user's and the project's
Markdown commands (`command_files`) and the MCP servers' prompts come after them; a built-in's name cannot be
taken by a file (it is reported, as a folder's file shadowed by a nearer one is).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Source = Literal["built-in", "project", "user", "mcp"]
NAME = re.compile(r"^/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s+(.*))?$", re.DOTALL)
"""`/name` then, after white space, its arguments: a path (`/usr/bin`) has a `/` in its word and is no command."""


@dataclass(frozen=True)
class SlashCommand:
    """One command as the `/` menu lists it."""

    name: str
    description: str
    source: Source
    hint: str = ""
    """What to type after the name (`<file> [focus]`), shown after it in the menu."""
    takes_arguments: bool = False
    """Its text has a placeholder for arguments: choosing it in the menu leaves the cursor for them."""
    where: str = ""
    """Where it comes from: the file's path, or the MCP server's name."""

    @property
    def label(self) -> str:
        """`/name <hint>`."""
        return f"/{self.name} {self.hint}".rstrip()


@dataclass(frozen=True)
class Invocation:
    """A prompt that names a command: the name, and the text typed after it."""

    name: str
    arguments: str = ""


def invocation(prompt: str) -> Invocation | None:
    """The command `prompt` names (`/review src/app.py`), or None when it does not start with a command's shape."""
    found = NAME.match(prompt.strip())
    return Invocation(found.group(1), (found.group(2) or "").strip()) if found else None


BUILTINS: tuple[SlashCommand, ...] = tuple(
    SlashCommand(name, description, "built-in", hint, takes_arguments=False)
    for name, hint, description in (
        ("new", "", "Start a new, empty conversation"),
        ("clear", "", "Start a new, empty conversation (as /new)"),
        ("sessions", "", "List, search, open, rename, fork or delete sessions"),
        ("model", "[name]", "Switch the model; the conversation is kept"),
        ("agent", "[name]", "Run another agent (prompt, tools, model) from the next turn on"),
        ("team", "[name]", "Send the next prompts to a team of agents"),
        ("mode", "[name]", "Permission mode: ask, auto-edit, auto, plan, read-only (no name: the next one)"),
        ("plan", "", "Plan mode: the agent reads and plans, and asks before it changes anything"),
        ("compact", "", "Summarise the older turns into one message the model gets instead"),
        ("retry", "", "Ask again for the last reply; the old one is kept"),
        ("continue", "", "Have the model go on with a cut-off reply"),
        ("rewind", "", "Rewind the conversation and the files to before the last prompt (shown first)"),
        ("undo", "", "Undo the last rewind: the files back as they were (shown first)"),
        ("copy", "", "Copy the last reply to the clipboard"),
        ("export", "", "Write the session to a file (Markdown or JSON)"),
        ("memory", "", "Open the nearest AGENTS.md in $EDITOR"),
        ("memory-files", "", "Which memory files (AGENTS.md...) the system prompt carries"),
        ("system-prompt", "", "Change this session's system prompt"),
        ("theme", "", "Change the theme (saved in the config file)"),
        ("mcp", "", "The MCP servers: their state, tools and prompts"),
        ("commands", "", "Every / command and where it comes from"),
        ("help", "", "Every key binding"),
        ("quit", "", "Quit tui-agent"),
    )
)
"""The app's own commands, in the order the menu lists them; each is one of the palette's actions."""


DESCRIPTION_MATCH = 3
"""Letters typed before descriptions are searched too ("he" is in too many of them to help)."""


class Catalogue:
    """Every command by name: the built-ins, then the files' (the project's, the user's), then the MCP prompts'."""

    def __init__(self, commands: Iterable[SlashCommand] = ()) -> None:
        self._by_name: dict[str, SlashCommand] = {}
        for command in (*BUILTINS, *commands):
            self._by_name.setdefault(command.name, command)  # the first wins: built-ins over files

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def find(self, name: str) -> SlashCommand | None:
        return self._by_name.get(name)

    def all(self) -> list[SlashCommand]:
        return list(self._by_name.values())

    def matching(self, typed: str) -> list[SlashCommand]:
        """The commands for what is typed after `/`: names that start with it first, then names that contain it,
        then (from `DESCRIPTION_MATCH` letters on) those whose description does, each group in the catalogue's
        order."""
        typed = typed.lower()
        groups: tuple[list[SlashCommand], list[SlashCommand], list[SlashCommand]] = ([], [], [])
        for command in self._by_name.values():
            name = command.name.lower()
            if name.startswith(typed):
                groups[0].append(command)
            elif typed in name:
                groups[1].append(command)
            elif len(typed) >= DESCRIPTION_MATCH and typed in command.description.lower():
                groups[2].append(command)
        return [*groups[0], *groups[1], *groups[2]]


def listing(commands: Sequence[SlashCommand]) -> list[str]:
    """A line per command for `/commands` and the docs: `/name <hint> — description (where)`."""
    return [
        f"{command.label} — {command.description}" + (f" ({command.where})" if command.where else "")
        for command in commands
    ]
