"""Benchmark: `tui-agent --offline` to first frame against a bare Textual app, same run.

Each program runs in a pseudo-terminal (80x24); the clock stops when the first frame's text appears
on the terminal (for tui-agent: the status bar's "offline model"; for the baseline: a Static's text).
The median of several runs is compared; both start from compiled bytecode. Target: ratio <= 1.2 — so
the openai client, history and plugins must load after the first paint.

    python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import compileall
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
from pathlib import Path

import tui_agent

BARE_APP = """
from textual.app import App, ComposeResult
from textual.widgets import Static

class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("bare app ready")

Bare().run()
"""
TIMEOUT = 30.0


def first_frame_seconds(command: list[str], marker: bytes, env: dict[str, str]) -> float:
    """Seconds from spawn until `marker` is written to the terminal."""
    leader, follower = pty.openpty()
    size = struct.pack("HHHH", 24, 80, 0, 0)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, size)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env,
                               start_new_session=True)
    os.close(follower)
    seen = b""
    try:
        while marker not in seen:
            if time.perf_counter() - start > TIMEOUT:
                raise TimeoutError(f"{command} never showed {marker!r}; last output: {seen[-300:]!r}")
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                seen += os.read(leader, 65536)
        return time.perf_counter() - start
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(leader)


def compile_bytecode() -> None:
    """Byte-compile tui_agent, as pip does for an installed package (Textual's came compiled).

    An editable checkout is compiled by its first run, unless PYTHONDONTWRITEBYTECODE is set; then every
    run would compile all of tui_agent from source and the comparison would measure that instead.
    """
    compileall.compile_dir(Path(tui_agent.__file__).parent, quiet=1)


def median_seconds(command: list[str], marker: bytes, env: dict[str, str], runs: int) -> float:
    return statistics.median(first_frame_seconds(command, marker, env) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    compile_bytecode()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "TUI_AGENT_HOME": home, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        env.pop("OPENAI_BASE_URL", None)
        first_frame_seconds([sys.executable, "-c", BARE_APP], b"bare app ready", env)  # warm the file cache
        baseline = median_seconds([sys.executable, "-c", BARE_APP], b"bare app ready", env, args.runs)
        app = median_seconds([sys.executable, "-m", "tui_agent", "--offline"], b"offline model", env, args.runs)
    ratio = app / baseline
    print(f"bare Textual app to first frame: {baseline * 1000:.0f} ms (median of {args.runs})")
    print(f"tui-agent --offline to first frame: {app * 1000:.0f} ms (median of {args.runs})")
    print(f"result: first_frame_ms={app * 1000:.0f} baseline={baseline * 1000:.0f} ratio={ratio:.2f} target=<=1.2")


if __name__ == "__main__":
    main()
