"""Benchmark: `tui-agent --offline` to first frame against a bare Textual app, same run.

Each program runs in a pseudo-terminal (80x24), tui-agent as the installed `tui-agent` script; the
clock stops when the first frame's text appears on the terminal (for tui-agent: the status bar's
"offline model"; for the baseline: a Static's text). The two run in turns (baseline, app, baseline,
app...), so a machine that speeds up or slows down during the run moves both alike; medians are
compared; both start from compiled bytecode.
Target: ratio <= 1.2 — so the openai client, history and plugins must load after the first paint.

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
    process = subprocess.Popen(
        command, stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True
    )
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


def tui_agent_command() -> list[str]:
    """The `tui-agent` script the install made, as a person runs it (`python -m tui_agent` without one:
    runpy's imports add ~8 ms the script does not have)."""
    script = Path(sys.executable).with_name("tui-agent")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "tui_agent"]


def interleaved_medians(programs: list[tuple[list[str], bytes]], env: dict[str, str], runs: int) -> list[float]:
    """Median seconds to first frame of each program, the programs taking turns run after run."""
    times: list[list[float]] = [[] for _ in programs]
    for _ in range(runs):
        for measured, (command, marker) in zip(times, programs, strict=True):
            measured.append(first_frame_seconds(command, marker, env))
    return [statistics.median(measured) for measured in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    compile_bytecode()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "TUI_AGENT_HOME": home, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        env.pop("OPENAI_BASE_URL", None)
        bare = ([sys.executable, "-c", BARE_APP], b"bare app ready")
        tui_agent_app = ([*tui_agent_command(), "--offline"], b"offline model")
        interleaved_medians([bare, tui_agent_app], env, 1)  # warm the file cache
        baseline, app = interleaved_medians([bare, tui_agent_app], env, args.runs)
    ratio = app / baseline
    print(f"bare Textual app to first frame: {baseline * 1000:.0f} ms (median of {args.runs})")
    print(f"tui-agent --offline to first frame: {app * 1000:.0f} ms (median of {args.runs})")
    print(f"result: first_frame_ms={app * 1000:.0f} baseline={baseline * 1000:.0f} ratio={ratio:.2f} target=ratio<=1.2")


if __name__ == "__main__":
    main()
