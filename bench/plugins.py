"""Benchmark: the first reply with 1000 plugins against 10 plugins, same run.

Each run is `tui-agent --offline -p hi --plugins DIR` from spawn to exit, DIR a private folder of N small
plugin files (one `@tool` each, like a user's); every tool is offered to the model, so the request carries
all of them. The two sizes run in turns (10, 1000, 10, 1000...), so a machine that speeds up or slows down
moves both alike; medians are compared. Both start from compiled bytecode, as after any first start: tui_agent,
its shipped plugins and both plugin folders are compiled here (the docstring always said the untimed first run
compiled the plugins, but with PYTHONDONTWRITEBYTECODE set, as on the bench machines, nothing was ever written:
every timed run compiled 1000 plugins from source, ~0.3 s no user pays twice, and all of tui_agent, on both
sides). One untimed run of each then lets the import journal settle.
Target: ratio <= 2 (issue 28: "1000 plugins: first reply").

    python bench/plugins.py [--runs N] [--many 1000] [--few 10]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import tui_agent
from tui_agent.tools.discovery import shipped_plugins_dir

PLUGIN = '''"""Plugin {i}: echoes its text."""

from tui_agent.tools import tool


@tool(approval="never", effect="read")
def echo_{i}(text: str, times: int = 1) -> str:
    """Echo the text back ({i}).

    Args:
        text: What to echo.
        times: How many times.
    """
    return text * times
'''


def plugin_folder(root: Path, count: int) -> Path:
    folder = root / f"plugins-{count}"
    folder.mkdir(mode=0o700)
    for i in range(count):
        (folder / f"plugin_{i:04d}.py").write_text(PLUGIN.format(i=i), encoding="utf-8")
    return folder


def one_run(folder: Path, root: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawn to exit, and the CPU seconds the run used (user + system: what a loaded machine's
    waiting leaves out)."""
    program = shutil.which("tui-agent") or "tui-agent"
    command = [program, "--offline", "--plugins", str(folder), "--db", str(root / "history.db"), "-p", "hi"]
    cpu_before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"tui-agent -p failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--many", type=int, default=1000)
    parser.add_argument("--few", type=int, default=10)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-plugins-") as temporary:
        root = Path(temporary)
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_DATA_HOME": str(root / "data"),
            "XDG_STATE_HOME": str(root / "state"),
        }
        few, many = plugin_folder(root, options.few), plugin_folder(root, options.many)
        for folder in (Path(tui_agent.__file__).parent, shipped_plugins_dir(), few, many):
            if folder is not None:
                compileall.compile_dir(folder, quiet=1)
        one_run(few, root, env), one_run(many, root, env)  # bytecode compiled, journal settled: not timed
        times: dict[Path, list[float]] = {few: [], many: []}
        cpu: dict[Path, list[float]] = {few: [], many: []}
        for _ in range(options.runs):
            for folder in (few, many):
                elapsed, used = one_run(folder, root, env)
                times[folder].append(elapsed)
                cpu[folder].append(used)
        base, value = statistics.median(times[few]), statistics.median(times[many])
        print(f"{options.few} plugins: " + " ".join(f"{t:.2f}" for t in times[few]))
        print(f"{options.many} plugins: " + " ".join(f"{t:.2f}" for t in times[many]))
        base_cpu, value_cpu = statistics.median(cpu[few]), statistics.median(cpu[many])
        print(
            f"info: cpu_{options.many}_plugins_s={value_cpu:.3f} cpu_{options.few}_plugins_s={base_cpu:.3f} "
            f"ratio={value_cpu / base_cpu:.2f} (CPU medians: on a loaded machine the wall-clock ratio is noisy)"
        )
        print(
            f"result: first_reply_{options.many}_plugins_s={value:.3f} baseline_{options.few}_plugins_s={base:.3f} "
            f"ratio={value / base:.2f} target=ratio<=2"
        )


if __name__ == "__main__":
    main()
