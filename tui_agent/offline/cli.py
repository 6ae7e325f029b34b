"""Provides `tui-agent serve`: run the offline model stand-alone and print its base URL."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register the `serve` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="run the built-in offline model as an OpenAI-compatible server",
        description="Serve the deterministic offline model over HTTP (chat completions with SSE, /v1/models). "
        "Point any OpenAI client at the printed base URL; any API key and model name work.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)")
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


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit status."""
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
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(_serve(scenario, args.host, args.port))
    return 0


async def _serve(scenario: Any, host: str, port: int) -> int:
    from tui_agent.offline.server import OfflineServer

    server = OfflineServer(scenario, host, port)
    try:
        base_url = await server.start()
    except OSError as error:
        print(f"tui-agent serve: cannot listen on {host}:{port}: {error.strerror or error}")
        return 1
    print(f"Offline model listening at {base_url}", flush=True)
    print("Any API key and model name work. Press Ctrl+C to stop.", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()
    return 0
