"""Provides `tui-agent acp`: tui-agent as an Agent Client Protocol agent on stdin and stdout, for editors (Zed,
JetBrains, Neovim) and Toad.

The protocol owns stdin and stdout: before anything else runs, the process keeps its own copies of them for
the connection and points descriptors 0 and 1 at /dev/null and stderr, so nothing a tool, plugin, MCP server
or child process reads or prints can take the editor's messages or break them. Log lines go to stderr (the
editor's log of the agent). The top-level options apply to every session: `tui-agent --offline acp`,
`tui-agent --model NAME --mode auto-edit acp`. See docs/acp.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from tui_agent.boot import settings_from_args

if TYPE_CHECKING:
    from tui_agent.acp.server import TuiAgentAcp


def add_parser(subparsers: Any) -> None:
    """Register `acp`."""
    parser = subparsers.add_parser(
        "acp",
        help="speak the Agent Client Protocol on stdin/stdout (for Zed, Toad and other ACP editors)",
        description="Run tui-agent as an ACP agent over stdio. Options before `acp` (--offline, --model, --agent, "
        "--mode, --db...) apply to every session. See docs/acp.md.",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tui_agent.acp.server import StartOptions, TuiAgentAcp  # deferred: the engine and the SDK, not for --help

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="tui-agent acp: %(levelname)s %(message)s")
    settings, problems = settings_from_args(args)
    for problem in problems:
        print(f"tui-agent: {problem}", file=sys.stderr)
    options = StartOptions(
        getattr(args, "mode", None), bool(getattr(args, "dangerously_auto_without_sandbox", False)), problems
    )
    with protocol_streams() as (incoming, outgoing), contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(TuiAgentAcp(settings, options), incoming, outgoing))
    return 0


async def serve(agent: TuiAgentAcp, incoming: TextIO, outgoing: TextIO) -> None:
    """Answer the editor until it closes the connection, then end every session (history flushed)."""
    from acp import run_agent  # deferred: the SDK (and pydantic's models of it) for this command only
    from acp.stdio import stdio_streams

    saved = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = incoming, outgoing  # the SDK's streams are made on these two
    try:
        reader, writer = await stdio_streams()
    finally:
        sys.stdin, sys.stdout = saved
    try:
        # The SDK names the streams from the editor's side (to it, from it). Its "unstable" methods are
        # session/close, /fork and /resume, which we answer (and say so in `initialize`).
        await run_agent(agent, writer, reader, use_unstable_protocol=True)
    finally:
        await agent.close()


@contextlib.contextmanager
def protocol_streams() -> Iterator[tuple[TextIO, TextIO]]:
    """The connection's own stdin and stdout; fds 0 and 1 point at /dev/null and stderr meanwhile."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    incoming = os.fdopen(os.dup(0), "r")
    outgoing = os.fdopen(os.dup(1), "w")
    saved = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    streams = sys.stdout
    try:
        os.dup2(devnull, 0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr  # print() in a plugin lands in the log, not in the protocol
        yield incoming, outgoing
    finally:
        sys.stdout = streams
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in (devnull, *saved):
            os.close(fd)
        for stream in (incoming, outgoing):
            with contextlib.suppress(OSError, ValueError):
                stream.close()
