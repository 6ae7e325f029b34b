"""Provides `ToolRegistry`: every tool found, which ones are offered to the model, and what went wrong.

Duplicate names: the tool found first keeps its name (see `discovery` for the order: the shipped tools come
first, installed packages last), so no plugin or package silently replaces a tool you rely on; the newcomer
is offered as `plugin__name` and the clash is reported. `[tools] prefer` gives a name to another plugin. A tool
whose config setting is invalid is registered but off (`ToolsSettings.turned_off`); when an invalid setting
concerns every tool, no plugin is even imported, as the setting may have been the one that disabled it.

A description longer than `[tools] description_cap` is cut (the model is sent it with every request) and
the cut reported; `capped` names the tools it happened to.

Live sources (MCP servers) come and go during a run: `replace_source` swaps one source's tools as a whole;
their names never replace a tool already there (a clash is renamed `source__tool` and reported), and a
turn awaits `settled()` so that sources still starting can join first.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from tui_agent import paths
from tui_agent.config import EVERY_TOOL, ToolsSettings
from tui_agent.tools.discovery import plugin_sources
from tui_agent.tools.edits import edit_limit
from tui_agent.tools.hooks import Hooks, hooks_in
from tui_agent.tools.journal import ImportJournal
from tui_agent.tools.loader import Loaded, load_guarded
from tui_agent.tools.problems import LoadProblem
from tui_agent.tools.spec import Approval, ToolDefinitionError, ToolSpec, build_spec, tool_options

_PREFIX_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
"""What a plugin's name loses to become the prefix of a renamed tool (the chat API's name alphabet)."""
ENABLED = "enabled"
DISABLED = "disabled in config"
INVALID_CONFIG = "disabled: invalid config"
REPLACED = "replaced"


@dataclass
class ToolEntry:
    """A tool that was found, and whether it is offered (`status` is "enabled" or why not)."""

    spec: ToolSpec
    status: str = ENABLED
    replaced_by: str | None = None
    """For status "replaced": the source of the tool that won the name."""


class ToolRegistry:
    """The tools of one run, by name."""

    def __init__(self, settings: ToolsSettings | None = None) -> None:
        self.settings = settings or ToolsSettings()
        edit_limit.max_bytes = self.settings.edit_max_bytes  # the edit tools' cap: a plugin sees no settings
        self.entries: list[ToolEntry] = []
        self.problems: list[LoadProblem] = []
        self._active: dict[str, ToolEntry] = {}
        self._waiters: list[tuple[Callable[[], Awaitable[None]], Callable[[str], Awaitable[None]] | None]] = []
        self.capped: dict[str, int] = {}
        """Tools whose description was cut to `description_cap`, by name: the description's whole length."""
        self.hooks = Hooks()
        """The plugins' `@hook` functions (found with their tools; see `tui_agent.tools.hooks`)."""

    @classmethod
    def from_plugins(
        cls,
        extra_dirs: Iterable[Path] = (),
        settings: ToolsSettings | None = None,
        include_user_dir: bool = True,
        include_entry_points: bool = True,
        *,
        include_shipped: bool = True,
        journal: ImportJournal | None = None,
    ) -> ToolRegistry:
        """Find, import and register every plugin; problems are collected, never raised.

        `journal` (by default in the data dir) guards against plugins that end the process at import.
        """
        registry = cls(settings)
        registry.load_plugins(
            extra_dirs,
            include_user_dir,
            include_entry_points,
            include_shipped=include_shipped,
            journal=journal,
        )
        return registry

    def load_plugins(
        self,
        extra_dirs: Iterable[Path] = (),
        include_user_dir: bool = True,
        include_entry_points: bool = True,
        *,
        include_shipped: bool = True,
        journal: ImportJournal | None = None,
    ) -> None:
        """Find, import and register every plugin (see `from_plugins`); problems are collected, never raised."""
        sources, problems = plugin_sources(
            extra_dirs,
            include_shipped=include_shipped,
            include_user_dir=include_user_dir,
            include_entry_points=include_entry_points,
            include_demo=self.settings.demo_tools is True,
        )
        self.problems.extend(problems)
        disabled = set(self.settings.disabled_plugins)
        everything_off = EVERY_TOOL in self.settings.turned_off
        wanted = [source for source in sources if source.name not in disabled and not everything_off]
        journal = journal or ImportJournal(paths.data_dir())
        wanted, skipped = journal.triage(wanted, self.settings.import_timeout)
        loaded, failed = load_guarded(wanted, self.settings.import_timeout, journal)
        self.problems.extend([*skipped, *failed])
        for plugin in loaded:
            self.add_plugin(plugin)

    @classmethod
    def from_functions(
        cls, functions: Sequence[Callable[..., Any]], settings: ToolsSettings | None = None, source: str = "<code>"
    ) -> ToolRegistry:
        """A registry of `@tool` functions given directly (embedding, tests)."""
        registry = cls(settings)
        registry.add_tools(functions, source=source, plugin=source)
        return registry

    def add_plugin(self, plugin: Loaded) -> None:
        """Register the tools of one loaded plugin."""
        location = plugin.source.location
        candidates = _tool_candidates(plugin.value)
        hooks = hooks_in(plugin.value)
        if candidates is not None and hooks:  # a list of functions may mix tools and hooks
            candidates = [func for func in candidates if func not in hooks]
        self.problems.extend(LoadProblem(location, problem) for problem in self.hooks.add_all(hooks, location))
        if hooks and not candidates:
            return  # a plugin of hooks only
        if candidates is None:
            self.problems.append(LoadProblem(location, "gave neither a module nor @tool functions; skipped"))
        elif not candidates:
            self.problems.append(LoadProblem(location, "defines no @tool functions"))
        else:
            self.add_tools(candidates, source=location, plugin=plugin.source.name)

    def add_tools(self, functions: Iterable[Callable[..., Any]], *, source: str, plugin: str) -> None:
        """Register marked functions; one that cannot become a tool is reported and left out."""
        for func in functions:
            options = tool_options(func)
            if options is None:
                self.problems.append(LoadProblem(source, f"{func!r} is not decorated with @tool; skipped"))
                continue
            try:
                self.add(build_spec(func, options, source=source, plugin=plugin))
            except ToolDefinitionError as exc:
                self.problems.append(LoadProblem(source, f"{exc}; skipped"))
            except Exception as exc:  # anything else a strange signature can raise
                name = getattr(func, "__name__", repr(func))
                self.problems.append(LoadProblem(source, f"tool {name!r} cannot be described ({exc}); skipped"))

    def add(self, spec: ToolSpec) -> None:
        """Register one spec; a name already taken stays with its tool (unless `[tools] prefer` gives it to
        this one) and this one is offered as `plugin__name` (reported)."""
        if spec.name not in self.settings.disabled_tools and (previous := self._active.get(spec.name)) is not None:
            renamed = self._clash(previous, spec)
            if renamed is None:
                return
            spec = renamed
        entry = ToolEntry(self._capped(spec))
        if spec.name in self.settings.disabled_tools:
            entry.status = DISABLED
        elif self.settings.off_because(spec.name):
            entry.status = INVALID_CONFIG
        if entry.status == ENABLED:
            self._active[spec.name] = entry
        self.entries.append(entry)

    def _clash(self, previous: ToolEntry, spec: ToolSpec) -> ToolSpec | None:
        """`spec` as it is registered when its name is taken: renamed `plugin__name`, or as it is when the
        config prefers it (the earlier one is then marked replaced); None when it cannot be offered at all."""
        name, holder = spec.name, previous.spec.source
        if self.settings.prefer.get(name) == spec.plugin != previous.spec.plugin:
            previous.status, previous.replaced_by = REPLACED, spec.source
            self._active.pop(name)
            self.problems.append(
                LoadProblem(spec.source, f"tool {name!r} replaces the one in {holder} (tools.prefer)", warning=True)
            )
            return spec
        renamed = f"{_PREFIX_UNSAFE.sub('_', spec.plugin) or 'plugin'}__{name}"[:64]
        if renamed in self._active:
            self.problems.append(LoadProblem(spec.source, f"tool {name!r} clashes with {holder} twice over; skipped"))
            return None
        self.problems.append(
            LoadProblem(
                spec.source,
                f"tool {name!r} is also defined in {holder}, which keeps the name; this one is offered as "
                f'{renamed!r} (to swap them: [tools] prefer = {{ {name} = "{spec.plugin}" }})',
                warning=True,
            )
        )
        return replace(spec, name=renamed)

    def _capped(self, spec: ToolSpec) -> ToolSpec:
        """`spec` with its description cut to `description_cap` (reported), or as it is."""
        cap, size = self.settings.description_cap, len(spec.description)
        if size <= cap:
            self.capped.pop(spec.name, None)  # a live source's tool may come back shorter
            return spec
        self.capped[spec.name] = size
        problem = LoadProblem(
            spec.source,
            f"tool {spec.name!r} has a description of {size:,} characters; the model is sent the first "
            f"{cap:,} (tools.description_cap)",
            warning=True,
        )
        if problem not in self.problems:  # a live source's tools are added again at each restart
            self.problems.append(problem)
        return replace(spec, description=cut_description(spec.description, cap))

    def replace_source(self, plugin: str, specs: Sequence[ToolSpec], *, prefix: str) -> list[LoadProblem]:
        """Make `specs` the tools of the live source `plugin` (its earlier ones leave); a name another source
        already uses becomes `prefix__name`. Returns the clashes, reported."""
        self.remove_source(plugin)
        problems: list[LoadProblem] = []
        for spec in specs:
            if (holder := self._active.get(spec.name)) is not None:
                renamed = f"{prefix}__{spec.name}"[:64]
                problems.append(
                    LoadProblem(
                        spec.source,
                        f"tool {spec.name!r} is also defined in {holder.spec.source}; offered as {renamed!r}",
                    )
                )
                if renamed in self._active:
                    problems[-1] = LoadProblem(
                        spec.source, f"tool {spec.name!r} clashes with {holder.spec.source} twice over; skipped"
                    )
                    continue
                spec = replace(spec, name=renamed)
            self.add(spec)
        self.problems.extend(problems)
        return problems

    def remove_source(self, plugin: str) -> None:
        """Forget every tool of `plugin` (a live source that stopped)."""
        self.entries = [entry for entry in self.entries if entry.spec.plugin != plugin]
        self._active = {name: entry for name, entry in self._active.items() if entry.spec.plugin != plugin}

    def specs_of(self, plugin: str) -> list[ToolSpec]:
        """The enabled tools of one source."""
        return [entry.spec for entry in self._active.values() if entry.spec.plugin == plugin]

    def add_waiter(
        self, waiter: Callable[[], Awaitable[None]], *, for_prompt: Callable[[str], Awaitable[None]] | None = None
    ) -> None:
        """Have `settled` wait for `waiter()` too (a source that starts in the background); `for_prompt(text)`:
        what `settled_for` waits for instead (only what a prompt needs; None: all of `waiter`)."""
        self._waiters.append((waiter, for_prompt))

    async def settled(self) -> None:
        """Wait until no source is still starting (each source bounds its own wait)."""
        if self._waiters:
            await asyncio.gather(*(waiter() for waiter, _ in self._waiters))

    async def settled_for(self, prompt: str) -> None:
        """Wait for what a turn asked `prompt` needs: a source that can tell (MCP servers) only for the parts the
        prompt names; the rest are used as they are, those still starting join a later request."""
        if self._waiters:
            await asyncio.gather(*(waiter() if only is None else only(prompt) for waiter, only in self._waiters))

    def get(self, name: str) -> ToolSpec | None:
        """The enabled tool called `name`, if any."""
        entry = self._active.get(name)
        return entry.spec if entry is not None else None

    def names(self) -> list[str]:
        """Names of the enabled tools, in registration order."""
        return list(self._active)

    def approval_for(self, name: str) -> Approval:
        """The tool's approval policy after config overrides; unknown tools are denied."""
        if self.settings.off_because(name):
            return "deny"
        override = self.settings.approval.get(name)
        if override is not None:
            return override
        spec = self.get(name)
        return spec.approval if spec is not None else "deny"

    def timeout_for(self, name: str) -> float:
        """Seconds a call of `name` may run: the tool's own timeout, else the configured one."""
        spec = self.get(name)
        return spec.timeout if spec is not None and spec.timeout is not None else self.settings.timeout

    def openai_tools(self) -> list[dict[str, Any]]:
        """The `tools` list for a chat request: every enabled tool."""
        return [entry.spec.openai_tool() for entry in self._active.values()]


def _tool_candidates(value: object) -> list[Callable[..., Any]] | None:
    """The @tool functions a plugin provides: a module's, a single function, or a list."""
    if isinstance(value, ModuleType):
        found: dict[int, Callable[..., Any]] = {}
        for obj in list(vars(value).values()):
            if tool_options(obj) is not None:
                found.setdefault(id(obj), obj)
        return list(found.values())
    if callable(value) and tool_options(value) is not None:
        return [value]
    if isinstance(value, list | tuple) and all(callable(item) for item in value):
        return list(value)
    return None


CUT_MARK = "\n[description cut: {size:,} characters]"


def cut_description(description: str, cap: int) -> str:
    """`description` cut to at most `cap` characters, saying it was cut and how long it was."""
    mark = CUT_MARK.format(size=len(description))
    return description[: cap - len(mark)].rstrip() + mark
