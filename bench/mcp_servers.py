"""Benchmark: MCP servers against no MCP, same run.

1. Start-up: `tui-agent --offline` to first frame with five stdio MCP servers configured, against the same
   with none (the programs take turns, as in bench/startup.py). The servers start after the first paint,
   so the target is ratio <= 1.2 (noise only).
   The first reply too, which the first frame hid: from spawn, "hi" typed as soon as the first frame is
   up, until the reply's last line is on screen, with 5 and with 20 servers against none (taking turns).
   The first turn must not wait for servers still starting when the prompt names none of their tools:
   target ratio <= 1.5 (issue 28).
2. A call's overhead: an MCP tool called through tui-agent's stack (ToolRunner -> registry -> the server's
   live session), against the SDK's raw `ClientSession.call_tool` on the same server script, in alternating
   batches; medians per call. Target: ratio <= 1.2.

    python bench/mcp_servers.py [--runs N] [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from startup import TIMEOUT, compile_bytecode, interleaved_medians, tui_agent_command

from tui_agent.config import McpServerSettings, ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.tool_call import ToolCall
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

SERVER = Path(__file__).parents[1] / "tests" / "fixtures" / "mcp_servers" / "server.py"
BATCH = 25


def servers_config(count: int = 5) -> str:
    return "".join(
        f'[mcp_servers.s{index}]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n' for index in range(count)
    )


FIRST_FRAME = b"offline model"
REPLY_END = b"for real answers"
"""The offline model's answer to "hi" ends its list with this (behaviour.py `markdown_answer`)."""


def first_reply_seconds(command: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn until the reply to "hi" (typed once the first frame is up) is on screen."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))  # the reply's lines unwrapped
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True
    )
    os.close(follower)
    seen, typed = b"", False
    try:
        while REPLY_END not in seen:
            if time.perf_counter() - start > TIMEOUT:
                raise TimeoutError(f"{command} never answered; last output: {seen[-300:]!r}")
            if not typed and FIRST_FRAME in seen:
                os.write(leader, b"hi\r")
                typed, seen = True, b""  # the reply's text is looked for only after the prompt went in
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                seen = seen[-4096:] + os.read(leader, 65536)
        return time.perf_counter() - start
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(leader)


def startup(runs: int) -> None:
    compile_bytecode()
    with tempfile.TemporaryDirectory() as bare_home, tempfile.TemporaryDirectory() as mcp_home:
        (Path(mcp_home) / "config").mkdir()
        (Path(mcp_home) / "config" / "config.toml").write_text(servers_config(5))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        env.pop("OPENAI_BASE_URL", None)
        command = [*tui_agent_command(), "--offline"]
        programs = [
            (["env", f"TUI_AGENT_HOME={bare_home}", *command], b"offline model"),
            (["env", f"TUI_AGENT_HOME={mcp_home}", *command], b"offline model"),
        ]
        interleaved_medians(programs, env, 1)  # warm the file cache
        without, with_servers = interleaved_medians(programs, env, runs)
    print(f"tui-agent to first frame, no MCP servers: {without * 1000:.0f} ms (median of {runs})")
    print(f"tui-agent to first frame, five stdio MCP servers: {with_servers * 1000:.0f} ms (median of {runs})")
    print(
        f"result: first_frame_ms={with_servers * 1000:.0f} baseline={without * 1000:.0f} "
        f"ratio={with_servers / without:.2f} target=ratio<=1.2"
    )


def first_reply(runs: int) -> None:
    """Spawn to the first reply with none, 5 and 20 servers, taking turns; medians."""
    counts = (0, 5, 20)
    homes = [tempfile.TemporaryDirectory() for _ in counts]
    try:
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "40"}
        env.pop("OPENAI_BASE_URL", None)
        commands = []
        for home, count in zip(homes, counts, strict=True):
            (Path(home.name) / "config").mkdir()
            (Path(home.name) / "config" / "config.toml").write_text(servers_config(count))
            commands.append(["env", f"TUI_AGENT_HOME={home.name}", *tui_agent_command(), "--offline"])
        for command in commands:
            first_reply_seconds(command, env)  # warm the file cache
        times: list[list[float]] = [[] for _ in counts]
        for _ in range(runs):
            for measured, command in zip(times, commands, strict=True):
                measured.append(first_reply_seconds(command, env))
        none, *with_servers = (statistics.median(measured) for measured in times)
    finally:
        for home in homes:
            home.cleanup()
    print(f'tui-agent spawn to first reply ("hi", median of {runs}), no MCP servers: {none * 1000:.0f} ms')
    for count, value in zip(counts[1:], with_servers, strict=True):
        print(f'tui-agent spawn to first reply ("hi", median of {runs}), {count} servers: {value * 1000:.0f} ms')
        print(
            f"result: first_reply_{count}_servers_ms={value * 1000:.0f} baseline={none * 1000:.0f} "
            f"ratio={value / none:.2f} target=ratio<=1.5"
        )


async def call_overhead(calls: int, log_dir: Path) -> None:
    registry = ToolRegistry(ToolsSettings())
    servers = McpServers(
        {"bench": McpServerSettings(command=sys.executable, args=[str(SERVER)], approval="never")},
        registry,
        log_dir,
        redact=Redactor().text,
    )
    runner = ToolRunner(registry)
    servers.start()
    await registry.settled()
    async with AsyncExitStack() as stack:
        parameters = StdioServerParameters(command=sys.executable, args=[str(SERVER)])  # a quiet server
        read, write = await stack.enter_async_context(stdio_client(parameters))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()

        async def raw() -> None:
            await session.call_tool("add", {"a": 1, "b": 2})

        async def ours() -> None:
            await runner.run([ToolCall("c", "add", arguments={"a": 1, "b": 2})], lambda state: None)

        times: dict[str, list[float]] = {"raw": [], "ours": []}
        for _ in range(3):  # warm both
            await raw()
            await ours()
        for _ in range(max(1, calls // BATCH)):
            for name, call in (("raw", raw), ("ours", ours)):
                for _ in range(BATCH):
                    start = time.perf_counter()
                    await call()
                    times[name].append(time.perf_counter() - start)
    await servers.close()
    base, value = (statistics.median(times[name]) * 1000 for name in ("raw", "ours"))
    print(
        f"SDK call_tool: {base:.2f} ms per call; through tui-agent's runner: {value:.2f} ms (medians of "
        f"{len(times['raw'])})"
    )
    print(f"result: mcp_call_ms={value:.3f} baseline={base:.3f} ratio={value / base:.2f} target=ratio<=1.2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    startup(args.runs)
    first_reply(max(3, args.runs // 3))
    with tempfile.TemporaryDirectory() as logs:
        asyncio.run(call_overhead(args.calls, Path(logs)))


if __name__ == "__main__":
    main()
