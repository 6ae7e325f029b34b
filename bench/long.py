"""Benchmark: long replies in the real chat screen (headless) against the `-p` path on the same stream.

Every case serves one scripted reply from the offline model running in its own process (`tui-agent serve`).
The `-p` path (parse + store, the floor: its turn alone, timed in a child process around `print_turn` once
the agent is built, so `-p`'s start-up does not pad the floor; `tui-agent -p` from spawn to exit is printed
too, for reference) and the chat screen (in a child process) read the same stream as fast as they can; the
chat screen's clock runs from Enter to the last of the frames that follow once the whole reply is drawn (the
frame rendering its end may ask for one more, to lay it out), and every character sent must be on screen
(drawn text checked). The clock does not wait for Pilot's `press` to return, as it did: `press` waits until
the process is idle, so the chat screen's time included ~50 ms of work done after its last frame (the
history's last writes, a garbage collection while the person reads) on top of a floor whose turn ends ~10 ms
after its last write.

(0) 30 KB replies that are one block: a 400-item list, a code block, a 300-row table, a paragraph
    (target ratio <= 1.5 against `-p`);
(1) a 2 MB reply of long lists in 10-character deltas (ratio <= 1.5); (2) 100,000 one-character deltas
    (ratio <= 1.5); (3) one 5 MB delta (ratio <= 1.5);
(4) keypress-to-echo p99 while (1) streams (value <= 50 ms);
(5) per-byte time of the chat screen at 5 MB against 20 KB (ratio <= 1.5);
(6) peak RSS of (1) against an empty session (value <= 3x empty + 4x the reply);
(7) Esc to ready while (1) streams (a quarter of it drawn): from Esc to the first frame showing a key
    typed once the turn is over (value <= 100 ms);
(8) keypress-to-echo p99 after a 1 MB single-line paste into the prompt (value <= 50 ms);
(9) a tool result of 50 MB (a plugin's, capped for the model; see `HUGE_TOOL`): the event loop's longest block
    while the turn runs, and so the longest wait of a key or a frame (value <= 17 ms, one frame at 60 per
    second), against the same loop's longest block before the turn (baseline=).
Key echo in (4) and (7) is compared with key echo before the stream, in the same process (baseline=).

    python bench/long.py [--quick] [--timeout S] [--only 0,1,...]   (--quick: smaller sizes, for a first look)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

SIZE = (120, 40)
HERE = Path(__file__).parent


# -- the documents -------------------------------------------------------------------------------------
def one_list(size: int) -> str:
    text, n = "# Files changed\n\n", 0
    while len(text) < size:
        n += 1
        text += f"- item {n}: `src/pkg/module_{n}.py` keeps the parser\n"
    return text


def one_code_block(size: int) -> str:
    text, n = "```python\n", 0
    while len(text) < size:
        n += 1
        text += f"def step_{n}(values):  return sum(v * {n} for v in values) // {n}\n"
    return text + "```\n"


def one_table(rows: int) -> str:
    lines = ["| run | value | note |", "|-----|-------|------|"]
    lines += [f"| {n} | {n * 7} | a note about run {n} that takes some room |" for n in range(rows)]
    return "\n".join(lines) + "\n"


def one_paragraph(size: int) -> str:
    words: list[str] = []
    n = 0
    while sum(map(len, words)) + len(words) < size:
        n += 1
        words.append(f"word{n} is *fine*" if n % 7 == 0 else f"word{n}")
    return " ".join(words) + "\n"


def long_lists(size: int) -> str:
    """Markdown of long lists (a heading, then 400 items), `size` characters."""
    parts, n = [], 0
    total = 0
    while total < size:
        if n % 400 == 0:
            parts.append(f"\n## Part {n // 400 + 1}\n\n")
        n += 1
        parts.append(f"- line {n}: the build step wrote `out/file_{n}.o` in {n % 97} ms\n")
        total += len(parts[-1])
    return "".join(parts).lstrip("\n")


# -- child processes -------------------------------------------------------------------------------------
async def child_print(base_url: str) -> dict[str, Any]:
    """The `-p` path on the stream: build the agent, time one turn written to a null sink."""
    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.agent.headless import print_turn
    from tui_agent.agent.services import build_agent
    from tui_agent.config import Settings

    with tempfile.TemporaryDirectory() as folder, open(os.devnull, "w") as sink:  # noqa: ASYNC230
        settings = Settings(db=Path(folder) / "history.db")
        built = await build_agent(settings, EndpointChoice(base_url, "offline-bench", "bench-key"))
        try:
            start = time.perf_counter()
            status = await print_turn(built.agent, "go", sink, sink)
            seconds = time.perf_counter() - start
        finally:
            await built.close()
    return {"seconds": seconds, "status": status}


async def child_tui(base_url: str | None, expect: int, probe: str, limit: float) -> dict[str, Any]:
    """The chat screen on the stream: seconds from Enter to drawn, key echo latencies, peak RSS.

    `probe`: "probe" types keys while the stream runs, "esc" presses Esc once a quarter is drawn, "-" neither."""
    from frames import FRAMES
    from render import keypress_to_echo, settle

    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.agent.services import build_agent
    from tui_agent.config import Settings
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.screens.chat import ChatScreen

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(db=Path(folder) / "history.db")
        choice = EndpointChoice(base_url or "http://127.0.0.1:9", "offline-bench", "bench-key")
        built = await build_agent(settings, choice)
        app = TuiAgentApp(built, cursor_blink=False)
        figures: dict[str, Any] = {}
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            await pilot.pause(0.2)
            if base_url is None:  # the empty session: only what the screen costs
                figures["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                await built.close()
                return figures
            prompt = screen.prompt_input
            figures["idle_latencies"] = [
                await keypress_to_echo(pilot, lambda: len(prompt.text), app) for _ in range(30 if probe != "-" else 0)
            ]
            prompt.clear()
            prompt.insert("go")
            rendering = timed_markdown()
            start = time.perf_counter()
            pressing = asyncio.create_task(pilot.press("enter"))  # it returns once every queue is empty: later
            while prompt.text and not pressing.done():
                await asyncio.sleep(0.001)  # the prompt is sent: the turn runs
            latencies: list[float] = []
            deadline = start + limit
            while not drawn(screen) and time.perf_counter() < deadline:
                if probe == "probe":
                    latencies.append(await keypress_to_echo(pilot, lambda: len(prompt.text), app))
                    await asyncio.sleep(0.01)
                elif probe == "esc" and "esc_ready" not in figures and shown(screen) > expect // 4:
                    figures["esc_ready"] = await escape_to_ready(pilot, screen, lambda: len(prompt.text))
                else:
                    await asyncio.sleep(0.005)
            end = await last_frame(await settle(pilot, time.perf_counter(), request=True), deadline)
            await pressing  # not timed: Pilot's `press` returns once the process is idle (see the docstring)
            message = screen.chat_log.assistant_messages[-1] if screen.chat_log.assistant_messages else None
            rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before checking renders it all
            figures.update(
                seconds=end - start,
                finished=drawn(screen),
                latencies=latencies,
                frames=len(FRAMES),
                frames_s=sum(took for ended, took in FRAMES if start < ended <= end),
                markdown_s=rendering[0],
                received=len(message.text) if message else 0,
                expected=expect,
                exact=message is not None and len(message.text) == expect and shown_matches(message),
                rss_mb=rss_mb,
            )
        await built.close()
    return figures


async def child_paste(size: int) -> dict[str, Any]:
    """Key echo before and after a paste of `size` characters on one line into the prompt of an empty session."""
    from render import keypress_to_echo
    from textual import events

    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.agent.services import build_agent
    from tui_agent.config import Settings
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.screens.attach_paste import AttachPasteScreen
    from tui_agent.ui.screens.chat import ChatScreen

    with tempfile.TemporaryDirectory() as folder:
        built = await build_agent(Settings(db=Path(folder) / "history.db"), EndpointChoice(None, "offline"))
        app = TuiAgentApp(built, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            await pilot.pause(0.2)
            prompt = screen.prompt_input

            def length() -> int:
                return len(prompt.text)

            idle = [await keypress_to_echo(pilot, length, app) for _ in range(30)]
            start = time.perf_counter()
            app.post_message(events.Paste("w" * (size - 1) + "."))
            while length() < 30 + 5:  # the paste (or what stands for it) is in the box
                if isinstance(app.screen, AttachPasteScreen):  # offered as a file: paste it anyway, the costly way
                    app.screen.action_choose("paste")
                await asyncio.sleep(0.001)
            pasted = time.perf_counter() - start
            after = [await keypress_to_echo(pilot, length, app) for _ in range(60)]
        await built.close()
    return {"idle_latencies": idle, "latencies": after, "paste_s": pasted}


HUGE_TOOL = '''"""A tool whose result is a file of {size:,} characters (bench/long.py case 9)."""

from tui_agent.tools import tool


@tool(approval="never")
def huge_output() -> list[str]:
    """Return a very long text, a megabyte at a time."""
    with open({path!r}, encoding="utf-8") as file:
        return list(iter(lambda: file.read(1 << 20), ""))
'''
"""The plugin case 9 installs: it reads its result from a file, as a tool reading a big file or log does, and
returns it as a list of 1 MB texts. One 50 MB text would be decoded in one call of ~25 ms during which the
interpreter runs no other thread, the UI's included: that is the tool's own cost (a tool may return a list to
avoid it), while what the app does with the result (turning it into capped text, storing, showing it) is this
case's measure."""


async def child_tool(base_url: str, limit: float) -> dict[str, Any]:
    """The chat screen on a turn whose tool returns a huge result: the loop's longest block before and during it."""
    from tui_agent import paths
    from tui_agent.agent.endpoint import EndpointChoice
    from tui_agent.agent.services import build_agent
    from tui_agent.config import Settings
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.screens.chat import ChatScreen

    plugins = paths.user_plugins_dir()
    plugins.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        result = Path(folder) / "result.txt"
        result.write_text(("a line of a huge tool result, " * 3 + "\n") * (TOOL_RESULT // 91), encoding="utf-8")
        (plugins / "huge.py").write_text(HUGE_TOOL.format(size=TOOL_RESULT, path=str(result)), encoding="utf-8")
        settings = Settings(db=Path(folder) / "history.db")
        built = await build_agent(settings, EndpointChoice(base_url, "offline-bench", "bench-key"))
        app = TuiAgentApp(built, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            await pilot.pause(0.2)
            screen.prompt_input.insert("warm up")  # a first turn imports what turns use: not this case's cost
            await pilot.press("enter")
            while not (screen.idle and screen.chat_log.assistant_messages):
                await asyncio.sleep(0.01)
            await pilot.pause(0.2)
            with LoopBlocks() as idle:
                await asyncio.sleep(1.0)
            screen.prompt_input.insert("go")
            start = time.perf_counter()
            with LoopBlocks() as during:
                await pilot.press("enter")
                while not (screen.idle and screen.chat_log.assistant_messages) and time.perf_counter() - start < limit:
                    await asyncio.sleep(0.01)
            replies = [reply.text for reply in screen.chat_log.assistant_messages]
        await built.close()
    return {"idle_block": idle.worst, "block": during.worst, "seconds": time.perf_counter() - start, "replies": replies}


class LoopBlocks:
    """The longest time the event loop went without running a 1 ms ticker (what a key or a frame waits at most)."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - start - 0.001)

    def __enter__(self) -> LoopBlocks:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def timed_markdown() -> list[float]:
    """Time every markdown render of the chat screen from now on (Rich making a piece's or a tail's lines,
    in flushes and frames alike); returns the running total, in seconds, as a one-item list."""
    from tui_agent.ui.widgets.markdown_view import MarkdownView

    total = [0.0]
    render = MarkdownView._render_markdown

    def timed(view: MarkdownView, source: str, width: int) -> list[Any]:
        began = time.perf_counter()
        try:
            return render(view, source, width)
        finally:
            total[0] += time.perf_counter() - began

    MarkdownView._render_markdown = timed  # type: ignore[method-assign,assignment]
    return total


async def escape_to_ready(pilot: Any, screen: Any, length: Any) -> float:
    """Seconds from Esc to the first frame that shows a key typed as soon as the turn is over."""
    from render import keypress_to_echo
    from textual import events

    start = time.perf_counter()
    pilot.app.post_message(events.Key("escape", None))
    while not screen.idle:
        await asyncio.sleep(0.001)
    await keypress_to_echo(pilot, length, pilot.app)
    return time.perf_counter() - start


async def last_frame(after: float, deadline: float) -> float:
    """The end of the last of the frames that follow one another from the frame ending at `after` (none more
    for `QUIET` seconds): the frame that renders a reply's end can ask for one more, to lay it out at its
    pieces' real heights."""
    from frames import FRAMES

    end = after
    while time.perf_counter() < deadline:
        await asyncio.sleep(QUIET)
        if FRAMES[-1][0] == end:
            break
        end = FRAMES[-1][0]
    return end


QUIET = 0.05
"""Seconds without a frame after which the screen counts as settled (frames come every 1/60 s while any is
asked for)."""


def shown(screen: Any) -> int:
    """Characters of the reply drawn so far."""
    replies = screen.chat_log.assistant_messages
    return len(replies[-1].text) if replies else 0


def drawn(screen: Any) -> bool:
    """The turn is over and every reply is drawn (no part of it waits to be settled)."""
    replies = screen.chat_log.assistant_messages
    return bool(screen.idle and replies and all(getattr(reply, "drawn", True) for reply in replies))


def shown_matches(message: Any) -> bool:
    """Every character sent is drawn, in order: the sent text without whitespace and markdown syntax is a
    subsequence of the drawn text without whitespace (rendering adds bullets and borders, and wraps lines)."""
    drawn = iter("".join(message.shown_text().split()))
    source = "\n".join(line for line in message.text.splitlines() if not line.startswith("```"))
    sent = "".join(source.split()).translate(MARKUP)
    return all(char in drawn for char in sent)


MARKUP = str.maketrans("", "", "`*|-#_")


# -- the parent -------------------------------------------------------------------------------------------
@contextmanager
def served(text: str, chunk_size: int, *, replies: list[dict[str, Any]] | None = None) -> Iterator[str]:
    """The offline model in its own process, serving `text` to every request (or `replies`, in turn, then the
    last again); yields its base URL."""
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "long.json"
        replies = replies or [{"text": text, "chunk_size": chunk_size}]
        scenario.write_text(json.dumps({"replies": replies, "then": "repeat_last"}), encoding="utf-8")
        server = subprocess.Popen(
            [sys.executable, "-m", "tui_agent", "serve", "--scenario", str(scenario)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            yield line.rsplit(" ", 1)[-1].strip()
        finally:
            server.terminate()
            server.wait(10)


def run_child(*args: str, timeout: float) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", *args, "--timeout", str(timeout)],
        capture_output=True,
        text=True,
        timeout=timeout + 120,
        check=False,
    )
    lines = [line for line in output.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"FAILED: child {args[0]} said nothing\n{output.stderr[-3000:]}")
    return dict(json.loads(lines[-1]))


def print_path(url: str, timeout: float) -> float:
    """Seconds `tui-agent -p` takes for the stream, start-up included (printed for reference, not the floor)."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tui_agent",
                "--base-url",
                url,
                "--model",
                "offline-bench",
                "--db",
                str(Path(folder) / "history.db"),
                "-p",
                "go",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=True,
            env={**os.environ, "OPENAI_API_KEY": "bench-key"},
        )
        return time.perf_counter() - start


def case(name: str, text: str, chunk_size: int, timeout: float, *, probe: str = "-") -> dict[str, Any]:
    with served(text, chunk_size) as url:
        turn = run_child("print", url, timeout=timeout)["seconds"]
        whole = print_path(url, timeout)
        ours = run_child("tui", url, str(len(text)), probe, timeout=timeout)
    ours["floor"] = turn  # the turn alone: start-up is not part of drawing a reply
    drawn = "drawn" if ours["finished"] else f"NOT finished after {timeout:.0f}s"
    print(
        f"info: {name}: {len(text) / 1000:.0f} KB in {chunk_size}-char deltas: -p's turn {turn:.2f}s "
        f"(spawn to exit {whole:.2f}s), "
        f"chat screen {ours['seconds']:.2f}s ({drawn}, text {'exact' if ours['exact'] else 'DIFFERS'}, "
        f"{ours['received']:,} of {len(text):,} chars), peak RSS {ours['rss_mb']:.0f} MB; of its time, "
        f"{ours['markdown_s']:.2f}s rendering markdown, {ours['frames_s']:.2f}s in frames (rendering there included)",
        flush=True,
    )
    return ours


def ratio_line(metric: str, ours: dict[str, Any]) -> None:
    value, base = ours["seconds"], ours["floor"]
    complete = ours["finished"] and ours["exact"]
    if not complete:
        print(f"info: {metric}: the reply was not drawn whole (counts as failed)", flush=True)
        value = float("inf")
    print(f"result: {metric}={value:.2f} baseline={base:.2f} ratio={value / base:.2f} target=ratio<=1.5", flush=True)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def main(quick: bool, timeout: float, only: set[str]) -> None:
    kb = 1000

    def want(name: str) -> bool:
        return not only or name in only

    if want("0"):
        for name, text in [
            ("list_400_items", one_list(30 * kb)),
            ("code_block", one_code_block(30 * kb)),
            ("table_300_rows", one_table(300)),
            ("paragraph", one_paragraph(30 * kb)),
        ]:
            ratio_line(f"{name}_30kb_s", case(name, text, 10, timeout))
    if want("1") or want("4") or want("6"):
        size = 200 * kb if quick else 2000 * kb
        ours = case("long lists", long_lists(size), 10, timeout, probe="probe")
        ratio_line(f"lists_{size // kb}kb_s", ours)
        echo_line(ours)
        empty = run_child("tui", "-", "0", "-", timeout=timeout)["rss_mb"]
        rss_line("peak_rss_mb", ours["rss_mb"], empty, 3 * empty + 4 * size / 1e6)
    if want("7"):
        size = 200 * kb if quick else 2000 * kb
        ours = case("Esc during long lists", long_lists(size), 10, timeout, probe="esc")
        idle = percentile(ours["idle_latencies"], 50) * 1000
        ready = ours.get("esc_ready", float("inf")) * 1000
        print(
            f"result: esc_to_ready_ms={ready:.1f} baseline={idle:.1f} ratio={ready / idle:.2f} target=value<=100",
            flush=True,
        )
    if want("2"):
        text = long_lists(10 * kb if quick else 100 * kb)[: 10_000 if quick else 100_000]
        ratio_line("one_char_deltas_s", case("one-character deltas", text, 1, timeout))
    if want("3"):
        size = 500 * kb if quick else 5000 * kb
        text = long_lists(size)
        ratio_line(f"one_delta_{size // kb}kb_s", case("one delta", text, len(text), timeout))
    if want("5"):
        small_text, big_text = long_lists(20 * kb), long_lists(500 * kb if quick else 5000 * kb)
        small, big = case("growth small", small_text, 10, timeout), case("growth big", big_text, 10, timeout)
        per_small, per_big = small["seconds"] / len(small_text), big["seconds"] / len(big_text)
        print(
            f"result: growth_us_per_kb={per_big * 1e9:.1f} baseline={per_small * 1e9:.1f} "
            f"ratio={per_big / per_small:.2f} target=ratio<=1.5",
            flush=True,
        )
        empty = run_child("tui", "-", "0", "-", timeout=timeout)["rss_mb"]
        rss_line(f"peak_rss_{len(big_text) // kb}kb_mb", big["rss_mb"], empty, 3 * empty + 4 * len(big_text) / 1e6)
    if want("8"):
        size = 100 * kb if quick else 1000 * kb
        ours = run_child("paste", str(size), timeout=timeout)
        print(f"info: a {size // kb} KB single-line paste was in the prompt box after {ours['paste_s'] * 1000:.0f} ms")
        echo_line(ours, "keypress_after_paste_p99_ms", "after the paste")
    if want("9"):
        tool_case(timeout)


TOOL_RESULT = 50_000_000
"""Characters of case 9's tool result."""


def tool_case(timeout: float) -> None:
    replies: list[dict[str, Any]] = [
        {"text": "Ready."},
        {"tool_calls": [{"name": "huge_output", "arguments": {}}]},
        {"text": "The tool said a lot.", "chunk_size": 8},
    ]
    with served("", 1, replies=replies) as url:
        ours = run_child("tool", url, timeout=timeout)
    finished = ours["replies"][-1:] == ["The tool said a lot."]
    block, idle = ours["block"] * 1000, ours["idle_block"] * 1000
    print(
        f"info: a turn with a {TOOL_RESULT // 1_000_000} MB tool result took {ours['seconds']:.2f}s "
        f"({'answered' if finished else 'NOT answered: counts as failed'}); the loop's longest block "
        f"{block:.1f} ms (before the turn {idle:.1f} ms)",
        flush=True,
    )
    block = block if finished else float("inf")
    print(
        f"result: tool_result_{TOOL_RESULT // 1_000_000}mb_loop_block_ms={block:.1f} baseline={idle:.1f} "
        f"ratio={block / idle:.2f} target=value<=17",
        flush=True,
    )


def echo_line(ours: dict[str, Any], metric: str = "keypress_echo_p99_ms", when: str = "during the stream") -> None:
    """Key echo while the stream runs (or `when`) against key echo before it (the same process, the same screen)."""
    during, idle = ours["latencies"], ours["idle_latencies"]
    p99, base = percentile(during, 99) * 1000, percentile(idle, 99) * 1000
    print(
        f"info: {len(during)} keypresses {when}: p50 {percentile(during, 50) * 1000:.1f} ms, "
        f"max {max(during or [0]) * 1000:.1f} ms; {len(idle)} before it: p50 {percentile(idle, 50) * 1000:.1f} ms"
    )
    print(f"result: {metric}={p99:.1f} baseline={base:.1f} ratio={p99 / base:.2f} target=value<=50", flush=True)


def rss_line(metric: str, rss: float, empty: float, limit: float) -> None:
    """Peak RSS against the empty session's; the target is 3x the empty session plus 4x the reply."""
    print(f"info: {metric}: limit {limit:.0f} MB = 3 x {empty:.0f} MB (empty session) + 4 x the reply", flush=True)
    print(
        f"result: {metric}={rss:.0f} baseline={empty:.0f} ratio={rss / empty:.2f} target=value<={limit:.0f}", flush=True
    )


def child(args: list[str], timeout: float) -> None:
    from tui_agent.launch import tune_garbage_collector

    tune_garbage_collector()  # as `tui-agent` does at start (resume.py and history.py do too)
    if args[0] == "print":
        figures = asyncio.run(child_print(args[1]))
    elif args[0] == "paste":
        figures = asyncio.run(child_paste(int(args[1])))
    elif args[0] == "tool":
        figures = asyncio.run(child_tool(args[1], timeout))
    else:
        url = None if args[1] == "-" else args[1]
        figures = asyncio.run(child_tui(url, int(args[2]), args[3], timeout))
    print(json.dumps(figures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a first look")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds before a case counts as failed")
    parser.add_argument("--only", default="", help="comma-separated case numbers, e.g. 0,1,7")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ.setdefault("TUI_AGENT_HOME", home)
        if options.child:
            child(options.child, options.timeout)
        else:
            began = time.perf_counter()
            main(options.quick, options.timeout, set(filter(None, options.only.split(","))))
            print(f"info: bench took {time.perf_counter() - began:.0f}s")
