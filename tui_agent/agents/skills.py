"""Provides `find_skills` (`Skills`, `Skill`): the skill folders the agents are offered, and reading them.

A skill is a folder holding a `SKILL.md` — front matter with `name` and `description`, then instructions in
Markdown — and any other files (references, scripts, templates), in the open agent-skills format Claude Code,
Codex, opencode and Crush read. Only each skill's name and description are told to the model up front; it loads
a skill's instructions (`Skill.instructions`) and reads its files (`Skill.read`) through tools when a task
needs them (`tui_agent.agent.skill_tools`).

Where skills are found, the most general first (a later folder's skill wins a name another one also uses):

1. the skills shipped with tui-agent (`[skills] shipped = false` leaves them out);
2. the user's: `~/.claude/skills` and `~/.agents/skills` (the folders other agents read; `[skills] shared =
   false` leaves them out), then tui-agent's own, `skills/` in the config folder;
3. the folders `[skills] folders` names;
4. the project's, in each folder from the git root down to the working folder (as memory files are read):
   `.claude/skills`, `.agents/skills` (shared), then `.tui-agent/skills`.

Each holds one folder per skill, `NAME/SKILL.md`. Every `SKILL.md` is read like any file that decides what
tui-agent does as you (`tui_agent.file_trust`): one that others could change is refused with the sentence
saying why, as is one without a valid name or a description.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.agents.memory import project_folders
from tui_agent.config import SkillsSettings
from tui_agent.file_trust import read_user_file
from tui_agent.front_matter import split_front_matter

SKILL_FILE = "SKILL.md"
LOAD_TOOL = "load_skill"
"""The tool that gives the model a skill's instructions and the list of its files."""
READ_TOOL = "read_skill_file"
"""The tool that gives the model one file of a skill's folder."""
SKILL_TOOLS = frozenset({LOAD_TOOL, READ_TOOL})
OWN_FOLDER = "skills"
"""tui-agent's own skills folder: in the config folder, and as `.tui-agent/skills` in a project."""
SHARED_USER_FOLDERS = (".claude/skills", ".agents/skills")
"""Under the home folder: where Claude Code, and Codex, opencode and others, keep the user's skills."""
SHARED_PROJECT_FOLDERS = (".claude/skills", ".agents/skills")
PROJECT_FOLDER = ".tui-agent/skills"
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""The format's names: lowercase letters, digits and single hyphens, at most `MAX_NAME` characters."""
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_FILES_LISTED = 200
"""A skill's files listed for the model at most (a folder with more says how many were left out)."""


@dataclass(frozen=True)
class Skill:
    """One skill: its name and description (what the model is told up front), and where its folder is."""

    name: str
    description: str
    folder: Path
    origin: str
    """Which folder it was found in, in the user's words ("shipped", "user", "project", "~/.claude/skills"...)."""
    shipped: bool = False
    """Shipped with tui-agent: part of the installation, its files read unchecked."""

    @property
    def path(self) -> Path:
        return self.folder / SKILL_FILE

    def row(self) -> dict[str, str]:
        """This skill as `tui-agent skills --json` and `plugins --json` give it."""
        return {"name": self.name, "description": self.description, "path": str(self.path), "origin": self.origin}

    def instructions(self, max_bytes: int) -> str:
        """The body of its `SKILL.md` (after the front matter), cut at `max_bytes`, saying so. Raises OSError
        (`RefusedFileError` for a file others could change since it was found)."""
        text, cut = self._text(self.path, max_bytes)
        return split_front_matter(text).body.strip("\n") + cut

    def files(self) -> tuple[list[str], int]:
        """Its other files, as paths relative to its folder (at most `MAX_FILES_LISTED`; hidden ones left out),
        and how many more there are."""
        found = sorted(_files_under(self.folder))
        found = [name for name in found if name != SKILL_FILE]
        return found[:MAX_FILES_LISTED], max(0, len(found) - MAX_FILES_LISTED)

    def read(self, relative: str, max_bytes: int) -> str:
        """The text of its file `relative` (a path inside its folder), cut at `max_bytes`. Raises ValueError for a
        path outside the folder or a binary file, OSError when it cannot be read or is refused."""
        path = self.inside(relative)
        text, cut = self._text(path, max_bytes)
        if "\x00" in text:
            raise ValueError(f"{relative} is a binary file: it cannot be shown as text")
        return text + cut

    def inside(self, relative: str) -> Path:
        """`relative` as a path in its folder; ValueError when it leads outside (`..`, an absolute path, a
        symlink to elsewhere)."""
        root = self.folder.resolve()
        path = (self.folder / relative).resolve()
        if not relative.strip() or not path.is_relative_to(root) or path == root:
            raise ValueError(f"{relative!r} is not a file of the skill {self.name!r}: give a path inside its folder")
        return path

    def _text(self, path: Path, max_bytes: int) -> tuple[str, str]:
        data = read_user_file(path, shipped=path.parent if self.shipped else None)
        cut = f"\n[… cut: the file has {len(data):,} bytes, only the first {max_bytes:,} are shown]"
        return data[:max_bytes].decode("utf-8", errors="replace"), cut if len(data) > max_bytes else ""


@dataclass(frozen=True)
class Skills:
    """The skills offered here, by name, and what was refused or replaced on the way."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = ()
    """One sentence per `SKILL.md` refused (others could change it, no name or description, unreadable)."""
    replaced: tuple[str, ...] = ()
    """One sentence per skill a later folder's skill of the same name replaced."""

    def get(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)

    def names(self) -> list[str]:
        return [skill.name for skill in self.skills]


@dataclass(frozen=True)
class SkillFolder:
    """A folder of skills to read, and what to call it in a listing."""

    path: Path
    origin: str
    shipped: bool = False


@dataclass
class _Found:
    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)


def find_skills(cwd: Path, settings: SkillsSettings, user_folder: Path, home: Path, shipped: Path) -> Skills:
    """The skills offered in `cwd` (`user_folder`: the config folder; `home`: the user's home folder;
    `shipped`: the folder of the skills shipped with tui-agent), in the order the module docstring gives."""
    if not settings.enabled:
        return Skills()
    found = _Found()
    for folder in skill_folders(cwd, settings, user_folder, home, shipped):
        for skill_folder in _skill_folders_in(folder.path):
            _add(found, skill_folder, folder)
    ordered = sorted(found.skills.values(), key=lambda skill: skill.name)
    return Skills(tuple(ordered), tuple(found.problems), tuple(found.replaced))


def skill_folders(
    cwd: Path, settings: SkillsSettings, user_folder: Path, home: Path, shipped: Path
) -> list[SkillFolder]:
    """Every folder skills are read from here, the most general first (they need not exist)."""
    folders = [SkillFolder(shipped, "shipped", shipped=True)] if settings.shipped else []
    if settings.shared:
        folders += [SkillFolder(home / sub, f"~/{sub}") for sub in SHARED_USER_FOLDERS]
    folders.append(SkillFolder(user_folder / OWN_FOLDER, "user"))
    folders += [SkillFolder(path.expanduser(), str(path)) for path in settings.folders]
    names = (*(SHARED_PROJECT_FOLDERS if settings.shared else ()), PROJECT_FOLDER)
    folders += [SkillFolder(base / name, f"project {name}") for base in project_folders(cwd) for name in names]
    return _once(folders)


def _once(folders: list[SkillFolder]) -> list[SkillFolder]:
    """Each folder once, where it is first named (the config may name one that is read anyway)."""
    seen: set[Path] = set()
    kept = []
    for folder in folders:
        if folder.path.absolute() not in seen:
            seen.add(folder.path.absolute())
            kept.append(folder)
    return kept


def _skill_folders_in(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:  # not there (the usual case), or not a folder
        return
    for entry in entries:
        if not entry.name.startswith(".") and (Path(entry.path) / SKILL_FILE).is_file():
            yield Path(entry.path)


def _add(found: _Found, folder: Path, source: SkillFolder) -> None:
    try:
        skill = read_skill(folder, source)
    except (OSError, ValueError) as error:  # RefusedFileError included: its sentence says what to run
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        found.problems.append(f"{folder / SKILL_FILE}: {reason}")
        return
    if (earlier := found.skills.get(skill.name)) is not None:
        found.replaced.append(f"{skill.name}: the one in {skill.folder} replaces the one in {earlier.folder}")
    found.skills[skill.name] = skill


def read_skill(folder: Path, source: SkillFolder) -> Skill:
    """The skill in `folder`, from its `SKILL.md`'s front matter. Raises OSError (refused, unreadable) or
    ValueError (no front matter, an invalid name, no description)."""
    path = folder / SKILL_FILE
    data = read_user_file(path, shipped=folder if source.shipped else None)
    matter = split_front_matter(data.decode("utf-8", errors="replace"))
    name, description = matter.text("name") or "", " ".join((matter.text("description") or "").split())
    if not name:
        raise ValueError(
            "; ".join(matter.problems)
            or "its front matter has no `name` (a `---` block at the top with `name:` and `description:`)"
        )
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        raise ValueError(
            f"the name {name!r} is not a skill name: lowercase letters, digits and single hyphens, at most "
            f"{MAX_NAME} characters (e.g. `pdf-forms`)"
        )
    if not description:
        raise ValueError("its front matter has no `description` (the model chooses a skill by it)")
    return Skill(name, description[:MAX_DESCRIPTION], folder, source.origin, source.shipped)


def _files_under(folder: Path) -> Iterable[str]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        for name in files:
            if not name.startswith("."):
                yield (Path(root) / name).relative_to(folder).as_posix()
