"""Provides `SignInDesk` and `SignIn`: when a streamable-HTTP MCP server's OAuth sign-in may start, and how
its address reaches the user.

A server is signed in to when it asks (a 401 with `WWW-Authenticate: Bearer`) and either its entry says
`auth = "oauth"` or the user asked for it (the MCP screen's key, `tui-agent mcp login NAME`) — and only where
someone can answer: the app and `mcp login` turn the desk `interactive`; `-p`, `serve` and the Python API
never do, so a script never waits for a browser. A sign-in that may not start marks the server as needing
one, and its failure says how to sign in. A kept sign-in is used (and refreshed) everywhere.

The address to visit is opened in the browser where there is one (on Linux: a display; a console browser
would take over the terminal the app draws in) and always said, as a notice, so it can be copied.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tui_agent.config import McpServerSettings
from tui_agent.tools.mcp.oauth_tokens import TokenFile

Say = Callable[[str, str], None]
"""(server, notice) → the notice shown (a UI notification, stderr for the CLI)."""
SIGN_IN_TIMEOUT = 300.0
"""Seconds a sign-in waits for the browser to come back."""


def open_in_browser(url: str) -> bool:
    """Open `url` in a graphical browser; whether one was started."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


def login_hint(name: str) -> str:
    """How to sign in to server `name`."""
    return f"press a on the MCP screen (/mcp), or run `tui-agent mcp login {name}`"


@dataclass
class SignIn:
    """One connection's sign-in: what the OAuth flow (tools/mcp/oauth.py) is told and tells back."""

    server: str
    settings: McpServerSettings
    tokens: TokenFile
    may_start: bool
    """Whether a browser sign-in may start now (else a request for one marks `needed`)."""
    show: Callable[[str], None]
    """Tells the user the authorisation address (and opens it)."""
    pause: Callable[[bool], None] = lambda waiting: None
    """True while a person is signing in: the server's start-up clock stops meanwhile."""
    timeout: float = SIGN_IN_TIMEOUT
    needed: bool = False
    """The server asked for a sign-in that could not start."""
    failure: str | None = None
    """Why the sign-in failed, when it did on our side (the browser's refusal, no return in time, no port)."""
    address: str | None = None
    """The authorisation address while the browser is awaited (the MCP screen shows it: a notice goes away)."""


@dataclass
class SignInDesk:
    """The run's sign-ins: kept in `folder`; `say` tells the user; `open_browser` opens an address."""

    folder: Path
    say: Say
    open_browser: Callable[[str], bool] = open_in_browser
    interactive: bool = False
    """Someone can visit the address (the app, `mcp login`); False: sign-ins never start (`-p`, `serve`)."""
    wanted: set[str] = field(default_factory=set)
    """Servers the user asked to sign in to, whatever their `auth`."""

    def tokens(self, name: str, settings: McpServerSettings) -> TokenFile | None:
        """Server `name`'s kept sign-in (None: it is not a server OAuth applies to)."""
        if settings.url is None or settings.auth == "none" or settings.bearer_token_env_var:
            return None
        return TokenFile(self.folder, name, settings.url)

    def state(self, name: str, settings: McpServerSettings) -> str | None:
        """ "signed in" or "not signed in" (None: OAuth does not apply to server `name`)."""
        tokens = self.tokens(name, settings)
        return None if tokens is None else "signed in" if tokens.exists() else "not signed in"

    def sign_in(self, name: str, settings: McpServerSettings, clock: asyncio.Timeout) -> SignIn | None:
        """The sign-in of one connection to server `name`, whose start-up `clock` stops while a person signs in
        (None: OAuth does not apply)."""
        tokens = self.tokens(name, settings)
        if tokens is None:
            return None
        may_start = self.interactive and (settings.auth == "oauth" or name in self.wanted)
        loop = asyncio.get_running_loop()

        def pause(waiting: bool) -> None:
            with contextlib.suppress(RuntimeError):  # the start-up is already over (cancelled): no clock to set
                clock.reschedule(None if waiting else loop.time() + settings.startup_timeout)

        def show(url: str) -> None:
            opened = self.open_browser(url)
            where = "in the browser just opened" if opened else "by opening this address in a browser"
            self.say(name, f"MCP server {name}: sign in {where}: {url}")

        return SignIn(name, settings, tokens, may_start, show, pause)

    def failure(self, sign_in: SignIn | None) -> str | None:
        """Why a server failed, when it was for want of a sign-in or because the sign-in failed."""
        if sign_in is None:
            return None
        if sign_in.needed:
            return f"needs you to sign in (OAuth): {login_hint(sign_in.server)}"
        if sign_in.failure:
            return f"the OAuth sign-in failed: {sign_in.failure}; {login_hint(sign_in.server)} to try again"
        return None
