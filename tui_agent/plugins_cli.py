"""Provides the `tui-agent plugins` subcommand: every tool found, its source, policy and status, and every
load problem (`tui_agent.tools.cli` makes the report). It exits 0 even when plugins failed — reporting them
is its job.

Plugins are imported and MCP servers started as the app does it (every tool source, `agent.tool_set`), waited
for (each server bounded by its `startup_timeout`), then stopped again: fds 1 and 2 point at the output log
meanwhile (`terminal.own_terminal`), so a plugin's `os.write(1, ...)` at import, escape codes and all, never
reaches the terminal; then the report is printed, sanitised. The servers' logs are redacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.agent.endpoint import choose_endpoint
from tui_agent.agent.tool_set import ToolSet, answered_offline
from tui_agent.config import Settings, resolve_settings
from tui_agent.history.redact import Redactor
from tui_agent.sanitize import sanitize
from tui_agent.terminal import output_log_path, own_terminal
from tui_agent.tools.cli import describe, render
from tui_agent.tools.source import Redact


def add_parser(subparsers: Any) -> None:
    """Register `plugins` on the top-level parser."""
    parser = subparsers.add_parser(
        "plugins",
        help="list tools and plugin load problems",
        description="List every tool (name, source, approval, status) and every plugin that could not be loaded.",
    )
    parser.add_argument(
        "--plugins",
        dest="plugins_here",
        action="append",
        metavar="DIR",
        default=[],
        help="extra plugin folder (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load the plugins as a chat would and print what came of it."""
    extra = [Path(folder) for folder in [*(getattr(args, "plugins", None) or []), *args.plugins_here]]
    redactor = Redactor.default(paths.config_file())
    with own_terminal(output_log_path()) as terminal:
        report = collect(extra, redactor.text)
        if terminal.log.has_new_output():
            report["notices"].append(
                f"a plugin wrote to the terminal as it was imported; that is in {terminal.log.path}"
            )
    # Names and descriptions come from plugin files and MCP servers: no escape or bidi control reaches the
    # terminal (JSON escapes every control character and, ASCII-only, every bidi one).
    print(json.dumps(report, indent=2) if args.json else sanitize(render(report)))
    return 0


def collect(extra_dirs: Sequence[Path], redact: Redact) -> dict[str, Any]:
    """Start the tools as a chat would (`extra_dirs` first, then the config's `plugin_dirs`; the MCP servers' stderr
    logged through `redact`), wait for them and describe what came of it."""
    settings, notices = resolve_settings({}, paths.config_file())
    settings = settings.model_copy(update={"plugin_dirs": [*extra_dirs, *settings.plugin_dirs]})
    return asyncio.run(_described(settings, notices, redact))


async def _described(settings: Settings, notices: list[str], redact: Redact) -> dict[str, Any]:
    choice = choose_endpoint(settings)  # as a chat would: the offline model gets its demo tool
    offline = answered_offline(choice, choice.model)
    tools = await ToolSet.start(settings, redact, offline_model=offline)
    try:
        await tools.settled()
        return describe(tools.registry, notices) | tools.summary()
    finally:
        await tools.close()
