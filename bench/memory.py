"""Benchmark: memory over many turns in the real chat screen (headless), against the engine alone, same run.

The offline model runs in its own process and answers every prompt with the same 3 KB markdown reply
(headings, lists, code, a table) in token-sized pieces. A child process runs `TuiAgentApp` on the real
agent (HTTP, commander, SQLite history) and sends N prompts through the prompt box, one turn after the
other; another child runs the same N turns on the agent alone (no screen: what `-p` does). Each collects
the garbage (`gc.collect()`) and reads its resident set size after the warm-up turns and after the last
turn. The collector is tuned as `tui-agent` tunes it. The warm-up fills the log's window of mounted entries
(`ui/widgets/log_window.py`: 30 to 44 entries, two a turn, the oldest let go at 45, a cycle of 8 turns): it ends
after the first let-go, and the last turn is a whole number of cycles later, so both readings see as much
mounted (between them, the window alone swings by ~2 MB).
Measured: the chat screen's RSS growth from the warm-up to the last turn, against the engine's growth over
the same turns (baseline=); target: value <= the engine's growth + 0.02 MB a turn (what a turn legitimately
leaves in the chat screen: the log's records of its let-go entries, what makes them again when the person
scrolls back, ~200 Python objects holding the prompt and the 3 KB reply). Python's memory blocks
(`sys.getallocatedblocks`) are printed too: RSS also holds what the allocator keeps for reuse.
Also: the objects a full collection cannot free because they were frozen (`gc.freeze()`) while already
garbage, counted by unfreezing at the end (value <= 5,000, against the engine's: what the app's one freeze
at start-up catches, ~1,500 objects whatever the number of turns; a freeze at each turn: 500,000 in 120 turns).
Issue 25: the screen grew ~0.5 MB a turn (120 turns: 51.7 MB, the engine 1.2 MB). Two causes, both gone: the
tuned collector's full collections are rare, so garbage cycles piled up and the allocator kept the memory
they took (now a full collection runs when a turn has ended and nothing waits: `ui/long_lived.py`); and
Textual's `StylesCache.get_inner_outer` cache kept removed widgets' rendered lines, ~0.2 MB a turn up to
1,024 entries, ~500 turns (now cached by colour: `ui/textual_private.py`, docs/upstream/textual-styles-cache.md).
Now (120 turns, twice): 2.7 and 2.8 MB over the last 96 turns, against the engine's 1.2 (limit 3.1).

    python bench/memory.py [--turns N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SIZE = (120, 40)
TARGET_MB_PER_TURN = 0.02
WINDOW_FULL = 24
"""Turns after which the log has let entries go for the first time (and freed them): the warm-up's least."""
WINDOW_CYCLE = 8
"""Turns between two let-goes of the log's window (entries 30 to 44, two a turn)."""
UNREACHABLE_TARGET = 5_000


def reply() -> str:
    """A 3 KB markdown reply: what a turn's rendering, events and history rows are made of."""
    sections = []
    for n in range(1, 5):
        sections.append(
            f"## Step {n}\n\nThe build of `module_{n}` **passed**; see the notes below.\n\n"
            f"- first point about step {n}\n- second point, with a [link](https://example.com/{n})\n\n"
            f"```python\ndef step_{n}(values: list[int]) -> int:\n    return sum(v * {n} for v in values)\n```\n\n"
            f"| run | value |\n|-----|-------|\n| {n} | {n * 7} |\n| {n + 1} | {n * 9} |\n"
        )
    return "\n".join(sections)


def rss_mb() -> float:
    """This process's resident set size now (Linux: /proc; elsewhere the peak, which only grows)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def settled(prefix: str = "") -> dict[str, float]:
    """RSS once the collector has freed what it can (what is left is kept, by references or by freezing), the
    memory blocks Python's objects hold then (RSS also holds what the allocator keeps for reuse), and the objects
    frozen out of the collector's reach; keys prefixed with `prefix`."""
    gc.collect()
    figures = {"rss": rss_mb(), "blocks": sys.getallocatedblocks(), "frozen": gc.get_freeze_count()}
    return {prefix + key: value for key, value in figures.items()}


def frozen_garbage() -> int:
    """Objects that were garbage when frozen: a full collection finds them only once they are unfrozen."""
    gc.collect()
    gc.unfreeze()
    return gc.collect()


# -- the children ------------------------------------------------------------------------------------------
async def child_ui(base_url: str, turns: int, warm: int) -> dict[str, Any]:
    """N turns typed into the chat screen of the real app; RSS after the warm-up turns and after the last."""
    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.agent.services import build_agent
    from tui_agent.config import Settings
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.screens.chat import ChatScreen

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        built = await build_agent(Settings(db=Path(folder) / "history.db"), EndpointChoice(base_url, "bench", "key"))
        app = TuiAgentApp(built, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            began = time.perf_counter()
            whole = 0
            for turn in range(1, turns + 1):
                prompt = f"Turn {turn}: how did the build go?"
                screen.prompt_input.insert(prompt)
                await pilot.press("enter")
                while not (screen.idle and newest_prompt(screen) == prompt):
                    await asyncio.sleep(0.005)
                replies = screen.chat_log.assistant_messages
                whole += bool(replies) and replies[-1].text == reply()
                if turn == warm:
                    figures.update(settled("warm_"))
            figures.update(settled())
            figures.update(seconds=time.perf_counter() - began, replies=whole)
            figures["unreachable"] = frozen_garbage()
        await built.close()
    return figures


def newest_prompt(screen: Any) -> str | None:
    """The newest prompt the log shows (the turn it started is over once the screen is idle after it)."""
    from tui_agent.ui.widgets.messages import UserMessage

    shown = [entry.prompt for entry in screen.chat_log.entries if isinstance(entry, UserMessage)]
    return shown[-1] if shown else None


async def child_engine(base_url: str, turns: int, warm: int) -> dict[str, Any]:
    """The same N turns on the agent alone, no screen (the baseline)."""
    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.agent.events import TurnFinished
    from tui_agent.agent.services import build_agent
    from tui_agent.config import Settings

    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        built = await build_agent(Settings(db=Path(folder) / "history.db"), EndpointChoice(base_url, "bench", "key"))
        began = time.perf_counter()
        for turn in range(1, turns + 1):
            async for event in built.agent.send(f"Turn {turn}: how did the build go?"):
                if isinstance(event, TurnFinished):
                    assert event.error is None, event.error
            if turn == warm:
                figures.update(settled("warm_"))
        figures.update(settled())
        figures["seconds"] = time.perf_counter() - began
        figures["unreachable"] = frozen_garbage()
        await built.close()
    return figures


def child(args: list[str]) -> None:
    from tui_agent.launch import tune_garbage_collector

    tune_garbage_collector()  # as `tui-agent` does at start
    kind, base_url, turns = args[0], args[1], int(args[2])
    run = child_ui if kind == "ui" else child_engine
    print(json.dumps(asyncio.run(run(base_url, turns, warm=warm_up(turns)))))


def warm_up(turns: int) -> int:
    """The warm-up: past the window's first let-go, a whole number of window cycles before the last turn."""
    return WINDOW_FULL + (turns - WINDOW_FULL) % WINDOW_CYCLE


# -- the parent -------------------------------------------------------------------------------------------
@contextmanager
def served() -> Iterator[str]:
    """The offline model in its own process, answering every prompt with `reply()`; yields its base URL."""
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "memory.json"
        scenario.write_text(json.dumps({"replies": [{"text": reply(), "chunk_size": 5}], "then": "repeat_last"}))
        server = subprocess.Popen(
            [sys.executable, "-m", "tui_agent", "serve", "--scenario", str(scenario)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            yield server.stdout.readline().rsplit(" ", 1)[-1].strip()
        finally:
            server.terminate()
            server.wait(10)


def run_child(*args: str) -> dict[str, Any]:
    output = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False)
    lines = [line for line in output.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"FAILED: child {args[0]} said nothing\n{output.stderr[-3000:]}")
    return dict(json.loads(lines[-1]))


def main(turns: int) -> None:
    with served() as url:
        ui = run_child("ui", url, str(turns))
        engine = run_child("engine", url, str(turns))
    measured = turns - warm_up(turns)
    if ui["replies"] != turns:
        print(f"info: the chat screen shows {ui['replies']} of {turns} replies whole (counts as failed)")
        ui["rss"] = float("inf")
    for name, figures in (("chat screen", ui), ("engine alone", engine)):
        print(
            f"info: {name}: {turns} turns in {figures['seconds']:.1f}s; RSS {figures['warm_rss']:.1f} MB after the "
            f"warm-up, {figures['rss']:.1f} MB after the last turn; frozen objects {figures['warm_frozen']:,} -> "
            f"{figures['frozen']:,}, of which garbage: {figures['unreachable']:,}; Python's memory blocks "
            f"{figures['warm_blocks']:,} -> {figures['blocks']:,}",
            flush=True,
        )
    growth, base = ui["rss"] - ui["warm_rss"], engine["rss"] - engine["warm_rss"]
    limit = max(base, 0) + TARGET_MB_PER_TURN * measured
    print(
        f"info: rss_growth_mb over the last {measured} turns; limit {limit:.1f} MB = the engine's growth + "
        f"{TARGET_MB_PER_TURN} MB a turn"
    )
    print(
        f"result: rss_growth_mb={growth:.1f} baseline={base:.1f} ratio={ratio(growth, base):.2f} "
        f"target=value<={limit:.1f}"
    )
    warm = warm_up(turns)
    print(  # issue 28's form: the whole resident set after the last turn against after the warm-up (~20 turns)
        f"result: rss_after_{turns}_turns_mb={ui['rss']:.1f} baseline={ui['warm_rss']:.1f} "
        f"ratio={ratio(ui['rss'], ui['warm_rss']):.3f} target=ratio<=1.15 (baseline: after {warm} turns)"
    )
    garbage, base_garbage = ui["unreachable"], engine["unreachable"]
    print(
        f"result: frozen_garbage_objects={garbage} baseline={base_garbage} ratio={ratio(garbage, base_garbage):.2f} "
        f"target=value<={UNREACHABLE_TARGET}"
    )


def ratio(value: float, base: float) -> float:
    return value / base if base > 0 else float("inf")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=120)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.turns < WINDOW_FULL + WINDOW_CYCLE:
        parser.error(f"--turns must be at least {WINDOW_FULL + WINDOW_CYCLE}: a warm-up and one window cycle")
    with tempfile.TemporaryDirectory() as home:
        os.environ.setdefault("TUI_AGENT_HOME", home)  # the prompts it sends stay out of your prompt history
        if options.child:
            child(options.child)
        else:
            began = time.perf_counter()
            main(options.turns)
            print(f"info: bench took {time.perf_counter() - began:.0f}s")
