"""Benchmark: how fast `tui-agent` ends after a big reply, against the same app after a one-line reply.

The app runs as `python -m tui_agent` in a pseudo-terminal (120x40) against the offline model (a thread of
this process, serving one scripted reply per request). Once the reply's last word is on the screen:

(1) Ctrl+Q: seconds from the key to the process gone, with the reply in history, whole and complete
    (target value <= 0.5 s);
(2) the terminal hangs up (its side closed, as a terminal window closing does): seconds until the process is
    gone, with the reply in history, whole (target value <= 0.5 s).

Each is measured after a `SIZE_MB` MB reply and after a one-line reply (baseline=), in turns (baseline, big,
baseline, big...), so load on the machine moves both alike; medians are compared.

    python bench/exit.py [--runs N] [--mb M]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from tui_agent.offline.server import BackgroundServer

SIZE_MB = 3
END = "END-OF-REPLY"
TIMEOUT = 120.0
ESCAPE_SEQUENCE = re.compile(rb"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|[PX^_][^\x1b]*\x1b\\|\][^\x07\x1b]*(\x07|\x1b\\)|.)")


def big_reply(megabytes: float) -> str:
    """Paragraphs of prose, `megabytes` of them, the end marker last."""
    paragraph = "The quick brown fox jumps over the lazy dog, and then it does it again. " * 10
    count = int(megabytes * 1_000_000 / (len(paragraph) + 2))
    return "\n\n".join([paragraph.strip()] * count) + f"\n\n{END}"


class App:
    """`tui-agent` on a pseudo-terminal; `until` reads its output until a word appears."""

    def __init__(self, base_url: str, db: Path, home: str) -> None:
        self.leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TUI_AGENT_HOME": home, "TERM": "xterm-256color", "OPENAI_API_KEY": "bench"}
        command = [sys.executable, "-m", "tui_agent", "--base-url", base_url, "--model", "m", "--db", str(db)]
        self.process = subprocess.Popen(
            command, stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True
        )
        os.close(follower)
        self.open = True
        self.seen = b""

    def until(self, word: bytes) -> None:
        deadline = time.perf_counter() + TIMEOUT
        while word not in ESCAPE_SEQUENCE.sub(b"", self.seen[-200_000:]):
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{word!r} never appeared; last output: {self.seen[-300:]!r}")
            self.read(0.05)

    def read(self, wait: float) -> None:
        if not self.open:
            time.sleep(wait)
            return
        ready, _, _ = select.select([self.leader], [], [], wait)
        if ready:
            try:
                self.seen += os.read(self.leader, 1 << 16)
            except OSError:
                pass

    def gone_after(self) -> float:
        """Seconds until the process has ended (reading its output meanwhile, as a terminal does)."""
        start = time.perf_counter()
        while self.process.poll() is None:
            if time.perf_counter() - start > TIMEOUT:
                raise TimeoutError("still running")
            self.read(0.005)
        return time.perf_counter() - start

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.open:
            os.close(self.leader)


def saved(db: Path) -> tuple[str, int]:
    """The last reply's status and length as the file holds them."""
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT status, length(content) FROM messages WHERE role = 'assistant' ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
    conn.close()
    return (str(row[0]), int(row[1])) if row else ("none", 0)


def one_exit(base_url: str, text: str, how: str) -> float:
    """Seconds from Ctrl+Q (how="quit") or the hang-up (how="hangup") to the process gone; checks history."""
    with tempfile.TemporaryDirectory() as home:
        db = Path(home) / "history.db"
        app = App(base_url, db, home)
        try:
            app.until(b"Ask anything")
            os.write(app.leader, b"go\r")
            app.until(END.encode())
            time.sleep(0.3)  # the turn's end (the reply saved, the prompt ready) after its last word is drawn
            app.read(0.05)
            if how == "quit":
                os.write(app.leader, b"\x11")
            else:
                os.close(app.leader)
                app.open = False
            seconds = app.gone_after()
        finally:
            app.close()
        status, length = saved(db)
        if length != len(text):
            print(f"info: {how}: history holds {length:,} of {len(text):,} characters ({status}): counts as failed")
            return float("inf")
        return seconds


def main(runs: int, megabytes: float) -> None:
    big, small = big_reply(megabytes), f"Hello there. {END}"
    for how, label in [("quit", "ctrl_q"), ("hangup", "hangup")]:
        ours: list[float] = []
        base: list[float] = []
        for _ in range(runs):
            for text, into in [(small, base), (big, ours)]:
                scenario = {"replies": [{"text": text, "chunk_size": 65536}], "then": "repeat_last"}
                with BackgroundServer(scenario) as server:
                    into.append(one_exit(server.base_url, text, how))
        value, floor = statistics.median(ours), statistics.median(base)
        print(
            f"info: {label}: after {len(big) / 1e6:.1f} MB {', '.join(f'{s:.2f}' for s in ours)} s; "
            f"after one line {', '.join(f'{s:.2f}' for s in base)} s",
            flush=True,
        )
        print(
            f"result: exit_{label}_{megabytes:g}mb_s={value:.2f} baseline={floor:.2f} ratio={value / floor:.2f} "
            "target=value<=0.5",
            flush=True,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mb", type=float, default=SIZE_MB)
    options = parser.parse_args()
    main(options.runs, options.mb)
