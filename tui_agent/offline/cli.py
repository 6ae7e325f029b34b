"""Provides `tui-agent serve`'s server half: run the offline model stand-alone and print its base URL.

`serve_cli.py` (the composition root) adds the agents and teams it serves beside the offline model; this module
knows only the server: where it listens, its key, the origins allowed to call from a browser, the scenario.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from typing import Any

KEY_ENV = "TUI_AGENT_SERVE_KEY"
"""Where `serve` reads its key (`--api-key` works too, but anyone on the machine sees it in `ps`)."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the `serve` subcommand (the parser is returned for `serve_cli` to add its options)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the built-in offline model as an OpenAI-compatible server",
        description="Serve the deterministic offline model over HTTP (chat completions with SSE, /v1/models). "
        "Point any OpenAI client at the printed base URL; any model name works, and any API key unless the "
        "server has one (--api-key; needed off loopback).",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to listen on (default: 127.0.0.1); any other than loopback needs a key",
    )
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help=f"require this key from every client (as its API key); ${KEY_ENV} sets it without showing it in ps",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help=f"read the key to require from environment variable VAR (instead of ${KEY_ENV})",
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web pages from ORIGIN (e.g. https://app.example.com; * for any) call the server from a browser "
        "(repeatable; default: none, no CORS headers at all)",
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--scenario", metavar="FILE", help="JSON or TOML file scripting replies and faults")
    parser.add_argument(
        "--delay",
        type=float,
        default=0.02,
        help="seconds between chunks of default replies (default: 0.02; 0 for full speed)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="answer 400, as strict chat templates (Gemma, Mistral in llama.cpp or vLLM) do, to "
        "messages whose roles do not alternate, unanswered tool calls or empty assistant messages",
    )
    parser.add_argument(
        "--text-only",
        action="store_true",
        help="answer 400, as a model that reads no images does, to a request with an image part",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace, served_models: Any = None) -> int:
    """Serve until interrupted (with `served_models` beside the offline model: `agent_route.ServedModels`);
    returns the exit status."""
    from tui_agent.offline.cors import Cors
    from tui_agent.offline.scenario import Scenario, load_scenario

    try:
        scenario = load_scenario(args.scenario) if args.scenario else Scenario()
    except ValueError as error:
        print(f"tui-agent serve: {error}")
        return 2
    if not args.scenario or "default_chunk_delay" not in scenario.model_fields_set:
        scenario.default_chunk_delay = args.delay
    if args.strict:
        scenario.strict = True
    if args.text_only:
        scenario.text_only = True
    try:
        key = chosen_key(args)
    except ValueError as error:
        print(f"tui-agent serve: {error}", file=sys.stderr)
        return 2
    if not _may_listen(args.host, key):
        return 2
    cors = Cors(frozenset(getattr(args, "cors_origin", None) or []))
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(_serve(scenario, args.host, args.port, key, served_models, cors))
    return 0


def chosen_key(args: argparse.Namespace, environ: Any = None) -> str | None:
    """The key clients must send: `--api-key`, else the variable `--api-key-env` names (which must be set),
    else $TUI_AGENT_SERVE_KEY; None for none."""
    environ = os.environ if environ is None else environ
    if args.api_key:
        return str(args.api_key)
    if (name := getattr(args, "api_key_env", None)) is not None:
        if not environ.get(name):
            raise ValueError(f"--api-key-env {name}: the environment variable {name} is not set (or empty)")
        return str(environ[name])
    return environ.get(KEY_ENV) or None


def _may_listen(host: str, key: str | None) -> bool:
    """Off loopback, anyone who can reach the machine can use the server: refuse without a key, warn with one."""
    from tui_agent.offline.guard import listens_off_loopback

    if not listens_off_loopback(host):
        return True
    if key is None:
        print(
            f"tui-agent serve: --host {host!r} listens beyond this machine (not a loopback address), so anyone "
            f"who can reach it could use the server. Give it a key: {KEY_ENV}=SECRET tui-agent serve --host "
            f"{host} (or --api-key-env VAR, naming the variable that holds it); clients then send SECRET as "
            "their API key.",
            file=sys.stderr,
        )
        return False
    print(
        f"tui-agent serve: warning: listening on {host!r}, reachable from other machines; every request must "
        "carry the key as its API key. Traffic is plain HTTP (put a TLS proxy in front), and a request to an "
        "agent: or team: model runs its tools on this machine.",
        file=sys.stderr,
    )
    return True


async def _serve(scenario: Any, host: str, port: int, key: str | None, served_models: Any, cors: Any) -> int:
    from tui_agent.offline.server import OfflineServer

    server = OfflineServer(scenario, host, port, api_key=key, served_models=served_models, cors=cors)
    try:
        base_url = await server.start()
    except OSError as error:
        print(f"tui-agent serve: cannot listen on {host}:{port}: {error.strerror or error}")
        return 1
    print(f"Offline model listening at {base_url}", flush=True)
    keys = "Clients must send the key as their API key" if key else "Any API key works"
    print(f"{keys}, and any model name. Press Ctrl+C to stop.", flush=True)
    if served_models is not None and (names := served_models.names()):
        print(f"Agents and teams served as models: {', '.join(names)}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()
    return 0
