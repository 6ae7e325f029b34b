"""Benchmark: the passage index (`tui_agent.retrieval`) on a generated tree, against same-run floors.

Generates `--files` text files (Markdown notes and Python modules, ~10 KB each: 10,000 files are ~100 MB) and
measures, each against a baseline run just before it on the same tree:
  - the first index build, as MB/s, against reading every file (walk + read): the floor any index pays;
  - refreshing the unchanged tree (a stat per file, nothing read), against a bare os.scandir walk;
  - the queries (bench/retrieval_queries.py): BM25 and hybrid over 10,000 real files (this Python's library and
    packages) with real questions, each against FTS5's own bare query (or the embedding request) in the same
    run; and this tree's queries, whose 50-word vocabulary puts every word in ~80% of the passages (the worst
    case: FTS5 scores nearly every passage), against the bare FTS5 query of the same words;
  - a BM25 query naming a file's own mark (`t4242`, one sentence "Filed as tN." a file) beside such words, as
    real questions have a rarer word: the common words are left out of the match (`common_words.py`).
Targets: build >= 0.3x the read rate; unchanged refresh <= 1.5x the walk; BM25 <= 50 ms, hybrid <= 100 ms.

    python bench/retrieval.py [--files 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from retrieval_queries import realistic, uniform

from tui_agent.retrieval.index import PassageIndex

WORDS = (
    "backup restore schedule nightly database index query passage citation parser token stream window model "
    "agent tool call approval sandbox branch session history export import config theme plugin server client "
    "retry timeout cache compaction summary budget cost price usage report error failure recovery lock"
).split()
QUERIES = ["restore a backup", "parser token stream", "approval sandbox", "cache compaction summary", "lock timeout"]
RARE_QUERIES = ["restore the backup of t4242", "parser token stream t17", "approval sandbox t9001", "lock timeout t555"]


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def note(rng: random.Random, sections: int = 12) -> str:
    parts = []
    for index in range(sections):
        body = "\n".join(sentence(rng) for _ in range(6))
        parts.append(f"## {rng.choice(WORDS).title()} {index}\n\n{body}\n")
    return "\n".join(parts)


def module(rng: random.Random, functions: int = 16) -> str:
    parts = []
    for index in range(functions):
        body = "\n".join(f"    # {sentence(rng)}" for _ in range(4))
        parts.append(f"def {rng.choice(WORDS)}_{index}(value):\n{body}\n    return value\n")
    return "\n\n".join(parts)


def generate(root: Path, files: int) -> int:
    """Write the tree (100 files a folder); its size in bytes."""
    rng = random.Random(7)
    total = 0
    for index in range(files):
        folder = root / f"part{index // 100:03d}"
        folder.mkdir(exist_ok=True)
        path = folder / (f"note{index}.md" if index % 2 == 0 else f"mod{index}.py")
        text = note(rng) if index % 2 == 0 else module(rng)
        text += f"\nFiled as t{index}.\n" if index % 2 == 0 else f"\n# Filed as t{index}.\n"
        path.write_text(text)
        total += len(text)
    return total


def read_all(root: Path) -> int:
    size = 0
    for folder, _, names in os.walk(root):
        for name in names:
            size += len(Path(folder, name).read_bytes())
    return size


def walk(root: Path) -> int:
    count, stack = 0, [root]
    while stack:
        for entry in os.scandir(stack.pop()):
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            else:
                entry.stat(follow_symlinks=False)
                count += 1
    return count


def timed(run: object) -> float:
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - start


def result(metric: str, value: float, baseline: float, target: str) -> None:
    ratio = value / baseline if baseline else float("inf")
    print(f"result: {metric}={value:.4g} baseline={baseline:.4g} ratio={ratio:.3g} target={target}")


def main(files: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="tui-agent-bench-retrieval-"))
    try:
        tree = folder / "tree"
        tree.mkdir()
        size = generate(tree, files)
        megabytes = size / 1e6
        read_s = timed(lambda: read_all(tree))
        index = PassageIndex(folder / "index.db", [tree])
        build_s = timed(index.refresh)
        walk_s = min(timed(lambda: walk(tree)) for _ in range(3))
        recheck_s = min(timed(index.refresh) for _ in range(3))
        uniform(index, folder / "index.db", QUERIES, result)
        rare = [timed(lambda query=query: index.search(query, 8)) for _ in range(6) for query in RARE_QUERIES]
        rare_ms = statistics.median(rare) * 1000
        files_indexed, passages = index.counts()
        index.close()
        print(
            f"{files:,} files, {megabytes:.1f} MB: read in {read_s:.2f} s ({megabytes / read_s:.0f} MB/s), indexed in "
            f"{build_s:.2f} s ({megabytes / build_s:.1f} MB/s; {files_indexed:,} files, {passages:,} passages); "
            f"unchanged refresh {recheck_s * 1000:.0f} ms against a bare walk of {walk_s * 1000:.0f} ms; "
            f"a query with a rarer word {rare_ms:.2f} ms"
        )
        result("index_mb_per_s", megabytes / build_s, megabytes / read_s, "ratio>=0.3")
        result("unchanged_refresh_ms", recheck_s * 1000, walk_s * 1000, "ratio<=1.5")
        result("bm25_query_rare_word_ms", rare_ms, rare_ms, "value<=50")
        realistic(folder, files, result)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    main(parser.parse_args().files)
