"""Provides the `tui-agent agents` subcommand: every agent and team, where each comes from, and the bad files.

An agent is listed with its description, model, tools and delegates; a team with its members and flow; each
with "shipped" or the path of the user's file it came from. A file that did not load is listed under
"Problems" with its path and why. It exits 0 even then: reporting them is its job.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.agents.profiles import DEFAULT_AGENT, AgentProfile, Catalog, TeamProfile, load_catalog
from tui_agent.sanitize import sanitize


def add_parser(subparsers: Any) -> None:
    """Register `agents` on the top-level parser."""
    parser = subparsers.add_parser(
        "agents",
        help="list the agents and teams, where each comes from, and bad files",
        description="List the agent profiles (name, description, model, tools, delegates) and teams (members), "
        "shipped and yours, with the file each comes from, and every file that could not be loaded.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load the agent and team files as a chat would and print what came of it."""
    report = describe(load_catalog())
    # Descriptions come from files anyone may have written: no escape or bidi control reaches the terminal.
    print(json.dumps(report, indent=2) if args.json else sanitize(render(report)))
    return 0


def origin(path: Path | None) -> str:
    """ "shipped" for a file that comes with tui-agent, else the file's path."""
    if path is None:
        return "?"
    shipped = (paths.shipped_dir("agents"), paths.shipped_dir("teams"))
    return "shipped" if any(path.parent == folder for folder in shipped) else str(path)


def describe(catalog: Catalog) -> dict[str, Any]:
    """The catalog as plain data (what `--json` prints)."""
    return {
        "default": DEFAULT_AGENT if DEFAULT_AGENT in catalog.agents else None,
        "agents": [_agent(profile, catalog) for _, profile in sorted(catalog.agents.items())],
        "teams": [_team(team, catalog) for _, team in sorted(catalog.teams.items())],
        "problems": catalog.problems_of(),
    }


def _agent(profile: AgentProfile, catalog: Catalog) -> dict[str, Any]:
    return {
        "name": profile.name,
        "description": profile.description,
        "model": profile.model,
        "base_url": profile.base_url,
        "acp": profile.acp,
        "tools": profile.tools,
        "delegates": profile.delegates,
        "from": origin(catalog.sources.get(profile.name)),
    }


def _team(team: TeamProfile, catalog: Catalog) -> dict[str, Any]:
    return {
        "name": team.name,
        "description": team.description,
        "members": team.members,
        "flow": team.flow,
        "from": origin(catalog.sources.get(f"team:{team.name}")),
    }


def _runs(agent: dict[str, Any], model: str, tools: str) -> list[str]:
    """What answers as the agent: its model and tools, or the external agent's command (its own are its own)."""
    if agent["acp"]:
        return [f"      external agent (ACP): {shlex.join(agent['acp'])}"]
    return [
        f"      model: {model}" + (f" at {agent['base_url']}" if agent["base_url"] else ""),
        f"      tools: {tools}",
    ]


def render(report: dict[str, Any]) -> str:
    """The report as text: agents, teams, then problems."""
    lines = ["Agents" + (f" (default: {report['default']})" if report["default"] else "")]
    for agent in report["agents"]:
        tools = "all" if agent["tools"] == ["*"] else ", ".join(agent["tools"]) or "none"
        model = agent["model"] or "the configured one"
        lines += [
            f"  {agent['name']:<14} {agent['from']}",
            *([f"      {agent['description']}"] if agent["description"] else []),
            *(_runs(agent, model, tools)),
            *([f"      delegates: {', '.join(agent['delegates'])}"] if agent["delegates"] else []),
        ]
    if not report["agents"]:
        lines.append("  (none: sessions use the config file's settings)")
    lines += ["", "Teams"]
    for team in report["teams"]:
        members = ", ".join(team["members"])
        lines += [f"  {team['name']:<14} {team['from']}", f"      members: {members} ({team['flow']})"]
    if not report["teams"]:
        lines.append("  (none)")
    if report["problems"]:
        lines += ["", "Problems", *(f"  {problem}" for problem in report["problems"])]
    lines += ["", f"Add your own in {paths.config_dir() / 'agents'} and {paths.config_dir() / 'teams'}."]
    return "\n".join(lines)
