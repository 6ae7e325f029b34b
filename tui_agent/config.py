"""Provides `Settings`, the typed configuration: defaults < TOML file < environment < command-line flags.

API keys are never stored here from a file write; they are read from the environment (the variable
named by `api_key_env`) when a client is built.

An invalid value in the file costs only itself (`resolve_config`): the rest of the file is used, and the bad
value falls back to its default — unless it is a tool or approval setting, which fails closed: the tools
it concerns are turned off until it is fixed (a `[tools.NAME]` table or `approval.NAME` value: that tool;
`disabled_plugins`, `disabled_tools`, the `approval` table or `[tools]` as a whole: every tool, as a list
that cannot be read could have named any of them; the limits `timeout`, `output_cap` and `import_timeout`
just fall back; an invalid `[[hooks.before_tool]]` entry, or `[hooks]` as a whole: every tool, as that hook
might have denied any call). An invalid `[mcp_servers.NAME]` entry costs that server only: it is not started
until fixed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    PrivateAttr,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from tui_agent.config_fields import PROVIDER_KEY_ENV, RunFields, UiFields
from tui_agent.config_fields import ReasoningMode as ReasoningMode
from tui_agent.config_sources import ENV_VARS as ENV_VARS
from tui_agent.config_sources import ConfigFileError as ConfigFileError
from tui_agent.config_sources import RefusedConfigError as RefusedConfigError
from tui_agent.config_sources import merge_sources
from tui_agent.config_sources import read_config_file as read_config_file
from tui_agent.prices import Price, PriceTable, WindowTable, price_from

UNSAFE_IN_PATTERNS = (";", "&", "|", "`", "$(", "${", ">", "<", "\n", "\r", "\0")
"""Shell syntax that makes one command more than it looks: lists (`;`, `&&`, `||`, `&`), pipes, command
substitution (backticks, `$(`), expansions with side effects (`${x:=...}`), redirections and process
substitution (`>`, `<`), line breaks. A command containing any never matches an `allow` pattern, and a
pattern containing any is refused (`tui_agent.tools.approvals` applies them)."""
EVERY_TOOL = "*"
"""In `ToolsSettings.turned_off`: an invalid setting concerns every tool."""
LIMITS = ("timeout", "output_cap", "import_timeout", "schema_budget", "description_cap", "prefer", "demo_tools")
"""`[tools]` values that fall back to their default when invalid: they never widen what a tool may do (without
`prefer`, the tool found first keeps a name)."""


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
                raise ValueError(
                    f"{pattern!r} contains shell syntax (; & | ` $( ${{ > < or a line break); "
                    "commands with it never match a pattern"
                )
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
    prefer: dict[str, str] = Field(default_factory=dict)
    """Tool name -> the plugin (file stem, package folder or entry-point name) whose tool of that name is offered
    under it when several define it; without an entry the first found keeps it (the shipped tools first), and
    the others are offered as `plugin__name`."""
    timeout: float = Field(default=30.0, gt=0)
    """Seconds a tool call may run (a tool may declare its own)."""
    output_cap: int = Field(default=32768, ge=256)
    """Bytes of a tool's output the model sees; the rest is cut with a "[truncated N bytes]" marker."""
    import_timeout: float = Field(default=3.0, gt=0)
    """Seconds all plugins together may take to import; slower ones are reported and skipped."""
    schema_budget: int = Field(default=20000, ge=0)
    """Characters of tool schemas offered to the model before tui-agent warns (once) that the tools take up
    much of the context; `enabled_tools` on an MCP server is the usual fix."""
    demo_tools: Literal["auto", True, False] = "auto"
    """The offline model's demo tool, `get_current_weather` (invented weather, `plugins/examples/weather.py`): "auto"
    offers it only when the offline model answers (`--offline`, no endpoint, or a `tui-agent serve` asked for the
    model `offline`); true offers it to any model, false to none. A real model never sees it unless asked."""
    mode: Literal["read-only", "ask", "auto-edit", "auto", "plan"] = "ask"
    """The permission mode a session starts in (`tui_agent.tools.modes`; `--mode` wins): read-only, ask,
    auto-edit or auto."""
    description_cap: int = Field(default=4096, ge=256)
    """Characters of a tool's description sent to the model with every request; a longer one is cut (and
    reported), so one tool cannot fill the context."""
    edit_max_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    """The largest file the edit tools (`write_file`, `edit_file`) read or write; bigger ones are refused."""
    scan_max_files: int = Field(default=20_000, ge=0)
    """Files of the working directory scanned before and after a shell command or a tool that does not say what
    it changes, so a rewind can undo it (`tools/scan.py`); a bigger folder makes such calls "not undoable"; 0: no
    scan at all."""
    scan_max_bytes: int = Field(default=64 * 1024 * 1024, ge=0)
    """Bytes of file contents kept in memory for that scan; a changed file whose content did not fit is not
    undoable."""
    _off: dict[str, str] = PrivateAttr(default_factory=dict)
    """See `turned_off`; a private attribute, so no file can set it."""

    @model_validator(mode="before")
    @classmethod
    def _tables_only(cls, values: Any) -> Any:
        """Unknown keys that are not tables are ignored, as everywhere else in the file."""
        if not isinstance(values, Mapping):
            return values
        known = cls.model_fields
        return {key: value for key, value in values.items() if key in known or isinstance(value, Mapping)}

    @property
    def turned_off(self) -> Mapping[str, str]:
        """Tools turned off because a setting about them is invalid (fail closed): tool name, or "*" for every
        tool -> that setting, as "tools.approval.run_shell (line 4)". Set by `resolve_config` only."""
        return MappingProxyType(self._off)

    def turning_off(self, off: Mapping[str, str]) -> ToolsSettings:
        """A copy with these tools turned off too (see `turned_off`)."""
        copy = self.model_copy()
        copy._off = {**self._off, **off}
        return copy

    def off_because(self, tool: str) -> str | None:
        """The invalid setting that turns `tool` off, None when none does."""
        return self._off.get(tool) or self._off.get(EVERY_TOOL)

    def rules_for(self, tool: str) -> ToolRules:
        """The `[tools.NAME]` table of `tool` (empty when there is none)."""
        extra = self.model_extra or {}
        rules = extra.get(tool)
        return rules if isinstance(rules, ToolRules) else ToolRules()


class McpOAuthSettings(BaseModel):
    """An `[mcp_servers.NAME.oauth]` table: how tui-agent signs in to a server that uses OAuth (docs/mcp.md, OAuth)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scopes: list[str] = Field(default_factory=list)
    """Scopes to ask for (none: those the server's challenge or metadata names)."""
    callback_port: int | None = Field(default=None, ge=1024, le=65535)
    """The loopback port the browser returns to (for a client registered by hand with a fixed redirect URI;
    none: a free port, kept with the registration)."""
    client_id: str | None = None
    """A client registered by hand at the authorisation server (for one that allows no dynamic registration);
    its redirect URI must be `http://127.0.0.1:<callback_port>/callback`."""
    client_secret_env_var: str | None = None
    """The environment variable holding that client's secret, if it has one (the secret is never stored)."""

    @model_validator(mode="after")
    def _fixed_return(self) -> McpOAuthSettings:
        if self.client_id is not None and self.callback_port is None:
            raise ValueError("client_id needs callback_port (the port of the redirect URI registered with it)")
        if self.client_secret_env_var is not None and self.client_id is None:
            raise ValueError("client_secret_env_var is the secret of client_id: give client_id too")
        return self


class McpServerSettings(BaseModel):
    """A `[mcp_servers.NAME]` table: an MCP server whose tools the model may use (stdio: `command`;
    streamable HTTP: `url`). Unknown keys are errors here: a misspelt `enabled_tools` would widen access."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str | None = None
    """The program to start (stdio); it gets a minimal environment plus `env`."""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    """The server's streamable-HTTP endpoint."""
    headers: dict[str, str] = Field(default_factory=dict)
    bearer_token_env_var: str | None = None
    """The environment variable holding a bearer token for `url` (the token is never stored)."""
    approval: Literal["never", "ask", "deny"] = "ask"
    """Default approval of this server's tools; `[tools]` still overrides per tool."""
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] = Field(default_factory=list)
    startup_timeout: float = Field(default=10.0, gt=0)
    tool_timeout: float | None = Field(default=None, gt=0)
    """Seconds a call may run (None: the `[tools]` timeout)."""
    enabled: StrictBool = True
    sandbox: StrictBool = False
    """Run this stdio server inside the OS sandbox (docs/sandbox.md): it writes only in its working directory
    and a temp dir and cannot read the secrets folders."""
    sandbox_network: StrictBool = False
    """With `sandbox`, let the server use TCP (a server that fetches from the web needs it)."""
    auth: Literal["oauth", "none"] | None = None
    """`oauth`: sign in (in the browser) when the server asks, as it starts; `none`: never; unset: a server that
    asks is marked as needing a sign-in, done from the MCP screen or `tui-agent mcp login NAME`."""
    oauth: McpOAuthSettings = Field(default_factory=McpOAuthSettings)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (a streamable-HTTP server)")
        if self.auth == "oauth" and self.command is not None:
            raise ValueError('auth = "oauth" is for a url (streamable-HTTP) server')
        return self


class WebSettings(BaseModel):
    """The `[web]` table: the shipped `web_fetch` tool. Unknown keys are errors: a misspelt `allow_private`
    must not pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: StrictBool = True
    """Offer `web_fetch` to the model."""
    allow_private: list[str] = Field(default_factory=list)
    """Hosts (`intranet.example`, `*.corp`), addresses or ranges (`10.0.0.0/8`) a fetch may reach although they
    are private, loopback or link-local; none by default (a page could otherwise read this machine's network)."""
    max_bytes: int = Field(default=5_000_000, ge=1024)
    """Bytes of a page read at most; the rest is left unread and the answer says it was cut."""
    timeout: float = Field(default=20.0, gt=0)
    """Seconds a fetch may take, redirects included."""
    max_redirects: int = Field(default=5, ge=0, le=20)


class PriceSettings(BaseModel):
    """A `[prices."pattern"]` table: US dollars per million tokens for the models matching the fnmatch
    pattern; it replaces the shipped price of the same pattern, and the most specific pattern wins."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    """Prompt tokens served from the provider's cache; unset: billed as `input`."""
    cache_write: float | None = Field(default=None, ge=0)
    """Prompt tokens written to the provider's cache (Anthropic bills 1.25 times `input`); unset: billed as `input`."""

    def price(self) -> Price:
        return price_from(self.model_dump())


class MemorySettings(BaseModel):
    """The `[memory]` table: which memory files (AGENTS.md...) go into the system prompt (docs/context.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: StrictBool = True
    """Read memory files at all; false: none goes into any system prompt."""
    fallbacks: StrictBool = True
    """In a folder with no AGENTS.md, read CLAUDE.md (else GEMINI.md) instead; false: AGENTS.md only."""
    max_bytes: int = Field(default=32768, ge=256)
    """A file longer than this is cut, with a notice where it was cut, in the prompt and in the list."""


class CommandSettings(BaseModel):
    """The `[commands]` table: which folders' Markdown commands the `/` menu offers (docs/context.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: StrictBool = True
    """Read the user's and the project's command files at all; false: only the built-in commands."""
    other_tools: StrictBool = True
    """Also read Claude Code's and opencode's command folders (`.claude/commands`, `.opencode/command`...)."""
    max_bytes: int = Field(default=65536, ge=256)
    """A command file longer than this is refused, with a notice."""


class SkillsSettings(BaseModel):
    """The `[skills]` table: which skill folders (a `SKILL.md` each) the agents are offered (docs/skills.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: StrictBool = True
    """Offer skills at all; false: no skill tools, no skills listed to the model."""
    shared: StrictBool = True
    """Also read the folders other agents read (`~/.agents/skills`, `~/.claude/skills`, and `.agents/skills`,
    `.claude/skills` in the project); false: tui-agent's own folders only."""
    shipped: StrictBool = True
    """Offer the skills shipped with tui-agent (an example); false: only yours and the project's."""
    folders: list[Path] = Field(default_factory=list)
    """More folders of skills (each holding `NAME/SKILL.md`), read after the user's own."""
    max_bytes: int = Field(default=65536, ge=1024)
    """A skill's file read through a tool is cut at this many bytes (its `SKILL.md` too), saying so."""


class CommandHookSettings(BaseModel):
    """One command hook: an entry of a `[[hooks.EVENT]]` array (docs/hooks.md has the contract)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str = Field(min_length=1)
    """Run with `/bin/sh -c`, the event as JSON on its stdin, in the working directory."""
    matcher: str = ""
    """Tool events only: a regular expression the whole tool name must match ("run_shell", "edit_file|write_file");
    empty or "*": every tool."""
    timeout: float = Field(default=10.0, gt=0, le=600)
    """Seconds the command may take; then it is stopped (with its children) and reported, and changes nothing."""
    name: str = ""
    """What the person and the model are told the hook is called; empty: its command (shortened)."""

    @field_validator("matcher")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value if value != "*" else "")
        except re.error as error:
            raise ValueError(f"not a regular expression: {error}") from error
        return value


class HooksSettings(BaseModel):
    """The `[hooks]` table: shell commands run on the session's events (`[[hooks.before_tool]]`...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session_start: list[CommandHookSettings] = Field(default_factory=list)
    prompt_submitted: list[CommandHookSettings] = Field(default_factory=list)
    before_tool: list[CommandHookSettings] = Field(default_factory=list)
    after_tool: list[CommandHookSettings] = Field(default_factory=list)
    turn_end: list[CommandHookSettings] = Field(default_factory=list)
    notification: list[CommandHookSettings] = Field(default_factory=list)
    log: Path | None = None
    """Where the commands' output goes (appended); None: hooks.log in the data folder."""


class RetrievalSettings(BaseModel):
    """The `[retrieval]` table: how `search_docs` ranks passages (docs/retrieval.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    embedding_model: str | None = None
    """An embedding model the endpoint serves (`/v1/embeddings`, e.g. "text-embedding-3-small"): passages get
    vectors too and searches fuse BM25 with them (hybrid). None: BM25 alone, nothing sent anywhere."""
    embedding_base_url: str | None = None
    """The endpoint that embeds (ends in /v1); None: the run's own endpoint (the offline model's, offline)."""
    embedding_api_key_env: str | None = None
    """The variable holding that endpoint's key; None: the run's own key."""
    folders: list[Path] = Field(default_factory=list)
    """More folders `search_docs` searches beside the working directory (notes, a docs checkout; `~` expanded, a
    relative one taken from the working directory). `--docs DIR` adds to them."""


class SandboxSettings(BaseModel):
    """The `[sandbox]` table: the OS sandbox commands run in (always in auto mode; docs/sandbox.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    commands: StrictBool = False
    """Run `run_shell` and every command-like tool in the sandbox in every mode, not only in auto."""
    network: StrictBool = False
    """Let sandboxed commands open TCP connections (and listen); false: they cannot."""
    deny_read: list[str] = Field(default_factory=list)
    """More files and folders a sandboxed command may not read, beside the built-in secrets folders
    (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/tui-agent...)."""
    allow_read: list[str] = Field(default_factory=list)
    """Built-in secrets folders a sandboxed command may read after all (e.g. "~/.docker")."""
    writable: list[str] = Field(default_factory=list)
    """More folders a sandboxed command may write, beside the working directory and its private temp dir."""


class TracingSettings(BaseModel):
    """The `[tracing]` table: OpenTelemetry traces of each turn's task tree (docs/tracing.md); off unless
    `exporter` names where they go (`--otel` chooses it for one run)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exporter: Literal["otlp", "file"] | None = None
    """"otlp": to a collector over OTLP/HTTP; "file": one JSON span a line to `file`; None: no tracing."""
    endpoint: str | None = None
    """The collector's OTLP/HTTP base URL (`/v1/traces` is added); None: $OTEL_EXPORTER_OTLP_ENDPOINT, else
    http://localhost:4318."""
    file: Path | None = None
    """Where "file" appends its JSON lines; None: traces.jsonl in the data folder."""
    service_name: str = "tui-agent"
    """The `service.name` the spans carry."""

    def chosen_by_flag(self, flag: str) -> TracingSettings:
        """These settings with `--otel FLAG` over them: "otlp", "file" (the configured file), or a file's path."""
        if flag in ("otlp", "file"):
            return self.model_copy(update={"exporter": flag})
        return self.model_copy(update={"exporter": "file", "file": Path(flag).expanduser()})


class UiSettings(UiFields, BaseModel):
    """How the app shows things (the `[ui]` table): its fields are `UiFields`' (`tui_agent.config_fields`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Settings(RunFields, BaseModel):
    """Everything a run of tui-agent can be configured with: `RunFields` (what the first frame reads, declared
    without pydantic in `tui_agent.config_fields`) and the rest."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    plugin_dirs: list[Path] = Field(default_factory=list)
    """Extra plugin folders, searched after the shipped and user folders."""
    system_prompt: str | None = None
    """Sent first in every new session (over the default agent's own; an agent asked for by name uses its own)."""
    agent: str | None = None
    """The agent new sessions run (`--agent`): a profile's name; None: `assistant` when a file defines it; "": no
    agent, this file's settings alone."""
    max_tool_rounds: int = Field(default=10, ge=1)
    """How many times one turn may call tools and ask the model again."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Tokens one reply may have, sent with every request (`max_tokens`; `max_completion_tokens` to OpenAI's
    own API); a reply cut at it is marked. Also the completion tokens one turn may use over its tool rounds.
    None: no limit."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature sent with every request (None: the server's own default); an agent may set its own."""
    thinking_budget: int | None = Field(default=None, ge=1024)
    """Tokens of extended thinking a reply may use, on Anthropic's protocol (None: thinking off)."""
    stall_timeout: float = Field(default=30.0, gt=0)
    """Seconds without new content before a streaming reply is given up as stalled."""
    request_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for the endpoint to answer a request."""
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    """Tool and plugin settings (the `[tools]` table)."""
    redact_secrets: StrictBool = True
    """Replace text shaped like a credential (sk-..., AKIA..., ghp_..., PEM private keys, JWTs...) with
    `[redacted]` before it is stored or exported; false keeps the raw text (API keys from the environment and
    this file are redacted regardless). Strict: only a TOML `false` turns it off, as `Redactor.default`,
    which reads the file itself where no settings are at hand (`sessions` commands), also requires."""
    mcp_servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    """MCP servers whose tools are offered like plugins' (the `[mcp_servers.NAME]` tables)."""
    ui: UiSettings = Field(default_factory=UiSettings)
    """How the app shows things (the `[ui]` table)."""
    web: WebSettings = Field(default_factory=WebSettings)
    """The `web_fetch` tool (the `[web]` table)."""
    prices: dict[str, PriceSettings] = Field(default_factory=dict)
    """Model prices (the `[prices."pattern"]` tables) over the shipped table (`tui_agent/prices.toml`)."""

    context_windows: dict[str, PositiveInt] = Field(default_factory=dict)
    """Context windows in tokens per fnmatch pattern (the `[context_windows]` table: `"my-model*" = 32768`),
    over what the server says and the shipped table (`tui_agent/context_windows.toml`)."""
    compact_at: float = Field(default=0.8, gt=0, le=1)
    """Before a turn, when the context holds this share of the model's window, older turns are summarised
    into one message (compaction); 1 compacts only a full window."""
    memory: MemorySettings = Field(default_factory=MemorySettings)
    """Memory files, AGENTS.md and its fallbacks (the `[memory]` table)."""
    commands: CommandSettings = Field(default_factory=CommandSettings)
    """Slash commands: the user's and the project's Markdown commands (the `[commands]` table)."""
    skills: SkillsSettings = Field(default_factory=SkillsSettings)
    """Skill folders offered to the agents (the `[skills]` table)."""
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    """Command hooks (the `[hooks]` table; docs/hooks.md)."""
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    """How `search_docs` ranks passages: BM25, or hybrid with an embedding model (the `[retrieval]` table)."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    """The OS sandbox for commands (the `[sandbox]` table)."""
    tracing: TracingSettings = Field(default_factory=TracingSettings)
    """OpenTelemetry traces of the turns (the `[tracing]` table); off by default."""
    history_lock_wait: float = Field(default=30.0, ge=0)
    """Seconds `-p` waits at its exit for another program that holds the history file's lock, to save the run;
    then it says what could not be saved."""

    @model_validator(mode="after")
    def _anthropic_key(self) -> Settings:
        """Anthropic's key variable by default when the provider is Anthropic."""
        if "api_key_env" not in self.model_fields_set:
            object.__setattr__(self, "api_key_env", PROVIDER_KEY_ENV[self.provider])  # frozen: set while validating
        return self

    def price_table(self) -> PriceTable:
        """The shipped prices with this config's `[prices]` on top."""
        return PriceTable.with_overrides({pattern: entry.price() for pattern, entry in self.prices.items()})

    def window_table(self) -> WindowTable:
        """The shipped context windows with this config's `[context_windows]` on top."""
        return WindowTable.with_overrides(self.context_windows)


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
    """Settings for this run and the problems met; a bad file never stops the app (see `resolve_config`)."""
    resolved = resolve_config(flags, path, environ)
    return resolved.settings, resolved.problems


UNKNOWN_SETTING = "Extra inputs are not permitted"
"""Pydantic's message for a key the settings do not have."""


@dataclass(frozen=True)
class Fallback:
    """A value of the config file that is not used because it is invalid."""

    name: str
    """Its dotted name, e.g. "tools.approval.run_shell"."""
    line: int | None
    """The file's line that sets it (None when it cannot be found)."""
    reason: str
    """What is wrong with it (pydantic's message)."""
    tools_off: str | None
    """The tool it turns off ("*": every tool), None when its default applies instead."""

    @property
    def where(self) -> str:
        """The name with its line, as "tools.approval.run_shell (line 4)"."""
        return f"{self.name} (line {self.line})" if self.line else self.name

    @property
    def consequence(self) -> str:
        server = self.name.split(".")
        if server[0] == "mcp_servers" and len(server) > 1:
            return f"the MCP server {server[1]} is not started until it is fixed"
        if self.tools_off == EVERY_TOOL:
            then = "every tool is disabled until it is fixed"
        elif self.tools_off is not None:
            then = f"the tool {self.tools_off} is disabled until it is fixed"
        else:
            then = "using the default for it"
        return then

    def notice(self, path: Path) -> str:
        if self.reason == UNKNOWN_SETTING and self.name == "api_key":  # the usual place for it elsewhere
            return (
                f"{path}: {self.where} is ignored: the key is read from the "
                "environment variable api_key_env names (OPENAI_API_KEY unless it says otherwise), never from a file"
            )
        if self.reason == UNKNOWN_SETTING:  # pydantic's words for a key no model field has: likely a typo
            return f"{path}: unknown setting {self.where} (no such setting: a typo?); it is ignored"
        return f"{path}: invalid value for {self.where} ({self.reason}); {self.consequence}"


@dataclass(frozen=True)
class ResolvedConfig:
    """Settings for a run, how they came about and what went wrong on the way."""

    settings: Settings
    problems: list[str] = field(default_factory=list)
    """Sentences for the user: the file's syntax error, or one per invalid value."""
    fallbacks: list[Fallback] = field(default_factory=list)
    file_values: dict[str, Any] = field(default_factory=dict)
    """The file's values that were used (the invalid ones removed)."""
    refused: str | None = None
    """Why the whole file was refused (others could change it: see `tui_agent.file_trust`), None if it was not."""


def resolve_config(flags: Mapping[str, Any], path: Path, environ: Mapping[str, str] | None = None) -> ResolvedConfig:
    """Settings from every source; each invalid value of the file is dropped alone and reported with its line
    (tool settings fail closed: see the module docstring). A syntax error drops the whole file, and so does a
    file that others could change (`refused`)."""
    problems: list[str] = []
    refused = None
    try:
        file_values = read_config_file(path)
    except RefusedConfigError as error:  # others could change it: nothing of it is used
        problems.append(str(error))
        file_values, refused = {}, error.reason
    except ConfigFileError as error:
        problems.append(str(error))
        file_values = {}
    # The settings ignore a top-level key they do not have (the tables forbid them): a typo, said like theirs.
    fallbacks = [_fallback(path, (key,), UNKNOWN_SETTING) for key in file_values if key not in Settings.model_fields]
    overridden = set(merge_sources({}, environ, flags))
    while True:  # each round drops at least one value, so this ends
        try:
            settings = load_settings(file_values, environ, flags)
            break
        except ValidationError as error:
            dropped = [_drop(file_values, issue["loc"], overridden) for issue in error.errors()]
            if not all(dropped):  # a value from a flag or the environment: not the file's to drop
                raise
            fallbacks.extend(
                _fallback(path, tuple(where), issue["msg"])
                for where, issue in zip(dropped, error.errors(), strict=True)
                if where
            )
    off = {fallback.tools_off: fallback.where for fallback in fallbacks if fallback.tools_off}
    if off:
        settings = settings.model_copy(update={"tools": settings.tools.turning_off(off)})
    fallbacks.sort(key=lambda fallback: fallback.line or 0)  # validation's order is not the file's
    problems.extend(fallback.notice(path) for fallback in fallbacks)
    return ResolvedConfig(settings, problems, fallbacks, file_values, refused)


def _drop(values: dict[str, Any], loc: tuple[int | str, ...], overridden: set[str]) -> list[str] | None:
    """Remove the file's value at `loc` (a whole list when one item is bad, an MCP server's whole entry); the
    dotted path of the bad value, None when the file has no value there (it came from a flag or the
    environment)."""
    if not loc or loc[0] in overridden:
        return None
    container: Any = values
    parent: dict[str, Any] = values
    path: list[str] = []
    for part in loc:
        if not (isinstance(part, str) and isinstance(container, dict) and part in container):
            break
        path.append(part)
        parent, container = container, container[part]
    if not path:
        return None
    if path[0] in ("mcp_servers", "prices") and len(path) > 2:  # half a server (price) is none: the entry goes
        parent = values[path[0]]
        del parent[path[1]]
        return path
    del parent[path[-1]]
    return path


def _fallback(path: Path, where: tuple[str, ...], reason: str) -> Fallback:
    return Fallback(".".join(where), _line(path, where), reason, _tools_concerned(where))


def _tools_concerned(where: tuple[str, ...]) -> str | None:
    """The tool an invalid setting turns off ("*": every tool), None when it turns off none."""
    if where[:1] == ("hooks",) and (len(where) == 1 or where[1] == "before_tool"):
        return EVERY_TOOL  # a before_tool hook that cannot be read might have denied any call
    if not where or where[0] != "tools":
        return None
    if len(where) == 1 or where[1] in ("disabled_plugins", "disabled_tools"):
        return EVERY_TOOL
    if where[1] == "approval":
        return where[2] if len(where) > 2 else EVERY_TOOL
    if where[1] in LIMITS:
        return None
    return where[1]  # a [tools.NAME] table


def _line(path: Path, where: tuple[str, ...]) -> int | None:
    """The file's line that sets `where`, if it can be found."""
    try:
        return setting_line(path.read_text(encoding="utf-8", errors="replace"), list(where))
    except OSError:  # it was readable a moment ago; the name alone still says what to fix
        return None


def setting_line(text: str, loc: list[str]) -> int | None:
    """The 1-based line of `text` (TOML) that sets `loc` or the table or array holding it; None if not found."""
    table: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            table = [part.strip().strip("\"'") for part in line.strip("[]").split(".")]
            if table == loc:  # the invalid value is a whole table (an MCP server entry)
                return number
        elif "=" in line and not line.startswith("#"):
            key = [part.strip().strip("\"'") for part in line.split("=", 1)[0].split(".")]
            full = table + key
            if loc[: len(full)] == full:
                return number
    return None
