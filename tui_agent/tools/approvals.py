"""Provides `Grants` and `pattern_allows`: what may run without asking, beyond a tool's own policy.

Three things let an `ask` tool run unasked: an "always" answer, which `Grants` holds for one session
only (a new or another session starts empty) — for a tool, an exact command, one file's edits or every
edit (a tool whose effect is "edit"); `--allow TOOL` on a `-p` command line; and, for
command-like tools (`@tool(command="...")`, such as the shell), the `allow` patterns of the tool's
config table. For a command-like tool an "always" answer covers that exact command, never the tool.

Patterns are fnmatch globs over the whole command (`*` matches anything, spaces included). A command
that chains, substitutes or redirects — it contains one of `UNSAFE` — never matches a pattern, so
`ls *` cannot let `ls; rm -rf ~` or `ls > ~/.bashrc` through; nor does one that gives an option that runs
a program or writes a file (`find . -exec`, `git log --output=F`: `risky_options`) unless the pattern
names that option itself. Patterns are a convenience, not a sandbox: they read the command's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from tui_agent.config import UNSAFE_IN_PATTERNS as UNSAFE
from tui_agent.tools.confinement import confined, shown
from tui_agent.tools.risky_options import risky_options
from tui_agent.tools.spec import ToolSpec


def unsafe_part(command: str) -> str | None:
    """The first piece of shell syntax in `command` that keeps it from matching a pattern, if any."""
    return next((token for token in UNSAFE if token in command), None)


def pattern_allows(patterns: Iterable[str], command: str) -> bool:
    """Whether a configured pattern allows `command` (never for commands with `UNSAFE` syntax, nor with a
    risky option the pattern does not name)."""
    if unsafe_part(command) is not None:
        return False
    risky = risky_options(command)
    return any(fnmatchcase(command, pattern) and risky <= risky_options(pattern) for pattern in patterns)


@dataclass
class Grants:
    """The "always" answers of one session: whole tools, exact commands of command-like tools, the files
    whose edits are allowed and the effects ("edit") allowed for every tool."""

    session_id: str
    tools: set[str] = field(default_factory=set)
    commands: set[tuple[str, str]] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    effects: set[str] = field(default_factory=set)

    def covers(self, tool: str, command: str | None, *, effect: str | None = None, file: str | None = None) -> bool:
        """Whether an earlier "always" answer covers this call (`file`: the file an edit tool would change)."""
        if effect == "edit" and ("edit" in self.effects or (file is not None and file in self.files)):
            return True
        return (tool, command) in self.commands if command is not None else tool in self.tools

    def add(self, tool: str, command: str | None) -> None:
        """Remember an "always" answer: the exact command for command-like tools, else the tool."""
        if command is not None:
            self.commands.add((tool, command))
        else:
            self.tools.add(tool)


def edited_file(spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
    """The file an edit tool's call would change (its `path` argument, relative to the working directory), the
    key of an "always for this file" answer; None for other tools or a path that cannot be confined."""
    path = arguments.get("path")
    if spec.effect != "edit" or not isinstance(path, str):
        return None
    try:
        return shown(confined(path))
    except (ValueError, OSError):
        return None
