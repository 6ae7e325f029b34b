"""Benchmark: `-p --output-format stream-json` against `-p` text for a 20k-token reply, same server, same run.

The offline model (in its own process) serves one reply of 80,000 characters (~20,000 tokens) in 4-character
chunks: 20,000 deltas, each a `text` line in stream-json. (a) runs `python -m tui_agent -p` (text), (b) the
same with `--output-format stream-json`, (c) with `--output-format json`; each a whole process, its stdout
read to the end through a pipe, as a program driving tui-agent reads it. Best of R runs each, interleaved.
Target: (b)/(a) <= 1.1.

    python bench/headless.py [--chars N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PIECE = 4
SERVE = (
    "import argparse, sys; from tui_agent.offline import cli; p = argparse.ArgumentParser(); "
    "cli.add_parser(p.add_subparsers(dest='command')); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))"
)
FORMATS = {"text": [], "stream-json": ["--output-format", "stream-json"], "json": ["--output-format", "json"]}


def scenario(chars: int) -> dict[str, Any]:
    """One reply of `chars` characters of prose, in PIECE-character chunks, sent as fast as the server can."""
    text = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * (chars // 57 + 1))[:chars]
    return {"replies": [{"text": text, "chunk_size": PIECE, "chunk_delay": 0.0}], "then": "repeat_last"}


def start_server(path: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--scenario", str(path)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, process.stdout.readline().rsplit(" ", 1)[-1].strip()


def one_run(base_url: str, home: str, extra: list[str]) -> tuple[float, str]:
    """One `-p` process, timed from start to exit; its stdout."""
    env = {**os.environ, "TUI_AGENT_HOME": home}
    command = [sys.executable, "-m", "tui_agent", "--base-url", base_url, "--model", "offline", "-p", "go", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=80_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenario.json"
        path.write_text(json.dumps(scenario(args.chars)))
        server, base_url = start_server(path)
        try:
            best = {name: float("inf") for name in FORMATS}
            outputs: dict[str, str] = {}
            for _ in range(args.repeat):
                for name, extra in FORMATS.items():
                    seconds, outputs[name] = one_run(base_url, str(Path(folder) / "home"), extra)
                    best[name] = min(best[name], seconds)
        finally:
            server.terminate()
            server.wait()
    lines = outputs["stream-json"].splitlines()
    result = json.loads(lines[-1])
    deltas = sum(1 for line in lines if line.startswith('{"type":"text"'))
    assert result["text"].strip() == outputs["text"].strip(), "stream-json's result differs from the text reply"
    assert json.loads(outputs["json"])["text"] == result["text"]
    print(
        f"reply: {len(result['text'])} characters, {deltas} text events,",
        f"{len(outputs['stream-json'])} bytes of stream-json",
    )
    for name in FORMATS:
        print(f"{name:12} best of {args.repeat}: {best[name]:.3f} s")
    text = best["text"]
    print(f"value: text_s={text:.3f} stream_json_s={best['stream-json']:.3f} json_s={best['json']:.3f}")
    for name, metric in (("stream-json", "stream_json_s"), ("json", "json_s")):
        value = best[name]
        print(f"result: {metric}={value:.3f} baseline={text:.3f} ratio={value / text:.3f} target=ratio<=1.1")


if __name__ == "__main__":
    main()
