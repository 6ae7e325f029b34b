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
   batches; medians per call. The calls run in a fixed 1,000-file working folder: a tool not annotated
   read-only is watched (the runner walks the folder before and after the call to record what it changed,
   tools/scan.py), so what it costs depends on the folder, and it used to be whatever folder the bench ran from
   (this repository: 26.6 ms against 3.0 ms, "8.8x"). Two lines, each against its own floor:
   `mcp_call_ms`, the runner's own overhead (the scan off, as for a read-only tool) against the SDK's call,
   target ratio <= 1.2; `mcp_call_scanned_ms`, the watched call against the SDK's call between two bare walks
   of the folder (`scan.walk`, the floor of a before/after scan), target ratio <= 1.3.

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
from collections.abc import Awaitable, Callable
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
from tui_agent.tools.scan import walk

SERVER = Path(__file__).parents[1] / "tests" / "fixtures" / "mcp_servers" / "server.py"
BATCH = 25
WARM_TIMEOUT = 120.0
"""Seconds the first run may take: it waits for every server, never seen ready (20 Python servers: ~25 s of CPU)."""


def servers_config(count: int = 5) -> str:
    return "".join(
        f'[mcp_servers.s{index}]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n' for index in range(count)
    )


FIRST_FRAME = b"offline model"
REPLY_END = b"for real answers"
"""The offline model's answer to "hi" ends its list with this (behaviour.py `markdown_answer`)."""


def first_reply_seconds(command: list[str], env: dict[str, str], timeout: float = TIMEOUT) -> float:
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
            if time.perf_counter() - start > timeout:
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
        for command in commands:  # warm the file cache; and the servers, never seen ready, are waited for once
            first_reply_seconds(command, env, WARM_TIMEOUT)
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


PROJECT_FILES = 1000
"""Files in the working folder the calls run in: a small project (20 folders of 50 files of 2 KB)."""


def make_project(root: Path) -> None:
    """A fixed working folder, so the scan around a call costs the same wherever the bench is run from."""
    for folder in range(20):
        (root / f"pkg{folder}").mkdir()
        for index in range(PROJECT_FILES // 20):
            (root / f"pkg{folder}" / f"module{index}.py").write_text(f"# module {folder}.{index}\n" + "x = 1\n" * 300)


async def call_overhead(calls: int, log_dir: Path, project: Path) -> None:
    """Per-call medians, in alternating batches: the SDK's own `call_tool`; the same call through our runner
    (`add` is not annotated read-only, so the runner scans the working folder before and after it to record
    what it changed, `tools/scan.py`); the SDK's call between two bare walks of the folder (the floor of that
    scan); and our runner with the scan off (`[tools] scan_max_files = 0`, what a read-only tool gets): the
    runner's own overhead."""
    os.chdir(project)
    runners: dict[str, ToolRunner] = {}
    started: list[McpServers] = []
    for name, scan_max_files in (("ours", ToolsSettings().scan_max_files), ("ours_unwatched", 0)):
        registry = ToolRegistry(ToolsSettings(scan_max_files=scan_max_files))
        servers = McpServers(
            {"bench": McpServerSettings(command=sys.executable, args=[str(SERVER)], approval="never")},
            registry,
            log_dir,
            redact=Redactor().text,
        )
        servers.start()
        started.append(servers)
        await registry.settled()
        runners[name] = ToolRunner(registry)
    async with AsyncExitStack() as stack:
        parameters = StdioServerParameters(command=sys.executable, args=[str(SERVER)])  # a quiet server
        read, write = await stack.enter_async_context(stdio_client(parameters))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()

        async def raw() -> None:
            await session.call_tool("add", {"a": 1, "b": 2})

        async def raw_walked() -> None:
            walk(project, PROJECT_FILES * 2)
            await session.call_tool("add", {"a": 1, "b": 2})
            walk(project, PROJECT_FILES * 2)

        def through(runner: ToolRunner) -> Callable[[], Awaitable[None]]:
            async def call() -> None:
                (done,) = await runner.run([ToolCall("c", "add", arguments={"a": 1, "b": 2})], lambda state: None)
                assert done.result == "3", done

            return call

        measured = {"raw": raw, "raw_walked": raw_walked, **{name: through(runner) for name, runner in runners.items()}}
        times: dict[str, list[float]] = {name: [] for name in measured}
        for _ in range(3):  # warm them all
            for call in measured.values():
                await call()
        for _ in range(max(1, calls // BATCH)):
            for name, call in measured.items():
                for _ in range(BATCH):
                    start = time.perf_counter()
                    await call()
                    times[name].append(time.perf_counter() - start)
    for servers in started:
        await servers.close()
    base, walked, value, unwatched = (
        statistics.median(times[name]) * 1000 for name in ("raw", "raw_walked", "ours", "ours_unwatched")
    )
    count = len(times["raw"])
    print(
        f"SDK call_tool: {base:.2f} ms per call; through tui-agent's runner, scan off: {unwatched:.2f} ms; "
        f"SDK call between two bare walks of the {PROJECT_FILES}-file folder: {walked:.2f} ms; through the runner, "
        f"scanned: {value:.2f} ms (medians of {count})"
    )
    print(f"result: mcp_call_ms={unwatched:.3f} baseline={base:.3f} ratio={unwatched / base:.2f} target=ratio<=1.2")
    print(f"result: mcp_call_scanned_ms={value:.3f} baseline={walked:.3f} ratio={value / walked:.2f} target=ratio<=1.3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    startup(args.runs)
    first_reply(max(3, args.runs // 3))
    with tempfile.TemporaryDirectory() as logs, tempfile.TemporaryDirectory() as project:
        make_project(Path(project))
        asyncio.run(call_overhead(args.calls, Path(logs), Path(project)))


if __name__ == "__main__":
    main()
