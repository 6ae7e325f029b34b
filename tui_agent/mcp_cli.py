"""Provides `tui-agent mcp login NAME` and `tui-agent mcp logout NAME`: the OAuth sign-in of a streamable-HTTP
MCP server, outside the app (for `-p` and scripts, which never start one themselves).

`login` starts the server as a chat would, with its sign-in allowed: the authorisation address is printed
on stderr (and opened in the browser where there is one), the browser comes back to a loopback listener,
and the token is kept in the server's 0600 file (docs/mcp.md, OAuth). `logout` revokes it at the
authorisation server, where it offers that, and deletes it here.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tui_agent import paths
from tui_agent.config import McpServerSettings, ToolsSettings, resolve_settings
from tui_agent.history.redact import Redactor
from tui_agent.sanitize import sanitize
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry


def add_parser(subparsers: Any) -> None:
    """Register `mcp` and its `login` and `logout`."""
    parser = subparsers.add_parser(
        "mcp",
        help="sign in to or out of an MCP server that uses OAuth",
        description="Sign in to a streamable-HTTP MCP server that uses OAuth (in the browser), or sign out.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="{login,logout}")
    login = actions.add_parser("login", help="sign in in the browser and keep the token (0600, in the data dir)")
    login.add_argument("name", help="the server's name ([mcp_servers.NAME])")
    logout = actions.add_parser("logout", help="revoke the kept token at the server and delete it here")
    logout.add_argument("name", help="the server's name ([mcp_servers.NAME])")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings, _ = resolve_settings({}, paths.config_file())
    entry = settings.mcp_servers.get(args.name)
    if entry is None:
        known = ", ".join(sorted(settings.mcp_servers)) or "none"
        print(f"tui-agent mcp: no MCP server {args.name!r} in the config (configured: {known})", file=sys.stderr)
        return 2
    if entry.url is None:
        print(f"tui-agent mcp: {args.name} is a stdio server; OAuth is for url servers", file=sys.stderr)
        return 2
    servers = McpServers(
        {args.name: entry.model_copy(update={"enabled": True})},
        ToolRegistry(ToolsSettings()),
        paths.data_dir() / "mcp",
        redact=Redactor.default(paths.config_file()).text,
    )
    if servers.sign_ins.tokens(args.name, entry) is None:
        print(f"tui-agent mcp: {args.name} does not sign in with OAuth (its entry says otherwise)", file=sys.stderr)
        return 2
    if args.action == "logout":
        print(sanitize(asyncio.run(_sign_out(servers, args.name))))
        return 0
    return asyncio.run(_sign_in(servers, args.name, entry))


async def _sign_out(servers: McpServers, name: str) -> str:
    try:
        return await servers.sign_out(name)
    finally:
        await servers.close()


async def _sign_in(servers: McpServers, name: str, entry: McpServerSettings) -> int:
    tokens = servers.sign_ins.tokens(name, entry)
    assert tokens is not None
    if tokens.exists():
        print(f"{name}: already signed in (`tui-agent mcp logout {name}` first to sign in anew)")
        return 0
    servers.sign_ins.say = lambda server, notice: print(sanitize(notice), file=sys.stderr, flush=True)
    servers.sign_ins.interactive = True
    servers.sign_ins.wanted.add(name)
    server = servers.servers[name]
    try:
        servers.start()
        await servers.settled()  # the SDK loaded and the server started, or still signing in
        while server.state == "starting":  # its start-up clock stops while the browser is open
            await server.settled()
        if server.state != "ready":
            print(f"tui-agent mcp: {name} {sanitize(server.describe())}", file=sys.stderr)
            return 1
        print(f"Signed in to {name}; the token is kept in {tokens.path} (readable by you alone).")
        return 0
    finally:
        await servers.close()
