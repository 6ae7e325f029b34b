"""Provides `tui-agent doctor`: checks the endpoint, the config file, plugins, MCP servers and the history file,
prints one line per check (`ok|warn|fail  <what>  <detail>`, with what to do under a problem) and exits 1 when
any check failed. A failure never stops the other checks. Every line passes through the redactor: no API key
(from the environment or the config file) is ever printed.

`diagnose` returns the checks as values (for a status line); `check_endpoint` is the endpoint's part alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.doctor.check import Check, failed
from tui_agent.doctor.endpoint import check_endpoint
from tui_agent.doctor.local import check_config, check_history, check_mcp, check_plugins
from tui_agent.history.redact import Redactor
from tui_agent.sanitize import sanitize

__all__ = ["Check", "add_parser", "check_endpoint", "diagnose", "run"]


def add_parser(subparsers: Any) -> None:
    """Register `doctor`."""
    parser = subparsers.add_parser("doctor", help="check the endpoint, config file, plugins, MCP servers and "
                                   "history file, and say what to fix")
    # Also after the command (`tui-agent doctor --base-url URL`); SUPPRESS keeps the top-level value otherwise.
    parser.add_argument("--base-url", default=argparse.SUPPRESS, help="check this endpoint instead")
    parser.add_argument("--model", default=argparse.SUPPRESS, help="check this model instead")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds for each request to the endpoint")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    flags = {"base_url": args.base_url, "model": args.model, "offline": args.offline,
             "db": args.db, "plugin_dirs": args.plugins}
    checks = diagnose({key: value for key, value in flags.items() if value is not None}, args.timeout)
    redactor = Redactor.default(paths.config_file())
    redactor.add(os.environ.get(_key_env(checks)))
    for check in checks:
        for line in check.lines():
            print(sanitize(redactor.text(line)))
    return 1 if failed(checks) else 0


def _key_env(checks: list[Check]) -> str:
    return next((c.detail.split("$", 1)[1].split()[0].rstrip(";)") for c in checks
                 if c.what == "key" and "$" in c.detail), "OPENAI_API_KEY")


def diagnose(flags: Mapping[str, Any], timeout: float = 10.0) -> list[Check]:
    """Every check, in the order printed: config, endpoint, plugins, MCP servers, history."""
    path = paths.config_file()
    resolved, checks = check_config(dict(flags), path)
    if resolved is None:
        return checks
    settings = resolved.settings
    checks += _endpoint(settings.base_url, settings.model, settings.api_key_env, settings.offline, timeout)
    registry, found = check_plugins(settings, [])
    checks += found
    checks += asyncio.run(check_mcp(settings, registry))
    checks += check_history(Path(settings.db).expanduser() if settings.db else paths.db_path())
    return checks


def _endpoint(url: str | None, model: str | None, key_env: str, offline: bool, timeout: float) -> list[Check]:
    """The configured endpoint; with none (or --offline), the built-in offline model, started for the check."""
    if url and not offline:
        return check_endpoint(url, model, key_env, os.environ, timeout)
    from tui_agent.offline.server import BackgroundServer

    with BackgroundServer() as server:  # it answers to any model name: the one it lists is checked
        return check_endpoint(server.base_url, None, key_env, {}, timeout,
                              label=" (the built-in offline model: no endpoint is configured)")
