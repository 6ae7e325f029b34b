"""Provides the checks of what lives on this machine: the config file, plugins, MCP servers, the history file."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

from pydantic import ValidationError

from tui_agent import paths
from tui_agent.agent.endpoint import choose_endpoint
from tui_agent.agent.tool_set import ToolSet, answered_offline
from tui_agent.config import ResolvedConfig, Settings, resolve_config
from tui_agent.doctor.check import Check
from tui_agent.history.redact import Redactor
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION


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


async def check_tools(settings: Settings) -> list[Check]:
    """Start the tool sources as a chat would (only the enabled MCP servers), wait for them (each server bounded by
    its startup_timeout) and say what each source found: plugins that failed to import, servers that failed, tools
    left out or cut. The sources are stopped again."""
    configured = {name: server for name, server in settings.mcp_servers.items() if server.enabled}
    settings = settings.model_copy(update={"mcp_servers": configured})
    redactor = await asyncio.to_thread(Redactor.default, paths.config_file(), token_shapes=settings.redact_secrets)
    choice = choose_endpoint(settings)  # as a chat would: the offline model gets its demo tool
    offline = answered_offline(choice, choice.model)
    tools = await ToolSet.start(settings, redactor.text, offline_model=offline)
    limit = max((server.startup_timeout for server in configured.values()), default=0.0) + 5.0
    try:
        await asyncio.wait_for(tools.settled(), limit)
    except TimeoutError:
        pass  # the servers still starting are reported as such
    finally:
        checks = [Check(found.level, found.what, found.detail, found.fix) for found in tools.findings()]
        await tools.close()
    return checks


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
