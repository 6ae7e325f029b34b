"""Provides the report of `tui-agent plugins` (the command is `tui_agent.plugins_cli`, which starts the tool
sources): every tool found, its source, policy and status, every load problem, and the MCP servers' states.
"""

from __future__ import annotations

from typing import Any

from tui_agent.tools.registry import ToolRegistry


def describe(
    registry: ToolRegistry, notices: list[str] | None = None, servers: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The registry as plain data (the `--json` output)."""
    tools = [
        {
            "name": entry.spec.name,
            "source": entry.spec.source,
            "plugin": entry.spec.plugin,
            "approval": registry.approval_for(entry.spec.name) if entry.status == "enabled" else entry.spec.approval,
            "status": entry.status,
            "replaced_by": entry.replaced_by,
            "description": entry.spec.description,
        }
        for entry in registry.entries
    ]
    problems = [{"file": problem.file, "message": problem.message} for problem in registry.problems]
    hooks = [{"kind": kind, "hook": name} for kind, found in registry.hooks.by_kind.items() for name, _ in found]
    return {
        "tools": tools,
        "hooks": hooks,
        "problems": problems,
        "notices": list(notices or []),
        "mcp_servers": list(servers or []),
    }


def render(report: dict[str, Any]) -> str:
    """A plain-text table of tools followed by the problems."""
    rows = [("TOOL", "APPROVAL", "STATUS", "SOURCE")]
    rows += [(tool["name"], tool["approval"], tool["status"], tool["source"]) for tool in report["tools"]]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    ]
    if not report["tools"]:
        lines.append("(no tools found)")
    lines.extend(f"note: {notice}" for notice in report["notices"])
    if report.get("hooks"):
        lines += ["", "Hooks:", *(f"- {hook['kind']}: {hook['hook']}" for hook in report["hooks"])]
    if report.get("mcp_servers"):
        lines.append("")
        lines.append("MCP servers:")
        for server in report["mcp_servers"]:
            log = f" (log: {server['log']})" if server["reason"] else ""
            left_out = server.get("needs_tasks") or []  # named: which tools the model will not see
            named = f" (left out: {', '.join(left_out)})" if left_out else ""
            lines.append(f"- {server['name']}: {server['status']}{named}{log}")
    if report["problems"]:
        lines.append("")
        lines.append(f"{len(report['problems'])} problem(s) while loading plugins:")
        lines.extend(f"- {problem['file']}: {problem['message']}" for problem in report["problems"])
    return "\n".join(lines)
