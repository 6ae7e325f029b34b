"""Provides the `tui-agent plugins` subcommand: every tool found, its source, policy and status, and
every load problem. It exits 0 even when plugins failed — reporting them is its job.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.config import resolve_settings
from tui_agent.tools.registry import ToolRegistry


def add_parser(subparsers: Any) -> None:
    """Register `plugins` on the top-level parser."""
    parser = subparsers.add_parser("plugins", help="list tools and plugin load problems",
                                   description="List every tool (name, source, approval, status) and every "
                                               "plugin that could not be loaded.")
    parser.add_argument("--plugins", dest="plugins_here", action="append", metavar="DIR", default=[],
                        help="extra plugin folder (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load the plugins as a chat would and print what came of it."""
    settings, notices = resolve_settings({}, paths.config_file())
    extra = [Path(folder) for folder in [*(getattr(args, "plugins", None) or []), *args.plugins_here]]
    registry = ToolRegistry.from_plugins([*extra, *settings.plugin_dirs], settings.tools)
    report = describe(registry, notices)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


def describe(registry: ToolRegistry, notices: list[str] | None = None) -> dict[str, Any]:
    """The registry as plain data (the `--json` output)."""
    tools = [{"name": entry.spec.name, "source": entry.spec.source, "plugin": entry.spec.plugin,
              "approval": registry.approval_for(entry.spec.name) if entry.status == "enabled" else entry.spec.approval,
              "status": entry.status, "replaced_by": entry.replaced_by, "description": entry.spec.description}
             for entry in registry.entries]
    problems = [{"file": problem.file, "message": problem.message} for problem in registry.problems]
    return {"tools": tools, "problems": problems, "notices": list(notices or [])}


def render(report: dict[str, Any]) -> str:
    """A plain-text table of tools followed by the problems."""
    rows = [("TOOL", "APPROVAL", "STATUS", "SOURCE")]
    rows += [(tool["name"], tool["approval"], tool["status"], tool["source"]) for tool in report["tools"]]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3]
             for row in rows]
    if not report["tools"]:
        lines.append("(no tools found)")
    lines.extend(f"note: {notice}" for notice in report["notices"])
    if report["problems"]:
        lines.append("")
        lines.append(f"{len(report['problems'])} problem(s) while loading plugins:")
        lines.extend(f"- {problem['file']}: {problem['message']}" for problem in report["problems"])
    return "\n".join(lines)
