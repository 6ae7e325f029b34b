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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.config import Settings
from tui_agent.config_sources import DEFAULT_API_KEY_ENV, ConfigFileError, read_config_file
from tui_agent.doctor.anthropic import check_anthropic_endpoint
from tui_agent.doctor.check import Check, failed
from tui_agent.doctor.endpoint import check_endpoint
from tui_agent.doctor.local import check_config, check_history, check_tools
from tui_agent.doctor.sandbox import check_sandbox
from tui_agent.doctor.textual_patch import check_textual_patch
from tui_agent.history.redact import Redactor
from tui_agent.sanitize import sanitize

__all__ = ["Check", "add_parser", "check_endpoint", "diagnose", "run"]

ENDPOINT_CHECKS: dict[str, Callable[[str, str | None, str, Mapping[str, str], float, str], list[Check]]] = {
    "openai": check_endpoint,
    "anthropic": check_anthropic_endpoint,
}
"""The endpoint check for each protocol a provider speaks (`EndpointProbe.protocol`)."""


def add_parser(subparsers: Any) -> None:
    """Register `doctor`."""
    parser = subparsers.add_parser(
        "doctor", help="check the endpoint, config file, plugins, MCP servers and history file, and say what to fix"
    )
    # Also after the command (`tui-agent doctor --base-url URL`); SUPPRESS keeps the top-level value otherwise.
    parser.add_argument("--base-url", default=argparse.SUPPRESS, help="check this endpoint instead")
    parser.add_argument("--model", default=argparse.SUPPRESS, help="check this model instead")
    parser.add_argument(
        "--provider", choices=("openai", "anthropic"), default=argparse.SUPPRESS, help="the endpoint's protocol"
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds for each request to the endpoint")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    flags = {
        "base_url": args.base_url,
        "model": args.model,
        "offline": args.offline,
        "provider": getattr(args, "provider", None),
        "db": args.db,
        "plugin_dirs": args.plugins,
    }
    checks = diagnose({key: value for key, value in flags.items() if value is not None}, args.timeout)
    redactor = _redactor(paths.config_file())
    for check in checks:
        for line in check.lines():
            print(sanitize(redactor.text(line)))
    return 1 if failed(checks) else 0


def _redactor(path: Path) -> Redactor:
    """Every secret-looking variable and config value, and the key's variable whatever its name."""
    redactor = Redactor.default(path)
    try:
        key_env = read_config_file(path).get("api_key_env")
    except ConfigFileError:
        key_env = None
    redactor.add(os.environ.get(key_env if isinstance(key_env, str) else DEFAULT_API_KEY_ENV))
    redactor.add(os.environ.get("ANTHROPIC_API_KEY"))  # `provider = "anthropic"`'s default variable
    return redactor


def diagnose(flags: Mapping[str, Any], timeout: float = 10.0) -> list[Check]:
    """Every check, in the order printed: config, endpoint, plugins, MCP servers, history, the sandbox, the
    Textual patch."""
    path = paths.config_file()
    resolved, checks = check_config(dict(flags), path)
    if resolved is None:
        return checks
    settings = resolved.settings
    checks += _endpoint(settings, timeout)
    checks += asyncio.run(check_tools(settings))
    checks += check_history(Path(settings.db).expanduser() if settings.db else paths.db_path())
    checks.append(check_sandbox())
    checks.append(check_textual_patch())
    return checks


def _endpoint(settings: Settings, timeout: float) -> list[Check]:
    """The endpoint a chat would use (`choose_endpoint`: with a key in the environment and no base_url, OpenAI's),
    as its provider says to check it; with none (or --offline), the built-in offline model, started for the check."""
    from tui_agent.agent.endpoint import choose_endpoint
    from tui_agent.agent.providers import provider_for

    choice = choose_endpoint(settings)
    with provider_for(choice, settings).probe(choice, settings) as probe:
        check = ENDPOINT_CHECKS[probe.protocol]
        return check(probe.base_url, probe.model, probe.api_key_env, probe.environ, timeout, probe.label)
