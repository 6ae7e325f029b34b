"""Benchmark: MCP servers against no MCP, same run.

1. Start-up: `tui-agent --offline` to first frame with five stdio MCP servers configured, against the same
   with none (the programs take turns, as in bench/startup.py). The servers start after the first paint,
   so the target is ratio <= 1.2 (noise only).
2. A call's overhead: an MCP tool called through tui-agent's stack (ToolRunner -> registry -> the server's
   live session), against the SDK's raw `ClientSession.call_tool` on the same server script, in alternating
   batches; medians per call. Target: ratio <= 1.2.

    python bench/mcp_servers.py [--runs N] [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from startup import compile_bytecode, interleaved_medians, tui_agent_command

from tui_agent.config import McpServerSettings, ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.tool_call import ToolCall
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

SERVER = Path(__file__).parents[1] / "tests" / "fixtures" / "mcp_servers" / "server.py"
BATCH = 25


def five_servers_config() -> str:
    return "".join(f'[mcp_servers.s{index}]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n' for index in range(5))


def startup(runs: int) -> None:
    compile_bytecode()
    with tempfile.TemporaryDirectory() as bare_home, tempfile.TemporaryDirectory() as mcp_home:
        (Path(mcp_home) / "config").mkdir()
        (Path(mcp_home) / "config" / "config.toml").write_text(five_servers_config())
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
    with tempfile.TemporaryDirectory() as logs:
        asyncio.run(call_overhead(args.calls, Path(logs)))


if __name__ == "__main__":
    main()
