"""Benchmark: per-node overhead of the commander against plain asyncio.TaskGroup tasks, same run.

100,000 jobs each run one handler (200,000 nodes). The baseline runs the same number of no-op tasks
(200,000) in an asyncio.TaskGroup. The two take turns, R rounds of one each (so a burst of load on the
machine falls on both, not on whichever ran second); best of R each. Prints per-node and per-task
microseconds and their ratio. Target: ratio <= 2.

    python bench/commander.py [--jobs N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from typing import Any

from tui_agent.commander import Commander, HandlerCoroutine, Job, as_handler


@as_handler
async def noop_handler(node: HandlerCoroutine) -> None:
    return None


class OneHandlerJob(Job):
    async def run(self) -> HandlerCoroutine:
        return noop_handler()


async def noop() -> None:
    return None


async def baseline(tasks: int) -> float:
    start = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(tasks):
            group.create_task(noop())
    return time.perf_counter() - start


async def commander_run(jobs: int) -> float:
    commander: Any = Commander()
    work = [OneHandlerJob() for _ in range(jobs)]
    start = time.perf_counter()
    await commander.run_async(work, auto_exit=True)
    elapsed = time.perf_counter() - start
    assert all(job.state.value == "completed" for job in work)
    return elapsed


def interleaved_best(repeat: int, *runs: Any) -> list[float]:
    """Best time of each of `runs`, running them in turn `repeat` times (run 1, run 2, run 1, run 2, ...)."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for own, make in zip(times, runs, strict=True):
            gc.collect()
            own.append(asyncio.run(make()))
    return [min(own) for own in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    nodes = args.jobs * 2
    base, ours = interleaved_best(args.repeat, lambda: baseline(nodes), lambda: commander_run(args.jobs))
    per_node, per_task = ours / nodes * 1e6, base / nodes * 1e6
    print(
        f"commander: {args.jobs} jobs x 1 handler = {nodes} nodes in {ours:.3f}s ({per_node:.2f} us/node, "
        f"{ours / args.jobs * 1e6:.2f} us/job)"
    )
    print(f"baseline:  {nodes} no-op TaskGroup tasks in {base:.3f}s ({per_task:.2f} us/task)")
    print(f"result: per_node_us={per_node:.2f} baseline={per_task:.2f} ratio={per_node / per_task:.2f} target=ratio<=2")


if __name__ == "__main__":
    main()
