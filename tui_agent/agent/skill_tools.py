"""Provides `SkillSource`: the skills found here (`tui_agent.agents.skills`) offered to the model as two tools.

`load_skill(name)` answers with a skill's instructions (its `SKILL.md` body) and the list of its files;
`read_skill_file(skill, path)` with one of those files. Only the skills' names and descriptions are told up
front, in `load_skill`'s description (as Claude Code's Skill tool does), within `[tools] description_cap`:
when there are many, descriptions are shortened first, then the last skills are named without one. Both tools
read only the skills' own folders and change nothing (`effect="read"`), so they run unasked. An agent's profile
offers them as any tool (its `tools` list), and `skills = false` never; `[skills] enabled = false` offers them to
nobody.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.agents.skills import LOAD_TOOL, READ_TOOL, Skill, Skills, find_skills
from tui_agent.config import EVERY_TOOL, Settings, SkillsSettings
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.source import Finding, Listener, Redact
from tui_agent.tools.spec import ToolOptions, ToolSpec, build_spec

SOURCE = "skills"
INTRO = (
    "Load a skill: instructions, written by the user or the project, for doing a kind of task their way (and "
    "files that go with them). When the task at hand matches a skill's description, load that skill first and "
    "follow its instructions. The skills available:"
)
SHORT_DESCRIPTION = 160
"""A skill's description is cut to this many characters when the whole list does not fit the cap."""


class SkillSource:
    """The skills of a run, found once when it starts, and their two tools."""

    name = SOURCE

    def __init__(self, settings: SkillsSettings, cwd: Path | None = None, home: Path | None = None) -> None:
        self.settings = settings
        self.cwd, self.home = cwd, home
        self.skills = Skills()

    @classmethod
    def from_settings(cls, settings: Settings, redact: Redact) -> SkillSource:
        return cls(settings.skills)

    async def start(self, registry: ToolRegistry) -> None:
        """Find the skills and offer their tools, unless `[skills]` turns them off, `disabled_plugins` names
        "skills" or an invalid `[tools]` table turns every tool off."""
        tools = registry.settings
        if not self.settings.enabled or EVERY_TOOL in tools.turned_off or SOURCE in tools.disabled_plugins:
            return
        self.skills = await asyncio.to_thread(self.find)
        if self.skills.skills:
            cap = tools.description_cap
            registry.add(load_skill_spec(self.skills, self.settings.max_bytes, cap))
            registry.add(read_skill_file_spec(self.skills, self.settings.max_bytes))

    def find(self) -> Skills:
        """The skills found from the working folder (now)."""
        cwd, home = self.cwd or Path.cwd(), self.home or Path.home()
        return find_skills(cwd, self.settings, paths.config_dir(), home, paths.shipped_dir("skills"))

    async def settled(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def watch(self, listener: Listener) -> None:
        return None

    def notices(self) -> list[str]:
        return [f"Skill refused: {problem}" for problem in self.skills.problems]

    def summary(self) -> Mapping[str, list[dict[str, Any]]]:
        return {"skills": [skill.row() for skill in self.skills.skills]} if self.skills.skills else {}

    def findings(self) -> list[Finding]:
        if not self.settings.enabled:
            return [Finding("ok", "skills", "off ([skills] enabled = false)")]
        names = ", ".join(self.skills.names()) or "none found"
        said = [Finding("ok", "skills", f"{len(self.skills.skills)} offered: {names}")]
        fix = "fix its front matter, or its permissions as the sentence says (see docs/skills.md)"
        return said + [Finding("warn", "skills", problem, fix) for problem in self.skills.problems]


def load_skill_spec(skills: Skills, max_bytes: int, cap: int) -> ToolSpec:
    """`load_skill`, whose description lists `skills` (names and descriptions) within `cap` characters."""

    def load_skill(name: str) -> str:
        """Load a skill.

        Args:
            name: The skill's name, as listed.
        """
        skill = _named(skills, name)
        files, more = skill.files()
        lines = [
            f'Skill "{skill.name}" — its folder is {skill.folder}. Follow these instructions; read a file they '
            f"mention with {READ_TOOL}(skill, path), a path relative to that folder.",
            "",
            skill.instructions(max_bytes),
        ]
        if files:
            lines += ["", f"Files in the skill's folder{f' (and {more} more)' if more else ''}:"]
            lines += [f"- {file}" for file in files]
        return "\n".join(lines)

    description = skill_listing(skills, cap)
    options = ToolOptions(name=LOAD_TOOL, description=description, approval="never", effect="read")
    return build_spec(load_skill, options, source="tui_agent.agent.skill_tools", plugin=SOURCE)


def read_skill_file_spec(skills: Skills, max_bytes: int) -> ToolSpec:
    """`read_skill_file`: one file of a skill's folder, as text."""

    def read_skill_file(skill: str, path: str) -> str:
        """Read a file of a skill (one its instructions mention, or listed when it was loaded).

        Args:
            skill: The skill's name.
            path: The file's path relative to the skill's folder, e.g. reference.md or scripts/check.py
        """
        try:
            return _named(skills, skill).read(path, max_bytes)
        except FileNotFoundError:
            raise ValueError(
                f"the skill {skill!r} has no file {path!r} (its files are listed when it is loaded)"
            ) from None
        except OSError as error:  # RefusedFileError included: its sentence says why
            raise ValueError(f"{path}: {error.strerror or error}") from None

    options = ToolOptions(name=READ_TOOL, approval="never", effect="read")
    return build_spec(read_skill_file, options, source="tui_agent.agent.skill_tools", plugin=SOURCE)


def skill_listing(skills: Skills, cap: int) -> str:
    """`INTRO` and a line per skill, within `cap` characters: descriptions shortened first, then the last skills
    named without one."""
    lines = [f"- {skill.name}: {skill.description}" for skill in skills.skills]
    if _fits(lines, cap):
        return "\n".join([INTRO, *lines])
    short = [f"- {skill.name}: {_shortened(skill.description)}" for skill in skills.skills]
    for kept in range(len(short), -1, -1):
        rest = [skill.name for skill in skills.skills[kept:]]
        tail = [f"- also (load one to see what it is for): {', '.join(rest)}"] if rest else []
        if _fits([*short[:kept], *tail], cap):
            return "\n".join([INTRO, *short[:kept], *tail])
    return INTRO  # the registry cuts what is left, saying so


def _fits(lines: list[str], cap: int) -> bool:
    return len(INTRO) + sum(len(line) + 1 for line in lines) <= cap


def _shortened(description: str) -> str:
    return description if len(description) <= SHORT_DESCRIPTION else description[: SHORT_DESCRIPTION - 1] + "…"


def _named(skills: Skills, name: str) -> Skill:
    skill = skills.get(name.strip())
    if skill is None:
        raise ValueError(f"there is no skill {name!r}; the skills are: {', '.join(skills.names())}")
    return skill
