"""Benchmark: what recording an edit in history costs (`history/file_rows.py`), against the edit's own write, in
the same run.

A 100 KB text file is edited `--rounds` times, each edit changing one line. Median of each, alternating:
  - the floor: the edit tool's write alone (`tools/edits.py`: planned, written to a temporary file, flushed,
    renamed over);
  - the write and its record: the same, then the change (its content before and after, hashed, each distinct
    content stored once) committed to a real history file, as a turn records it.
Target (issue 29): write + record <= 1.2x the write.

    python bench/edit_recording.py [--rounds 41]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tui_agent.history.store import HistoryStore
from tui_agent.tools.edits import plan_edit, write_atomically

LINE = "value = compute(alpha, beta, gamma)  # a line of ordinary code\n"


def make_file(path: Path) -> None:
    path.write_text("".join(f"{index:06d} {LINE}" for index in range(1600)))  # ~100 KB


async def run(rounds: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="tui-agent-bench-edit-"))
    cwd = os.getcwd()
    os.chdir(folder)
    store = await HistoryStore.open(folder / "history.db")
    try:
        await asyncio.to_thread(make_file, folder / "big.py")
        session = await store.create_session("bench")
        _, reply = await store.begin_turn(session.id, "edit big.py")
        writes: list[float] = []
        recorded: list[float] = []
        for number in range(rounds):
            for times, record in ((writes, False), (recorded, True)):
                old, new = f"{number:06d} {LINE}", f"{number:06d} edited {number} {record}\n"
                planned = plan_edit("big.py", [{"old": old, "new": new}])
                started = time.perf_counter()
                write_atomically(planned)
                if record:
                    await store.record_file_changes(reply.id, f"call-{number}", [planned.change])
                times.append(time.perf_counter() - started)
                planned = plan_edit("big.py", [{"old": new, "new": old}])  # back, not timed
                write_atomically(planned)
    finally:
        await store.close()
        os.chdir(cwd)
        shutil.rmtree(folder, ignore_errors=True)
    value, baseline = statistics.median(recorded) * 1000, statistics.median(writes) * 1000
    print(f"rounds={rounds} file=100KB")
    print(
        f"result: edit_with_record_ms={value:.4g} baseline={baseline:.4g} ratio={value / baseline:.3g} "
        "target=ratio<=1.2"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=41)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
