"""Provides the checks of what lives on this machine: the config file, plugins, MCP servers, the history file."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

from pydantic import ValidationError

from tui_agent import paths
from tui_agent.config import ResolvedConfig, Settings, resolve_config
from tui_agent.doctor.check import Check
from tui_agent.history.redact import Redactor
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry


def check_config(flags: dict[str, object], path: Path) -> tuple[ResolvedConfig | None, list[Check]]:
    """The settings (None when a flag or variable is invalid) and one check per problem, each with its line."""
    try:
        resolved = resolve_config(flags, path)
    except ValidationError as error:
        where = ", ".join(".".join(str(part) for part in issue["loc"]) for issue in error.errors())
        return None, [
            Check(
                "fail",
                "config",
                f"invalid value from a flag or the environment: {where}",
                "fix the command-line flag or environment variable named",
            )
        ]
    if not resolved.problems:
        state = "valid" if path.exists() else "absent: the defaults apply"
        return resolved, [Check("ok", "config", f"{path} {state}")]
    if resolved.refused is not None:  # others could change it: the defaults apply
        return resolved, [Check("fail", "config", resolved.problems[0], "change its owner or mode as said")]
    return resolved, [
        Check("fail", "config", problem, f"edit {path} (`tui-agent config show` shows what applies)")
        for problem in resolved.problems
    ]


def check_plugins(settings: Settings) -> tuple[ToolRegistry, list[Check]]:
    """Load the plugins as a chat would: each import problem (a crashed plugin's journal entry too) fails."""
    registry = ToolRegistry.from_plugins(settings.plugin_dirs, settings.tools)
    problems = [
        Check(
            "warn" if problem.warning else "fail",
            "plugin",
            f"{problem.file}: {problem.message}",
            None if problem.warning else "fix or remove the plugin, or list it in tools.disabled_plugins",
        )
        for problem in registry.problems
    ]
    if any(check.level == "fail" for check in problems):
        return registry, problems
    enabled = sum(1 for entry in registry.entries if entry.status == "enabled")
    return registry, [Check("ok", "plugins", f"{enabled} tools enabled"), *problems]


async def check_mcp(settings: Settings, registry: ToolRegistry) -> list[Check]:
    """Start each enabled MCP server (bounded by its startup_timeout), list its tools, stop it again."""
    configured = {name: server for name, server in settings.mcp_servers.items() if server.enabled}
    if not configured:
        return [Check("ok", "mcp", "no MCP servers configured")]
    redactor = await asyncio.to_thread(Redactor.default, paths.config_file(), token_shapes=settings.redact_secrets)
    servers = McpServers(configured, registry, paths.data_dir() / "mcp", redact=redactor.text)
    limit = max(server.startup_timeout for server in configured.values()) + 5.0
    try:
        servers.start()
        await asyncio.wait_for(registry.settled(), limit)
    except TimeoutError:
        pass  # the servers still starting are reported as such below
    finally:
        checks = [
            _mcp_check(
                server.name, server.state.value, server.describe(notes=False), server.offered(), str(server.log_path)
            )
            for server in servers.servers.values()
        ]
        checks += [
            Check(
                "warn",
                f"mcp {server.name}",
                f"{note}: {', '.join(server.needing_tasks())}",
                "they are left out; nothing to do unless you need them",
            )
            for server in servers.servers.values()
            if (note := server.tasks_note())
        ]
        checks += [
            Check(
                "warn",
                f"mcp {server.name}",
                f"the description of {name} is {registry.capped[name]:,} characters; the model is sent the "
                f"first {settings.tools.description_cap:,}",
                "nothing to do; tools.description_cap sets how much is sent",
            )
            for server in servers.servers.values()
            for name in servers.capped(server.name)
        ]
        checks += [
            Check("warn", f"mcp {server.name}", f"it {server.stray_output} (skipped)", f"see its log {server.log_path}")
            for server in servers.servers.values()
            if server.stray_output and server.state == "ready"
        ]
        await servers.close()
    return checks


def _mcp_check(name: str, state: str, said: str, tools: list[str], log: str) -> Check:
    if state == "ready":
        listed = ", ".join(tools[:8]) + (", ..." if len(tools) > 8 else "")
        return Check("ok", f"mcp {name}", f"{said}{': ' + listed if listed else ''}")
    return Check("fail", f"mcp {name}", said, f"see its log {log}, or set enabled = false in [mcp_servers.{name}]")


def check_history(path: Path) -> list[Check]:
    """Opens, is ours, schema version, not locked by a writer, integrity (`PRAGMA quick_check`). Read-only:
    unlike the store's open, it never migrates the file or moves a damaged one aside."""
    if not path.exists():
        return [Check("ok", "history", f"{path} not created yet (the first session creates it)")]
    aside = f"move {path} aside (the next run starts a new history)"
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)) as conn:
            mark, version, verdict = _inspect(conn)
    except sqlite3.DatabaseError as error:
        return [Check("fail", "history", f"{path} cannot be read as a database ({error})", aside)]
    if mark not in (0, APPLICATION_ID):
        return [Check("fail", "history", f"{path} is not a tui-agent history file", "point --db or db elsewhere")]
    if verdict != "ok":
        return [
            Check(
                "fail",
                "history",
                f"{path} is damaged: {verdict}",
                f"`tui-agent sessions export` saves what still reads; then {aside}",
            )
        ]
    if version > LATEST_VERSION:
        return [
            Check(
                "warn",
                "history",
                f"{path} has schema {version}, newer than this tui-agent's {LATEST_VERSION}: it is opened read-only",
                "update tui-agent",
            )
        ]
    if _locked(path):
        return [
            Check(
                "warn",
                "history",
                f"{path} is locked by another process writing it",
                "wait, or close the other tui-agent; writes are retried meanwhile",
            )
        ]
    return [Check("ok", "history", f"{path} schema {version} of {LATEST_VERSION}, integrity ok")]


def _inspect(conn: sqlite3.Connection) -> tuple[int, int, str]:
    mark = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    verdict = "; ".join(str(row[0]) for row in conn.execute("PRAGMA quick_check(5)"))
    return int(mark), int(version), verdict


def _locked(path: Path) -> bool:
    """Whether another connection holds the write lock now (taken and given back at once: nothing written)."""
    try:
        with closing(sqlite3.connect(path, timeout=0.5, isolation_level=None)) as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
    except sqlite3.OperationalError as error:
        return "locked" in str(error) or "busy" in str(error)
    return False
