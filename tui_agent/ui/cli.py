"""Provides `tui-agent themes`: list the themes the app can use (shipped, user, Textual's), and bad theme files.

Textual is imported inside `run` only, so registering the subcommand keeps `tui-agent --help` instant.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_agent import paths
from tui_agent.sanitize import sanitize


def add_parser(subparsers: Any) -> None:
    """Register the `themes` subcommand."""
    parser = subparsers.add_parser(
        "themes",
        help="list the available themes",
        description="List every theme: the ones shipped with tui-agent, yours (TOML files in the user themes "
        "folder) and Textual's built-in ones. Pick one with --theme NAME or from the command palette (Ctrl+P).",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one theme per line: name, dark/light, where it comes from; `*` marks the one a run would use
    (`--theme`, $TUI_AGENT_THEME, the config file, else the default); skipped files go to stderr."""
    from textual.theme import BUILTIN_THEMES  # deferred: tui_agent.cli imports this module and must not load Textual

    from tui_agent.config import resolve_settings  # deferred: pydantic (~55 ms), only when the subcommand runs
    from tui_agent.ui.themes import load_themes  # deferred: Textual, only when the subcommand runs

    settings, _ = resolve_settings({"theme": getattr(args, "theme", None)}, paths.config_file())

    shipped = load_themes([paths.shipped_dir("themes")])
    user_dir = paths.user_themes_dir()
    user = load_themes([user_dir])
    rows: dict[str, tuple[bool, str]] = {name: (theme.dark, "textual") for name, theme in BUILTIN_THEMES.items()}
    rows.update({name: (theme.dark, "shipped") for name, theme in shipped.themes.items()})
    rows.update({name: (theme.dark, f"user ({user_dir})") for name, theme in user.themes.items()})
    # Names come from files anyone may have written (and problems quote them): no escape or bidi control
    # reaches the terminal.
    for name, (dark, source) in sorted(rows.items()):
        marker = "*" if name == settings.theme else " "
        print(f"{marker} {sanitize(name):<28} {'dark' if dark else 'light':<6} {sanitize(source)}")
    for problem in shipped.problems + user.problems:
        print(f"tui-agent themes: skipped {sanitize(problem)}", file=sys.stderr)
    return 0
