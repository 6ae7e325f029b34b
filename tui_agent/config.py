"""Provides `Settings`, the typed configuration: defaults < TOML file < environment < command-line flags.

API keys are never stored here from a file write; they are read from the environment (the variable
named by `api_key_env`) when a client is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tui_agent.config_sources import ENV_VARS as ENV_VARS
from tui_agent.config_sources import ConfigFileError as ConfigFileError
from tui_agent.config_sources import merge_sources
from tui_agent.config_sources import read_config_file as read_config_file

UNSAFE_IN_PATTERNS = (";", "&", "|", "`", "$(", "${", ">", "<", "\n", "\r", "\0")
"""Shell syntax that makes one command more than it looks: lists (`;`, `&&`, `||`, `&`), pipes, command
substitution (backticks, `$(`), expansions with side effects (`${x:=...}`), redirections and process
substitution (`>`, `<`), line breaks. A command containing any never matches an `allow` pattern, and a
pattern containing any is refused (`tui_agent.tools.approvals` applies them)."""


class ToolRules(BaseModel):
    """A `[tools.NAME]` table: settings for the tool called NAME."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    allow: list[str] = Field(default_factory=list)
    """For a command-like tool (the shell): commands that run without asking, as fnmatch patterns over the
    whole command, e.g. `["git status", "ls *"]`. A command that chains, pipes, substitutes or redirects
    never matches."""

    @field_validator("allow")
    @classmethod
    def _no_shell_syntax(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            if any(token in pattern for token in UNSAFE_IN_PATTERNS):
                raise ValueError(f"{pattern!r} contains shell syntax (; & | ` $( ${{ > < or a line break); "
                                 "commands with it never match a pattern")
        return patterns


class ToolsSettings(BaseModel):
    """The `[tools]` table: which plugins and tools are off, approval overrides, limits; and per tool, a
    `[tools.NAME]` table (`ToolRules`)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    __pydantic_extra__: dict[str, ToolRules] = Field(init=False)  # the [tools.NAME] tables

    disabled_plugins: list[str] = Field(default_factory=list)
    """Plugin names (file stem, package folder or entry-point name) that are not loaded."""
    disabled_tools: list[str] = Field(default_factory=list)
    """Tool names that are loaded but never offered to the model."""
    approval: dict[str, Literal["never", "ask", "deny"]] = Field(default_factory=dict)
    """Per-tool approval policy, overriding the tool's own."""
    timeout: float = Field(default=30.0, gt=0)
    """Seconds a tool call may run (a tool may declare its own)."""
    output_cap: int = Field(default=32768, ge=256)
    """Bytes of a tool's output the model sees; the rest is cut with a "[truncated N bytes]" marker."""
    import_timeout: float = Field(default=3.0, gt=0)
    """Seconds all plugins together may take to import; slower ones are reported and skipped."""

    @model_validator(mode="before")
    @classmethod
    def _tables_only(cls, values: Any) -> Any:
        """Unknown keys that are not tables are ignored, as everywhere else in the file."""
        if not isinstance(values, Mapping):
            return values
        known = cls.model_fields
        return {key: value for key, value in values.items() if key in known or isinstance(value, Mapping)}

    def rules_for(self, tool: str) -> ToolRules:
        """The `[tools.NAME]` table of `tool` (empty when there is none)."""
        extra = self.model_extra or {}
        rules = extra.get(tool)
        return rules if isinstance(rules, ToolRules) else ToolRules()


class Settings(BaseModel):
    """Everything a run of tui-agent can be configured with."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    base_url: str | None = None
    """OpenAI-compatible endpoint; None means the built-in offline model."""
    model: str | None = None
    """Model name sent to the endpoint."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable that holds the API key (the key itself is never stored)."""
    offline: bool = False
    """Force the built-in offline model even when an endpoint is configured."""
    theme: str = "tui-agent-dark"
    """Name of the Textual theme to use."""
    db: Path | None = None
    """History database path; None means the platformdirs default."""
    plugin_dirs: list[Path] = Field(default_factory=list)
    """Extra plugin folders, searched after the shipped and user folders."""
    system_prompt: str | None = None
    """Sent first in every new session."""
    max_tool_rounds: int = Field(default=10, ge=1)
    """How many times one turn may call tools and ask the model again."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Tokens one reply may have, sent with every request (`max_tokens`; `max_completion_tokens` to OpenAI's
    own API); a reply cut at it is marked. Also the completion tokens one turn may use over its tool rounds.
    None: no limit."""
    stall_timeout: float = Field(default=30.0, gt=0)
    """Seconds without new content before a streaming reply is given up as stalled."""
    request_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for the endpoint to answer a request."""
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    """Tool and plugin settings (the `[tools]` table)."""
    redact_secrets: bool = True
    """Replace text shaped like a credential (sk-..., AKIA..., ghp_..., PEM private keys, JWTs...) with
    `[redacted]` before it is stored or exported; false keeps the raw text (API keys from the environment and
    this file are redacted regardless). Read by the history from the file itself."""
    keys: dict[str, str] = Field(default_factory=dict)
    """Key binding overrides (the `[keys]` table): action name -> key, e.g. `cancel_turn = "ctrl+c"`."""


def load_settings(
    file_values: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Settings:
    """Merge the sources by precedence: flags > environment > file > defaults."""
    return Settings.model_validate(merge_sources(file_values, environ, flags))


def resolve_settings(
    flags: Mapping[str, Any], path: Path, environ: Mapping[str, str] | None = None
) -> tuple[Settings, list[str]]:
    """Settings for this run and the problems met; a bad file never stops the app, its values are skipped."""
    problems: list[str] = []
    try:
        file_values = read_config_file(path)
    except ConfigFileError as error:
        problems.append(str(error))
        file_values = {}
    try:
        return load_settings(file_values, environ, flags), problems
    except ValidationError as error:
        if not file_values:
            raise
        where = ", ".join(_located(path, issue["loc"]) for issue in error.errors())
        problems.append(f"{path}: invalid value for {where}; using the defaults for the file's settings")
        return load_settings({}, environ, flags), problems


def _located(path: Path, loc: tuple[int | str, ...]) -> str:
    """A setting's dotted name, with " (line N)" when the file's line that sets it can be found."""
    name = ".".join(str(part) for part in loc)
    try:
        line = setting_line(path.read_text(encoding="utf-8", errors="replace"), [str(part) for part in loc])
    except OSError:  # it was readable a moment ago; the name alone still says what to fix
        return name
    return f"{name} (line {line})" if line else name


def setting_line(text: str, loc: list[str]) -> int | None:
    """The 1-based line of `text` (TOML) that sets `loc` or the table or array holding it; None if not found."""
    table: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            table = [part.strip().strip("\"'") for part in line.strip("[]").split(".")]
        elif "=" in line and not line.startswith("#"):
            key = [part.strip().strip("\"'") for part in line.split("=", 1)[0].split(".")]
            full = table + key
            if loc[: len(full)] == full:
                return number
    return None
