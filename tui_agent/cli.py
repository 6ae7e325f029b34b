"""Provides the `tui-agent` command: argument parsing and dispatch to subcommands.

Each subcommand lives beside the code it drives, in a module exposing `add_parser(subparsers)` (which
registers the parser and sets `func` to a `run(args) -> int`). Heavy imports (textual, openai) happen
inside `run`, never at import time, so `tui-agent --help` and `--version` stay instant.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from tui_agent import __version__

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "plugins": ("tui_agent.plugins_cli", "list tools and plugin load problems"),
    "serve": ("tui_agent.serve_cli", "serve the offline model, your agents and teams over an OpenAI-compatible API"),
    "sessions": ("tui_agent.history.cli", "list, show, export, search or delete saved sessions"),
    "themes": ("tui_agent.ui.cli", "list the available themes"),
    "config": ("tui_agent.config_cli", "show the config file's path or the effective settings"),
    "usage": ("tui_agent.history.usage_cli", "tokens and cost per day and per model, from history"),
    "doctor": ("tui_agent.doctor", "check the endpoint, config file, plugins, MCP servers and history file"),
    "agents": ("tui_agent.agents.cli", "list the agents and teams, where each comes from, and bad files"),
    "skills": ("tui_agent.agents.skills_cli", "list the skills the agents are offered, and refused files"),
    "index": ("tui_agent.retrieval.cli", "update or show the passage index that search_docs reads"),
    "rewind": ("tui_agent.rewind_cli", "bring a session's files back to a point of its conversation"),
    "acp": ("tui_agent.acp.cli", "speak the Agent Client Protocol on stdio (for Zed, Toad and other editors)"),
    "mcp": ("tui_agent.mcp_cli", "sign in to or out of an MCP server that uses OAuth"),
}
"""Subcommand name -> (module registering it via `add_parser(subparsers)`, one-line help).

Only the module of the subcommand on the command line is imported (with --help, all of them): the chat
app starts without loading what the subcommands need (pydantic, sqlite, the offline server...).
"""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser; subcommands named in `argv` (all of them for None or --help) in full."""
    parser = argparse.ArgumentParser(
        prog="tui-agent",
        description="Chat with an LLM agent in your terminal. Tool calls run live beside the reply; "
        "every session is kept in SQLite. With no endpoint configured, the built-in offline model answers.",
    )
    parser.add_argument("--version", action="version", version=f"tui-agent {__version__}")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or config)")
    parser.add_argument("--model", help="model name (default: $TUI_AGENT_MODEL or config)")
    parser.add_argument("--offline", action="store_true", default=None, help="use the built-in offline model")
    parser.add_argument(
        "--provider", choices=("openai", "anthropic"), help="the endpoint's protocol (default: openai, or config)"
    )
    parser.add_argument("--db", help="history database file (default: in the user data dir)")
    parser.add_argument("--plugins", action="append", metavar="DIR", help="extra plugin folder (repeatable)")
    parser.add_argument("--docs", action="append", metavar="DIR", help="a folder search_docs searches too (repeatable)")
    parser.add_argument("--theme", help="theme name")
    parser.add_argument(
        "--agent", metavar="NAME", help="the agent new sessions run (default: assistant; see `tui-agent agents`)"
    )
    parser.add_argument(
        "--continue", dest="continue_session", action="store_true", help="continue the most recent session"
    )
    parser.add_argument("--resume", metavar="ID", help="continue the session with this id (or unique id prefix)")
    parser.add_argument(
        "-p",
        "--print",
        metavar="PROMPT",
        nargs="?",
        const="",
        help="answer one prompt without the full-screen app ('-' reads it from stdin; '/name args' runs a command)",
    )
    parser.add_argument(
        "--team", metavar="NAME", help="send the prompts to this team of agents (see teams/; with -p too)"
    )
    parser.add_argument(
        "--retry",
        action="store_true",
        help="with -p and --continue/--resume: ask again for the session's last reply (no prompt)",
    )
    parser.add_argument(
        "--continue-reply",
        action="store_true",
        help="with -p and --continue/--resume: have the model go on with the session's last reply",
    )
    parser.add_argument(
        "--show-reasoning",
        action="store_true",
        help="with -p: write the model's reasoning (when it sends any) to stderr",
    )
    parser.add_argument(
        "--show-part",
        action="append",
        metavar="KIND",
        default=[],
        help="with -p: write the reply's parts of this kind (refusal, ...) to stderr (repeatable)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        metavar="TOOL",
        default=[],
        help="with -p: let this 'ask' tool run without asking (repeatable)",
    )
    parser.add_argument(
        "--allow-sampling",
        action="append",
        metavar="SERVER",
        default=[],
        help="with -p: let this MCP server have the model answer its prompts (sampling; repeatable)",
    )
    parser.add_argument(
        "--mode",
        choices=("read-only", "ask", "auto-edit", "auto", "plan"),
        help="permission mode to start in (default: [tools] mode or ask); see docs/modes.md",
    )
    parser.add_argument(
        "--dangerously-auto-without-sandbox",
        action="store_true",
        help="let auto mode run commands unasked even where the OS sandbox is not available",
    )
    parser.add_argument(
        "--attach",
        action="append",
        metavar="FILE",
        default=[],
        help="with -p: send this file with the prompt, a text file or a PNG/JPEG/GIF/WebP image (repeatable)",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        help="with -p: the reply as text (default), one JSON result, or JSON events line by line; docs/headless.md",
    )
    parser.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        help="with -p: stream-json reads prompts from stdin, one JSON message a line, all to one session",
    )
    parser.add_argument(
        "--otel",
        nargs="?",
        const="otlp",
        metavar="otlp|FILE",
        help="trace the turns with OpenTelemetry: to a collector over OTLP/HTTP, or as JSON lines to FILE",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    words = set(argv or ())
    everything = argv is None or not words.isdisjoint({"-h", "--help"})
    if not everything and all(word.startswith("-") for word in words):
        return parser  # only options (`tui-agent`, `--offline`...): no command to look up, no parsers to build
    for name, (module, summary) in SUBCOMMANDS.items():
        if everything or name in words:
            importlib.import_module(module).add_parser(subparsers)
        else:  # listed, so a mistyped command still gets "invalid choice" with every choice named
            subparsers.add_parser(name, help=summary)
    return parser


PRINT_FLAGS = ("-p", "--print")


def prompt_beside_print(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`-p --agent coder "the prompt"`: a prompt typed after the options (as `claude -p` takes it) moved next
    to `-p`, where argparse looks for it; otherwise argparse would take it for a command name."""
    at = next((index for index, word in enumerate(argv) if word in PRINT_FLAGS), None)
    if at is None or (at + 1 < len(argv) and not is_option(argv[at + 1])):
        return argv  # no -p, or its prompt is right after it
    index = at + 1
    while index < len(argv):
        word = argv[index]
        if word == "--":
            return argv
        if not is_option(word):
            if word in SUBCOMMANDS:
                return argv
            return [*argv[: at + 1], word, *argv[at + 1 : index], *argv[index + 1 :]]
        action = parser._option_string_actions.get(word)  # argparse keeps no public map of option -> action
        index += 2 if action is not None and action.nargs != 0 else 1
    return argv


def otel_before_command(argv: list[str]) -> list[str]:
    """`--otel sessions list`: a bare `--otel` before a command traces to OTLP; argparse would take the command's
    name for `--otel`'s file (a file named like a command is still `--otel=sessions`)."""
    at = next((index for index, word in enumerate(argv) if word == "--otel"), None)
    if at is None or at + 1 >= len(argv) or argv[at + 1] not in SUBCOMMANDS:
        return argv
    return [*argv[:at], "--otel=otlp", *argv[at + 1 :]]


def is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"  # a lone "-" is the stdin prompt


def imported_uncollected(name: str, *, freeze: bool) -> ModuleType:
    """Import `name` with the garbage collector off: what ~1,100 modules make as they load lives for the whole
    run, and collecting while they loaded walked it again and again (a fifth of `-p hi`'s CPU). `freeze` moves
    it where later full collections never look (`gc.freeze`); only for the process's own run, as a test calling
    `main` would keep its own objects frozen, and any cycles among them, for good."""
    gc.disable()
    try:
        return importlib.import_module(name)
    finally:
        if freeze:
            gc.freeze()
        gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    own_process = argv is None  # not a test or a program calling `main`
    argv = sys.argv[1:] if argv is None else list(argv)
    gc.disable()  # what start-up makes lives on: collecting it only costs time (~4 ms before the app runs)
    try:
        parser = build_parser(argv)
        args = parser.parse_args(prompt_beside_print(parser, otel_before_command(argv)))
        if args.allow and (args.print is None or args.command is not None):
            parser.error("--allow is for -p runs (in the app, the approval dialog asks)")
        if args.allow_sampling and (args.print is None or args.command is not None):
            parser.error("--allow-sampling is for -p runs (in the app, a dialog asks)")
        if args.attach and (args.print is None or args.command is not None):
            parser.error("--attach is for -p runs (in the app, type @ in the prompt)")
        if args.show_reasoning and (args.print is None or args.command is not None):
            parser.error("--show-reasoning is for -p runs (in the app, the thinking block shows it)")
        if args.show_part and (args.print is None or args.command is not None):
            parser.error("--show-part is for -p runs (in the app, a block above the reply shows each part)")
        if (args.retry or args.continue_reply) and (args.print is None or args.command is not None):
            parser.error("--retry and --continue-reply are for -p runs (in the app, ctrl+r retries, ctrl+g continues)")
        if (args.output_format or args.input_format) and (args.print is None or args.command is not None):
            parser.error("--output-format and --input-format are for -p runs")
        if args.command is None and args.print is None:  # each front end imports only what it runs
            from tui_agent import launch

            return launch.run_app(args)  # collections resume once the first frame is up
    finally:
        gc.enable()
    if args.command is None:  # `-p` builds the engine at once: no Textual
        print_mode = imported_uncollected("tui_agent.print_mode", freeze=own_process)
        printed: int = print_mode.run_print(args)
        return printed
    try:
        status: int = args.func(args)
    except BrokenPipeError:  # piped into `head`, which stopped reading: not an error (as the docs advise)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status
