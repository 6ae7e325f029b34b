"""Benchmark: the `@` file picker's first results on a generated tree of 100,000 files.

The tree is 1,000 folders of 100 empty files. The clock runs from `FileIndex.start()` (what the picker does
as it opens) until `best_matches` has results for the empty query (what the picker shows first) and, second
line, for a fuzzy query. Twice: the tree as a plain folder (the walk) and as a git working tree whose files
are in the index (`git ls-files`, so .gitignore holds). The baseline is listing the whole tree with `os.walk`
in the same run: the picker must not wait for the whole list. A third line times one keystroke's filter over
the whole list (it runs in a thread; the frame is never blocked by it).
Targets: first results value <= 100 ms.

    python bench/picker.py [--files N] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tui_agent.ui.file_index import FileIndex, best_matches

PER_FOLDER = 100


def make_tree(root: Path, count: int) -> None:
    for folder in range(count // PER_FOLDER):
        where = root / f"pkg{folder // 50}" / f"module{folder}"
        where.mkdir(parents=True)
        for index in range(PER_FOLDER):
            (where / f"file{index}.py").touch()


def make_git(root: Path) -> None:
    git = ["git", "-C", str(root), "-c", "user.email=b@b", "-c", "user.name=b"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)


def first_results_ms(root: Path, query: str) -> float:
    """From the index's start to the first non-empty matches for `query`."""
    start = time.perf_counter()
    index = FileIndex(root).start()
    try:
        while True:
            files = list(index.files)
            if files and best_matches(query, files):
                return (time.perf_counter() - start) * 1000
            if index.done.is_set() and len(files) == len(index.files):
                raise RuntimeError(f"no match for {query!r} in {len(files)} files")
            time.sleep(0.0005)
    finally:
        index.stop()
        index.done.wait(30)


def walk_all_ms(root: Path) -> float:
    start = time.perf_counter()
    names = [name for _, _, files in os.walk(root) for name in files]
    assert names
    return (time.perf_counter() - start) * 1000


def median(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def report(metric: str, value: float, baseline: float, target: str) -> None:
    print(f"result: {metric}={value:.2f} baseline={baseline:.2f} ratio={value / baseline:.3f} target={target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        plain, repo = Path(folder) / "plain", Path(folder) / "repo"
        make_tree(plain, args.files)
        make_tree(repo, args.files)
        make_git(repo)
        for name, root in (("walk", plain), ("git", repo)):
            baseline = median(args.runs, lambda root=root: walk_all_ms(root))  # type: ignore[misc]
            first = median(args.runs, lambda root=root: first_results_ms(root, ""))  # type: ignore[misc]
            fuzzy = median(args.runs, lambda root=root: first_results_ms(root, "md7fl3"))  # type: ignore[misc]
            report(f"picker_first_results_ms_{name}", first, baseline, "value<=100")
            report(f"picker_first_fuzzy_results_ms_{name}", fuzzy, baseline, "value<=100")
        index = FileIndex(repo).start()
        index.done.wait(60)
        files = list(index.files)
        start = time.perf_counter()
        best_matches("md7fl3", files)
        keystroke = (time.perf_counter() - start) * 1000
        baseline = walk_all_ms(plain)
        print(f"info: one keystroke's filter over {len(files):,} files: {keystroke:.1f} ms (in a thread)")
        report("picker_filter_whole_list_ms", keystroke, baseline, "ratio<=1")


if __name__ == "__main__":
    main()
