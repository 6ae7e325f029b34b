"""Benchmark: what starting a command in the OS sandbox costs (issue 30: <= 30 ms more than without it).

`run_shell`'s own path, `tools.process.run_program("true", shell=True)`, is timed in the working directory
with and without a sandbox policy (`tui_agent.sandbox.confined`), alternating, so both see the same machine
load: the median of each, and the difference is the value. "Cold" times the first sandboxed start of a
fresh process (the ruleset built: the folders on the way to each secrets folder listed), later starts reuse
the ruleset while those folders are unchanged.

    python bench/sandbox.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from tui_agent.sandbox import Policy, confined, support
from tui_agent.tools.process import run_program

COMMAND = "true"
TARGET_MS = 30.0


async def one_start(policy: Policy | None) -> float:
    """Seconds for one `run_program` of `true` through /bin/sh, sandboxed under `policy` when one is given."""
    with confined(policy):
        start = time.perf_counter()
        result = await run_program(COMMAND, cwd=Path.cwd(), shell=True)
        elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.output
    return elapsed


async def measure(runs: int) -> tuple[float, list[float], list[float]]:
    policy = Policy()
    cold = await one_start(policy)
    plain: list[float] = []
    boxed: list[float] = []
    for _ in range(runs):
        plain.append(await one_start(None))
        boxed.append(await one_start(policy))
    return cold, plain, boxed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    if (problem := support().problem) is not None:
        print(f"skipped: no OS sandbox here: {problem}")
        sys.exit(0)
    cold, plain, boxed = asyncio.run(measure(args.runs))
    base, value = statistics.median(plain) * 1000, statistics.median(boxed) * 1000
    extra = value - base
    print(f"{support().detail}; {args.runs} starts each of `{COMMAND}` through run_program")
    print(f"value: cold sandboxed start {cold * 1000:.1f} ms (ruleset built)")
    ratio = value / base
    print(
        f"result: sandbox_extra_start_ms={extra:.1f} baseline={base:.1f} ratio={ratio:.2f} target=value<={TARGET_MS:g}"
    )
    print(f"result: sandboxed_start_ms={value:.1f} baseline={base:.1f} ratio={ratio:.2f} target=ratio<=2.5")
    sys.exit(0 if extra <= TARGET_MS else 1)


if __name__ == "__main__":
    main()
