"""Provides `server_environment`: what a stdio MCP server is given as its environment.

A server is third-party code: it gets the few variables a program needs to run (where it lives, who runs
it, the path, the locale) and those its config entry lists in `env` — never the user's API keys, tokens or
other secrets from the environment tui-agent itself was started with.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

PASSED_THROUGH = (
    "HOME",
    "LOGNAME",
    "USER",
    "PATH",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "SYSTEMROOT",
    "APPDATA",
)


def server_environment(configured: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The minimal environment plus the entry's `env` (which wins)."""
    source = os.environ if environ is None else environ
    base = {name: source[name] for name in PASSED_THROUGH if name in source and not source[name].startswith("()")}
    return {**base, **configured}
