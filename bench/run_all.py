"""Run the whole bench suite, one bench at a time, and tell which `result:` lines meet their targets.

Each bench in this folder runs as its own process with its default sizes (a quiet machine gives numbers worth
quoting: the benches compare against same-run baselines, but two cores shared with other work still move the
ratios). Its whole output is kept in `--out` (one `<bench>.txt` each) and every `result:` line is checked
against its own `target=`:
  - `target=ratio<=1.5` / `ratio>=…` / `ratio==…` read the line's `ratio=`;
  - `target=value<=50` reads the metric's own value.
The summary prints one line per result (`met` / `MISSED`), then the benches that failed to run. The exit status
is 1 when a bench failed to run (a missed target is a finding, not a failure of the runner).

    python bench/run_all.py [--only stream,long] [--skip memory] [--out bench-results] [--timeout 1800]
"""

from __future__ import annotations

import argparse
import operator
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = re.compile(r"target=(?P<what>ratio|value)(?P<op><=|>=|==|<|>)(?P<bound>[0-9.]+)")
FIELD = re.compile(r"(?P<key>[A-Za-z_][\w.]*)=(?P<value>-?[0-9.]+(?:e-?[0-9]+)?)")
ENV = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
"""The benches' environment: this interpreter's scripts first (some run `tui-agent` itself)."""
NOT_BENCHES = {"run_all", "frames", "retrieval_queries"}  # helpers of the others (frames, retrieval.py's queries)
COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
    "<": operator.lt,
    ">": operator.gt,
}


@dataclass(frozen=True)
class Verdict:
    """One `result:` line, checked against its target."""

    bench: str
    line: str
    met: bool | None  # None: the line names no target this runner can read

    def shown(self) -> str:
        mark = {True: "met   ", False: "MISSED", None: "?     "}[self.met]
        return f"{mark} {self.bench:16} {self.line.removeprefix('result:').strip()}"


def verdict(bench: str, line: str) -> Verdict:
    """Check one `result:` line: the first field is the metric's value; `ratio=` is the ratio."""
    target = TARGET.search(line)
    fields = FIELD.findall(line.split("target=")[0])
    if target is None or not fields:
        return Verdict(bench, line, None)
    values = dict(fields)
    read = values.get("ratio") if target["what"] == "ratio" else fields[0][1]
    if read is None:
        return Verdict(bench, line, None)
    return Verdict(bench, line, COMPARE[target["op"]](float(read), float(target["bound"])))


def benches(only: set[str], skip: set[str]) -> list[Path]:
    """Every bench script here, in name order."""
    found = sorted(path for path in HERE.glob("*.py") if path.stem not in NOT_BENCHES)
    return [path for path in found if (not only or path.stem in only) and path.stem not in skip]


def run_one(path: Path, out: Path, timeout: float) -> tuple[list[Verdict], str | None]:
    """Run one bench; its verdicts, and why it failed to run (None when it ran)."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=timeout, cwd=HERE.parent, env=ENV
        )
    except subprocess.TimeoutExpired:
        return [], f"not done in {timeout:.0f} s"
    seconds = time.monotonic() - started
    (out / f"{path.stem}.txt").write_text(f"{done.stdout}\n--- stderr ---\n{done.stderr}\n--- {seconds:.0f} s\n")
    lines = [line for line in done.stdout.splitlines() if line.startswith("result:")]
    verdicts = [verdict(path.stem, line) for line in lines]
    if done.returncode != 0:
        return verdicts, f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:] or ''}"
    return verdicts, None if lines else "printed no result: line"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", default="", help="comma-separated bench names (file stems)")
    parser.add_argument("--skip", default="", help="comma-separated bench names to leave out")
    parser.add_argument("--out", type=Path, default=Path("bench-results"))
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds one bench may take")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    verdicts: list[Verdict] = []
    failures: list[str] = []
    for path in benches(set(filter(None, args.only.split(","))), set(filter(None, args.skip.split(",")))):
        started = time.monotonic()
        found, failure = run_one(path, args.out, args.timeout)
        print(f"{path.stem}: {len(found)} results in {time.monotonic() - started:.0f} s", flush=True)
        verdicts += found
        if failure:
            failures.append(f"{path.stem}: {failure}")
    print()
    for one in verdicts:
        print(one.shown())
    met = sum(1 for one in verdicts if one.met)
    print(f"\n{met} of {len(verdicts)} results meet their targets; output in {args.out}/")
    for failure in failures:
        print(f"FAILED TO RUN {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
