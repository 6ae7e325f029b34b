"""Provides `AgentProfile`, `TeamProfile` and `load_catalog`: the agent and team files, shipped and the user's.

A profile is one TOML file in an `agents/` folder (the repository's, then the user's config folder; a later
folder wins a name clash); a team is one TOML file in a `teams/` folder. A file that cannot be read, does
not validate or that others could change (`tui_agent.file_trust`) is reported by its path and skipped, never
fatal. Names are the file's `name` key (or its stem).
"""

from __future__ import annotations

import fnmatch
import re
import shutil
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tui_agent import paths
from tui_agent.agents.skills import SKILL_TOOLS
from tui_agent.file_trust import RefusedFileError, read_user_file

DEFAULT_AGENT = "assistant"
"""The profile a session uses when none is asked for (when no file defines it: the config's own settings)."""
NAME_PATTERN = r"^[a-z][a-z0-9_-]{0,39}$"
"""Agent and team names: they become tool names (`ask_<name>`), so lowercase, short, no spaces."""
Approval = Literal["never", "ask", "deny"]
T = TypeVar("T", bound=BaseModel)


class AgentProfile(BaseModel):
    """One agent: who it is (system prompt), what it talks to, which tools it may use and its budgets.

    Unset values (None) fall back to the config file's settings, so a profile says only what it changes.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    system_prompt: str | None = None
    model: str | None = None
    base_url: str | None = None
    """Another OpenAI-compatible endpoint for this agent (a sub-agent may use a local model)."""
    api_key_env: str | None = None
    """The environment variable holding that endpoint's key (never the key itself)."""
    tools: list[str] = Field(default_factory=lambda: ["*"])
    """Tool names or fnmatch patterns (MCP tools included, e.g. `"github.*"`); `[]` means no tools."""
    approval: dict[str, Approval] = Field(default_factory=dict)
    """Per-tool approval policy (names or patterns) over the config's `[tools.approval]`."""
    max_tool_rounds: int | None = Field(default=None, ge=1)
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    delegates: list[str] = Field(default_factory=list)
    """Agents this one may ask (offered to the model as `ask_<name>` tools)."""
    memory: bool = True
    """Whether the memory files (AGENTS.md...: `tui_agent.agents.memory`) go into this agent's system prompt."""
    acp: list[str] | None = Field(default=None, min_length=1)
    """An external agent this profile names instead of a model: the command (and its arguments) that starts it,
    spoken to over the Agent Client Protocol (`tui_agent.acp_client`). Its model, tools and delegates are its
    own; `system_prompt` is put before its first prompt."""
    skills: bool = True
    """Whether this agent may be offered the skills (`tui_agent.agents.skills`); their two tools are tools like
    any other besides, offered when `tools` allows them (`"*"` does). False: never, even under `"*"`."""

    @field_validator("acp")
    @classmethod
    def _acp_names_a_program(cls, acp: list[str] | None) -> list[str] | None:
        if acp is not None and not acp[0].strip():
            raise ValueError('the first item is the program to start, e.g. acp = ["gemini", "--experimental-acp"]')
        return acp

    def allows_tool(self, tool: str) -> bool:
        """Whether `tool` is one this agent may use (a skill's tool only when `skills` is true)."""
        if tool in SKILL_TOOLS and not self.skills:
            return False
        return any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.tools)

    def approval_for(self, tool: str) -> Approval | None:
        """This profile's approval policy for `tool` (an exact name beats a pattern), None when it sets none."""
        if tool in self.approval:
            return self.approval[tool]
        return next((policy for pattern, policy in self.approval.items() if fnmatch.fnmatchcase(tool, pattern)), None)


class DoneWhen(BaseModel):
    """When a member's reply ends the team (AutoGen's termination conditions, as data): any one set that holds.

    `text`: the reply contains it, exactly as written; `match`: contains it in any case; `regex`: a Python
    regular expression found in the reply (`^`/`$` match at each line); `hook`: the name of a plugin function
    marked `@hook("team_done")`, told `(team, member, reply)`, whose true answer (or a string: the reason)
    ends the team. `by`: only these members' replies are judged (default: every member's).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str | None = None
    match: str | None = None
    regex: str | None = None
    hook: str | None = None
    by: list[str] = Field(default_factory=list)

    @field_validator("regex")
    @classmethod
    def _regex_compiles(cls, regex: str | None) -> str | None:
        if regex is not None:
            try:
                re.compile(regex, re.MULTILINE)
            except re.error as error:
                raise ValueError(f"not a valid regular expression ({error})") from error
        return regex


HumanInput = Literal["never", "each_round"]


class TeamProfile(BaseModel):
    """A team: members who speak in a flow until a done condition or a round budget ends it.

    `loop`: the members speak in order, each seeing the others' messages. `router`: the `router` agent picks
    who speaks next, or ends. `done_when`: text a reply contains exactly (e.g. `APPROVED`), or a `DoneWhen`
    table (any case, a regex, a hook, whose replies); the `done` tool ends a team whatever this says.
    `private_memory`: members who remember only what they were handed and said, not the whole team's talk.
    `human_input`: "each_round" pauses the team after each round for the person's message.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    members: list[str] = Field(min_length=1)
    flow: Literal["loop", "router"] = "loop"
    router: str | None = None
    done_when: DoneWhen = Field(default_factory=DoneWhen)
    """A plain string in the file is `DoneWhen.text`."""
    max_rounds: int = Field(default=4, ge=1, le=50)
    prefix: dict[str, str] = Field(default_factory=dict)
    """Per member: text put before what that member receives (Lagent's prefix hook, as data)."""
    private_memory: list[str] = Field(default_factory=list)
    """Members with a memory of their own (Lagent): the person's prompts, what was handed to them (the reply
    just before each of their turns) and their own replies; not the rest of the team's talk."""
    human_input: HumanInput = "never"
    """"each_round": the team pauses after every round so the person can speak; their next prompt goes on."""

    @property
    def speakers(self) -> list[str]:
        """The members, and the router when there is one."""
        return [*self.members, *([self.router] if self.router else [])]

    @field_validator("done_when", mode="before")
    @classmethod
    def _text_is_a_table(cls, done_when: object) -> object:
        return {"text": done_when} if isinstance(done_when, str) else ({} if done_when is None else done_when)

    @field_validator("router")
    @classmethod
    def _router_is_named(cls, router: str | None) -> str | None:
        return router or None

    @model_validator(mode="after")
    def _names_are_members(self) -> TeamProfile:
        for key, names in (("private_memory", self.private_memory), ("done_when.by", self.done_when.by)):
            if strangers := [name for name in names if name not in self.speakers]:
                raise ValueError(f"{key} names {', '.join(map(repr, strangers))}, which is not in the team")
        return self


@dataclass
class Catalog:
    """The agents and teams that loaded, where each came from, and the files that did not load."""

    agents: dict[str, AgentProfile] = field(default_factory=dict)
    teams: dict[str, TeamProfile] = field(default_factory=dict)
    sources: dict[str, Path] = field(default_factory=dict)
    """Agent or team name -> the file it came from (`team:<name>` for teams)."""
    problems: list[str] = field(default_factory=list)

    def agent(self, name: str) -> AgentProfile | None:
        """The profile called `name`, None when there is none."""
        return self.agents.get(name)

    def problems_of(self) -> list[str]:
        """Problems plus references that go nowhere (a delegate or team member that is not an agent, an external
        agent's program that is not there)."""
        dangling = [
            f"agent {profile.name!r} delegates to {delegate!r}, which is not an agent"
            for profile in self.agents.values()
            for delegate in profile.delegates
            if delegate not in self.agents
        ]
        dangling += [
            f"agent {profile.name!r} starts {profile.acp[0]!r}, which is not a program here (not on PATH)"
            for profile in self.agents.values()
            if profile.acp is not None and shutil.which(profile.acp[0]) is None
        ]
        dangling += [
            f"team {team.name!r} names {member!r}, which is not an agent"
            for team in self.teams.values()
            for member in [*team.members, *([team.router] if team.router else [])]
            if member not in self.agents
        ]
        return [*self.problems, *dangling]


def agent_folders(extra: Iterable[Path] = ()) -> list[Path]:
    """Where profiles are looked for, lowest precedence first: shipped, the user's, then `extra`."""
    return list(dict.fromkeys([paths.shipped_dir("agents"), paths.config_dir() / "agents", *extra]))


def team_folders(extra: Iterable[Path] = ()) -> list[Path]:
    """Where team files are looked for, lowest precedence first: shipped, the user's, then `extra`."""
    return list(dict.fromkeys([paths.shipped_dir("teams"), paths.config_dir() / "teams", *extra]))


def load_catalog(agent_dirs: Iterable[Path] | None = None, team_dirs: Iterable[Path] | None = None) -> Catalog:
    """Every profile and team file in the folders (default: shipped and the user's); bad files are problems."""
    catalog = Catalog()
    for path in _toml_files(agent_folders() if agent_dirs is None else agent_dirs):
        if profile := _load(path, AgentProfile, catalog.problems):
            catalog.agents[profile.name] = profile
            catalog.sources[profile.name] = path
    for path in _toml_files(team_folders() if team_dirs is None else team_dirs):
        if team := _load(path, TeamProfile, catalog.problems):
            catalog.teams[team.name] = team
            catalog.sources[f"team:{team.name}"] = path
    return catalog


def _toml_files(folders: Iterable[Path]) -> list[Path]:
    return [path for folder in folders if folder.is_dir() for path in sorted(folder.glob("*.toml"))]


def _load(path: Path, kind: type[T], problems: list[str]) -> T | None:
    shipped = paths.shipped_dir("agents" if kind is AgentProfile else "teams")
    try:
        data = tomllib.loads(read_user_file(path, shipped=shipped).decode("utf-8"))
    except RefusedFileError as error:  # others could change it (and so what the agent may do as you)
        problems.append(f"{path} is refused: {error}; not loaded")
        return None
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{path}: cannot be read ({error})")
        return None
    except tomllib.TOMLDecodeError as error:
        problems.append(f"{path}: is not valid TOML ({error})")
        return None
    data.setdefault("name", path.stem)
    try:
        return kind.model_validate(data)
    except ValidationError as error:
        reasons = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in error.errors())
        problems.append(f"{path}: {reasons}")
        return None
