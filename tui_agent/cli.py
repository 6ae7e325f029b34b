"""Provides the `tui-agent` command: argument parsing and dispatch to subcommands.

Each subcommand lives beside the code it drives, in a module exposing `add_parser(subparsers)` (which
registers the parser and sets `func` to a `run(args) -> int`). Heavy imports (textual, openai) happen
inside `run`, never at import time, so `tui-agent --help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from tui_agent import __version__

SUBCOMMAND_MODULES: tuple[str, ...] = ("tui_agent.tools.cli", "tui_agent.offline.cli", "tui_agent.history.cli",
                                      "tui_agent.ui.cli", "tui_agent.config_cli")
"""Modules that each register one subcommand via `add_parser(subparsers)`."""


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="tui-agent",
        description="Chat with an LLM agent in your terminal. Tool calls run live beside the reply; "
        "every session is kept in SQLite. With no endpoint configured, the built-in offline model answers.",
    )
    parser.add_argument("--version", action="version", version=f"tui-agent {__version__}")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or config)")
    parser.add_argument("--model", help="model name (default: $TUI_AGENT_MODEL or config)")
    parser.add_argument("--offline", action="store_true", default=None, help="use the built-in offline model")
    parser.add_argument("--db", help="history database file (default: in the user data dir)")
    parser.add_argument("--plugins", action="append", metavar="DIR", help="extra plugin folder (repeatable)")
    parser.add_argument("--theme", help="theme name")
    parser.add_argument("--continue", dest="continue_session", action="store_true",
                        help="continue the most recent session")
    parser.add_argument("--resume", metavar="ID", help="continue the session with this id (or unique id prefix)")
    parser.add_argument("-p", "--print", metavar="PROMPT",
                        help="answer one prompt without the full-screen app ('-' reads it from stdin)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    args = build_parser().parse_args(argv)
    if args.command is None:
        from tui_agent import launch

        return launch.run_print(args) if args.print is not None else launch.run_app(args)
    status: int = args.func(args)
    return status
