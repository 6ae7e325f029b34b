"""Provides the checks of what lives on this machine: the config file, plugins, MCP servers, the history file."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from pydantic import ValidationError

from tui_agent import paths
from tui_agent.config import ResolvedConfig, Settings, resolve_config
from tui_agent.doctor.check import Check
from tui_agent.history.errors import HistoryError
from tui_agent.history.schema import LATEST_VERSION
from tui_agent.history.store import HistoryStore
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry


def check_config(flags: dict[str, object], path: Path) -> tuple[ResolvedConfig | None, list[Check]]:
    """The settings (None when a flag or variable is invalid) and one check per problem, each with its line."""
    try:
        resolved = resolve_config(flags, path)
    except ValidationError as error:
        where = ", ".join(".".join(str(part) for part in issue["loc"]) for issue in error.errors())
        return None, [Check("fail", "config", f"invalid value from a flag or the environment: {where}",
                            "fix the command-line flag or environment variable named")]
    if not resolved.problems:
        state = "valid" if path.exists() else "absent: the defaults apply"
        return resolved, [Check("ok", "config", f"{path} {state}")]
    return resolved, [Check("fail", "config", problem, f"edit {path} (`tui-agent config show` shows what applies)")
                      for problem in resolved.problems]


def check_plugins(settings: Settings, extra: list[Path]) -> tuple[ToolRegistry, list[Check]]:
    """Load the plugins as a chat would: each import problem (a crashed plugin's journal entry too) fails."""
    registry = ToolRegistry.from_plugins([*extra, *settings.plugin_dirs], settings.tools)
    enabled = sum(1 for entry in registry.entries if entry.status == "enabled")
    checks = [Check("fail", "plugin", f"{problem.file}: {problem.message}",
                    "fix or remove the plugin, or list it in tools.disabled_plugins")
              for problem in registry.problems]
    return registry, [Check("ok", "plugins", f"{enabled} tools enabled"), *checks] if not checks else checks


async def check_mcp(settings: Settings, registry: ToolRegistry) -> list[Check]:
    """Start each enabled MCP server (bounded by its startup_timeout), list its tools, stop it again."""
    configured = {name: server for name, server in settings.mcp_servers.items() if server.enabled}
    if not configured:
        return [Check("ok", "mcp", "no MCP servers configured")]
    servers = McpServers(configured, registry, paths.data_dir() / "mcp")
    limit = max(server.startup_timeout for server in configured.values()) + 5.0
    try:
        servers.start()
        await asyncio.wait_for(registry.settled(), limit)
    except TimeoutError:
        pass  # the servers still starting are reported as such below
    finally:
        checks = [_mcp_check(server.name, server.state.value, server.describe(), server.offered(),
                             str(server.log_path)) for server in servers.servers.values()]
        await servers.close()
    return checks


def _mcp_check(name: str, state: str, said: str, tools: list[str], log: str) -> Check:
    if state == "ready":
        listed = ", ".join(tools[:8]) + (", ..." if len(tools) > 8 else "")
        return Check("ok", f"mcp {name}", f"{said}{': ' + listed if listed else ''}")
    return Check("fail", f"mcp {name}", said, f"see its log {log}, or set enabled = false in [mcp_servers.{name}]")


async def check_history(path: Path, exists: bool) -> list[Check]:
    """Opens, schema version, not locked by a writer, integrity (`PRAGMA quick_check`)."""
    if not exists:
        return [Check("ok", "history", f"{path} not created yet (the first session creates it)")]
    try:
        store = await HistoryStore.open(path)
    except HistoryError as error:
        return [Check("fail", "history", error.user_message, f"move {path} aside to start a new history")]
    try:
        checks = [Check("warn", "history", notice) for notice in store.report.notices()]
        version, verdict = await store._call(_inspect)  # a read on the store's own connection
    finally:
        await store.close()
    if verdict != "ok":
        return [*checks, Check("fail", "history", f"{path} is damaged: {verdict}",
                               f"move {path} aside; `tui-agent sessions export` saves what still reads")]
    if store.read_only:
        return [*checks, Check("warn", "history", f"{path} opened read-only (schema {version})",
                               "close the other tui-agent writing it, or update tui-agent")]
    return [*checks, Check("ok", "history", f"{path} schema {version} of {LATEST_VERSION}, integrity ok")]


def _inspect(conn: sqlite3.Connection) -> tuple[int, str]:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    verdict = "; ".join(str(row[0]) for row in conn.execute("PRAGMA quick_check(5)"))
    return int(version), verdict
