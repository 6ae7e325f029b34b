"""Provides the `tui-agent` command: argument parsing and dispatch to subcommands.

Heavy imports (textual, openai) happen inside the subcommand that needs them, never at import time,
so `tui-agent --help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui_agent import __version__


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
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print("tui-agent: the chat screen is not available in this build yet.", file=sys.stderr)
        return 2
    parser.error(f"unknown command {args.command!r}")
