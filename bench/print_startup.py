"""Benchmark: `tui-agent -p hi` from spawn to exit against a script that imports the openai SDK and streams one
reply from the same server, same run.

The offline model serves in a process of its own; both programs ask it for the same short reply. The two run in
turns (baseline, tui-agent, baseline...), so a machine that speeds up or slows down moves both alike; medians
are compared; both start from compiled bytecode, as after pip install (openai's came compiled; tui_agent and
its shipped plugins are compiled here, because with PYTHONDONTWRITEBYTECODE set an editable checkout is never
cached and every timed run compiled ~200 modules from source, ~0.5 s the SDK's side never paid), then one
untimed run each. tui-agent runs with an empty home (no config, no history), as on a first start.
Target: ratio <= 1.3 (issue 28): what `-p` does beyond the SDK's import and one streamed reply — tui-agent's
own imports, settings, history, tools — must cost less than a third of that.
An `info:` line splits the gap, from the same turns: how much of it is importing `-p`'s modules alone (a process
that imports openai and `tui_agent.print_mode`, against one that imports openai), the rest being the run itself.

    python bench/print_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tui_agent
from tui_agent.tools.discovery import shipped_plugins_dir

SERVE = (
    "import argparse, sys; from tui_agent.offline import cli; p = argparse.ArgumentParser(); "
    "cli.add_parser(p.add_subparsers(dest='command')); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))"
)
BASELINE = """
import sys
import openai

client = openai.OpenAI(base_url=sys.argv[1], api_key="offline")
stream = client.chat.completions.create(
    model="offline", messages=[{"role": "user", "content": "hi"}], stream=True
)
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        sys.stdout.write(chunk.choices[0].delta.content)
print()
"""
REPLY = "Hello! How can I help you today?"
IMPORT_SDK = f"import openai; print({REPLY!r})"
IMPORT_OURS = (  # as `-p` imports them: openai with them, the collector off (`cli.imported_uncollected`)
    "from tui_agent.cli import imported_uncollected; "
    f"imported_uncollected('tui_agent.print_mode', freeze=True); print({REPLY!r})"
)


def start_server(scenario: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--scenario", str(scenario)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, process.stdout.readline().rsplit(" ", 1)[-1].strip()


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or REPLY not in done.stdout:
        raise SystemExit(f"{command[:3]} failed ({done.returncode}): {done.stdout[-500:]} {done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    for folder in (Path(tui_agent.__file__).parent, shipped_plugins_dir()):
        if folder is not None:
            compileall.compile_dir(folder, quiet=1)
    with tempfile.TemporaryDirectory(prefix="bench-print-startup-") as temporary:
        root = Path(temporary)
        scenario = root / "scenario.json"
        scenario.write_text(json.dumps({"replies": [{"text": REPLY}], "then": "repeat_last"}), encoding="utf-8")
        script = root / "baseline.py"
        script.write_text(BASELINE, encoding="utf-8")
        server, base_url = start_server(scenario)
        try:
            env = {**os.environ, "TUI_AGENT_HOME": str(root / "home")}
            for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TUI_AGENT_MODEL"):
                env.pop(key, None)
            baseline = [sys.executable, str(script), base_url]
            measured = [sys.executable, "-m", "tui_agent", "--base-url", base_url, "--model", "offline", "-p", "hi"]
            imports = {
                "import-sdk": [sys.executable, "-c", IMPORT_SDK],
                "import-ours": [sys.executable, "-c", IMPORT_OURS],
            }
            timed(baseline, env), timed(measured, env)  # bytecode compiled, home created: not timed
            times: dict[str, list[float]] = {"baseline": [], "tui-agent": [], "import-sdk": [], "import-ours": []}
            for _ in range(options.runs):
                times["baseline"].append(timed(baseline, env))
                times["tui-agent"].append(timed(measured, env))
                for name, command in imports.items():
                    times[name].append(timed(command, env))
        finally:
            server.terminate()
            server.wait()
    for name, values in times.items():
        print(f"{name:10} " + " ".join(f"{value:.3f}" for value in values))
    base, value = statistics.median(times["baseline"]), statistics.median(times["tui-agent"])
    imported = statistics.median(times["import-ours"]) - statistics.median(times["import-sdk"])
    print(f"info: gap={value - base:.3f}s of which importing -p's modules beyond openai={imported:.3f}s")
    print(
        f"result: print_hi_s={value:.3f} baseline_openai_stream_s={base:.3f} ratio={value / base:.2f} target=ratio<=1.3"
    )


if __name__ == "__main__":
    main()
