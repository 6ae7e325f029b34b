"""Provides `find_commands` (`CommandFiles`, `CommandFile`, `Expansion`): the user's and the project's Markdown
commands, as Claude Code and opencode keep them.

A command is a Markdown file; its name is the file's stem (`review.md` is `/review`), a subfolder's name before it
(`git/commit.md` is `/git:commit`). Its text is the prompt sent, with what is typed after the name filled in
(`templates`). Optional front matter: `description` (the menu's line; else the text's first line), `agent` and
`model` (who answers it), `arguments` (names for `$name` placeholders, or a hint such as `<file> [focus]`; Claude
Code's `argument-hint` is read too). Other keys (Claude Code's `allowed-tools`...) are ignored.

Where, the first found winning a name (the nearest folder has the last word, as with memory files):

1. the project's: `.tui-agent/commands/` in each folder from the working folder up to the git root;
2. the user's: `commands/` in the config folder.

With `[commands] other_tools` (the default) each place also reads the folders other tools use, after ours:
Claude Code's `.claude/commands/` (and `~/.claude/commands/`), opencode's `.opencode/command/` and
`.opencode/commands/` (and `~/.config/opencode/command/`).

Every file is read as a user file (`tui_agent.file_trust`): one that others could change is refused with the
sentence saying what to run, as is a file over `max_bytes`; a refusal is a notice, never the end of the run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tui_agent.agents.memory import project_folders
from tui_agent.commands.catalogue import BUILTINS, SlashCommand, Source
from tui_agent.commands.templates import fill, takes_arguments
from tui_agent.config import CommandSettings
from tui_agent.file_trust import folder_problem, read_user_file
from tui_agent.front_matter import FrontMatter, split_front_matter
from tui_agent.paths import HOME_ENV

OUR_FOLDER = Path(".tui-agent") / "commands"
OTHER_PROJECT_FOLDERS = (Path(".claude") / "commands", Path(".opencode") / "command", Path(".opencode") / "commands")
OTHER_USER_FOLDERS = (Path(".claude") / "commands", Path(".config") / "opencode" / "command")
MAX_FILES = 500
"""Files read per folder at most (a command folder is a handful; a mistake is not read for ever)."""
MAX_DEPTH = 3
"""Subfolders below a commands folder that are read (`a/b/c.md` is `/a:b:c`)."""
NAME_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
ARGUMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
BUILTIN_NAMES = frozenset(command.name for command in BUILTINS)


@dataclass(frozen=True)
class Expansion:
    """A command's prompt, filled in: the text to send, and who should answer it (None: the session's choice)."""

    command: str
    text: str
    agent: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class CommandFile:
    """One Markdown command."""

    name: str
    path: Path
    source: Source
    body: str
    description: str
    agent: str | None = None
    model: str | None = None
    arguments: tuple[str, ...] = ()
    """Names its text may use as `$name` (the front matter's `arguments` list)."""
    hint: str = ""

    @property
    def command(self) -> SlashCommand:
        """How the menu lists it."""
        needs = takes_arguments(self.body, self.arguments)
        return SlashCommand(self.name, self.description, self.source, self.hint, needs, str(self.path))

    def expand(self, arguments: str) -> Expansion:
        """Its prompt with `arguments` (what was typed after the name) filled in."""
        return Expansion(self.name, fill(self.body, arguments, self.arguments).strip(), self.agent, self.model)


@dataclass(frozen=True)
class CommandFiles:
    """The command files in force, by name, and a sentence per file refused or shadowed."""

    files: tuple[CommandFile, ...] = ()
    problems: tuple[str, ...] = ()

    def find(self, name: str) -> CommandFile | None:
        return next((file for file in self.files if file.name == name), None)

    @property
    def commands(self) -> list[SlashCommand]:
        return [file.command for file in self.files]


def find_commands(cwd: Path, settings: CommandSettings, user_folder: Path, home: Path | None = None) -> CommandFiles:
    """The commands in force in `cwd` (`user_folder`: the config folder; `home`: where other tools keep the
    user's, by default the home folder, or a `home` folder under `TUI_AGENT_HOME` when that is set)."""
    if not settings.enabled:
        return CommandFiles()
    found: dict[str, CommandFile] = {}
    problems: list[str] = []
    for folder, source in command_folders(cwd, settings, user_folder, home or other_tools_home()):
        for file in _read_folder(folder, source, settings.max_bytes, problems):
            if file.name in BUILTIN_NAMES:
                problems.append(f"{file.path}: /{file.name} is a built-in command; rename the file to offer it")
            else:
                found.setdefault(file.name, file)  # a nearer folder's file has the name already
    return CommandFiles(tuple(found.values()), tuple(problems))


def other_tools_home() -> Path:
    """Where other tools keep the user's commands: the home folder (under `TUI_AGENT_HOME` when set, so a test
    or a sandboxed run never reads the person's real ones)."""
    root = os.environ.get(HOME_ENV)
    return Path(root) / "home" if root else Path.home()


def command_folders(
    cwd: Path, settings: CommandSettings, user_folder: Path, home: Path
) -> Iterator[tuple[Path, Source]]:
    """The folders read, the first found winning a name: the project's (nearest first), then the user's."""
    project = (OUR_FOLDER, *OTHER_PROJECT_FOLDERS) if settings.other_tools else (OUR_FOLDER,)
    for folder in reversed(project_folders(cwd)):
        for sub in project:
            yield folder / sub, "project"
    yield user_folder / "commands", "user"
    if settings.other_tools:
        for sub in OTHER_USER_FOLDERS:
            yield home / sub, "user"


def _read_folder(folder: Path, source: Source, max_bytes: int, problems: list[str]) -> Iterator[CommandFile]:
    if not folder.is_dir():
        return
    if (problem := folder_problem(folder)) is not None:
        problems.append(f"{folder}: {problem}")
        return
    for path in _markdown_files(folder)[:MAX_FILES]:
        parts = path.relative_to(folder).with_suffix("").parts
        if not all(NAME_PART.match(part) for part in parts):
            problems.append(f"{path}: a command's name takes letters, digits, '.', '-' and '_' only")
            continue
        file = _read_file(path, ":".join(parts), source, max_bytes, problems)
        if file is not None:
            yield file


def _markdown_files(folder: Path) -> list[Path]:
    files: list[Path] = []
    for root, folders, names in os.walk(folder):  # never follows a symlinked folder
        depth = len(Path(root).relative_to(folder).parts)
        folders[:] = sorted(name for name in folders if not name.startswith(".")) if depth < MAX_DEPTH else []
        files.extend(Path(root) / name for name in sorted(names) if name.endswith(".md"))
        if len(files) > MAX_FILES:
            break
    return files


def _read_file(path: Path, name: str, source: Source, max_bytes: int, problems: list[str]) -> CommandFile | None:
    try:
        data = read_user_file(path)
    except OSError as error:  # RefusedFileError included: its sentence says what to run
        problems.append(f"{path}: {error.strerror or error}")
        return None
    if len(data) > max_bytes:
        problems.append(f"{path}: {len(data)} bytes, over the {max_bytes} a command may have ([commands] max_bytes)")
        return None
    matter = split_front_matter(data.decode("utf-8", errors="replace"))
    problems.extend(f"{path}: {problem}" for problem in matter.problems)
    body = matter.body.strip()
    names, hint = _arguments(matter)
    return CommandFile(
        name=name,
        path=path,
        source=source,
        body=body,
        description=matter.text("description") or _first_line(body) or f"/{name}",
        agent=matter.text("agent"),
        model=matter.text("model"),
        arguments=names,
        hint=hint,
    )


def _arguments(matter: FrontMatter) -> tuple[tuple[str, ...], str]:
    """The `$name` placeholders' names and the menu's hint: `arguments: [file, focus]` names both (`<file>
    <focus>`); any other `arguments` text (`<file> [focus]`), or `argument-hint`, is a hint alone."""
    words = matter.names("arguments")
    names = tuple(words) if words and all(ARGUMENT_NAME.match(word) for word in words) else ()
    hint = matter.raw.get("argument-hint") or (
        " ".join(f"<{name}>" for name in names) if names else matter.text("arguments") or ""
    )
    return names, hint


def _first_line(body: str) -> str:
    line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    line = line.lstrip("#").strip()
    return line if len(line) <= 80 else line[:79] + "…"
