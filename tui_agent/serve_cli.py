"""Provides `tui-agent serve`: the offline model's server (`offline/cli.py`) with the configured agents and teams
beside it as models (`agent:NAME`, `team:NAME`, run by `agent/served_runs.py`).

The server's own options (host, key, CORS, scenario) are the offline module's; this adds which agents are
served and which tools may run without asking (`--allow`), and reads the config file and the agent files once
at start, to list them (each request builds its own chat from the same settings).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_agent import paths
from tui_agent.offline import cli as offline_cli


def add_parser(subparsers: Any) -> None:
    """Register the `serve` subcommand."""
    parser = offline_cli.add_parser(subparsers)
    parser.description = (
        "Serve the offline model, and your agents and teams as models named agent:NAME and team:NAME, over an "
        "OpenAI-compatible HTTP API (chat completions with SSE, /v1/models). A request to an agent runs it "
        "inside tui-agent with its tools and stores the run in history. Loopback only, unless --host says "
        "otherwise (then a key is required)."
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="TOOL",
        dest="serve_allow",  # not the top level's `--allow`, which is for -p runs
        help="let the agents run TOOL without asking (repeatable); other tools that ask are denied",
    )
    parser.add_argument("--no-agents", action="store_true", help="serve the offline model only")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit status."""
    served = None if args.no_agents else _served_agents(args.serve_allow)
    return offline_cli.run(args, served_models=served)


def _served_agents(allow: list[str]) -> Any:
    from tui_agent.agent.served_runs import ServedAgents  # deferred: pydantic and the agent stack, only when served
    from tui_agent.agents.profiles import load_catalog
    from tui_agent.config import resolve_settings

    settings, problems = resolve_settings({}, paths.config_file())
    catalog = load_catalog()
    for problem in [*problems, *catalog.problems_of()]:
        print(f"tui-agent serve: {problem}", file=sys.stderr)

    def say(line: str) -> None:
        print(line, flush=True)

    return ServedAgents(settings, list(catalog.agents), list(catalog.teams), allow, say)
