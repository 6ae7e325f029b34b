"""Benchmark: rendering a streamed markdown reply in the real chat screen, headless, against same-run baselines.

(1) throughput: a 20,000-token markdown answer (headings, lists, code blocks, tables) streamed as fast as
    the offline model sends it (over HTTP, through the real agent and commander) into `TuiAgentApp`'s chat
    screen until fully rendered, against Textual's `Markdown.get_stream()` fed the same text in token-sized
    chunks. Target: >= 5x the baseline's tokens/s. Also the UI alone (a scripted backend, no HTTP).
(2) paced 100 tok/s with 200 prior messages in the log: keypress-to-echo latency p99 (target <= 50 ms;
    baseline: the same stream with an empty log), frame time p95 against the empty log (target <= 5x)
    and CPU share of one core (target <= 25%; its baseline= is the same stream with an empty log, not a
    floor: the floor is printed on an `info:` line, the same turn running as long with nothing streamed,
    keys typed the same way, plus Rich rendering the whole text once, spread over the stream's time).
(3) growth: per-token time of (1) at 20,000 tokens against 2,000 tokens (linear: ratio <= 1.5).
Every run checks that what is displayed holds exactly the source text at the end.

    python bench/render.py [--tokens N] [--seconds S]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import re
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from frames import FRAMES, PAINTED, PROBE
from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.events import (
    AgentEvent,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantTextDelta,
    MessageStatus,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from tui_agent.agent.port import Engine
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.testing.scripted import ScriptedBackend, reply_script
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen

SIZE = (120, 40)
TOKEN = re.compile(r"\s*\S{1,5}|\s+")


# -- the document -------------------------------------------------------------------------------------
def section(n: int) -> str:
    return f"""## Section {n}: findings

The measurement in step {n} shows **steady** progress with *small* variance; see `item_{n}` below.

- first point about run {n}, with a [link](https://example.com/{n})
- second point: values stay within bounds
  - nested detail {n}

```python
def step_{n}(values: list[int]) -> int:
    total = sum(v * {n} for v in values)
    return total // max(len(values), 1)
```

| run | value | note   |
|-----|-------|--------|
| {n} | {n * 7} | stable |
| {n + 1} | {n * 9} | rising |

"""


def document(tokens: int) -> list[str]:
    """Markdown split into token-sized chunks, `tokens` of them."""
    chunks: list[str] = []
    n = 0
    while len(chunks) < tokens:
        n += 1
        chunks.extend(TOKEN.findall(section(n)))
    return chunks[:tokens]


async def settle(pilot: Any, since: float, *, request: bool = False) -> float:
    """Wait for the first frame that ends after `since` (everything up to then is on screen).

    `request`: ask for a frame, for when nothing else may change (a finished stream).
    """
    if request:
        pilot.app.screen.refresh()
    while not FRAMES or FRAMES[-1][0] <= since:
        await asyncio.sleep(0.002)  # not pilot.pause(): it forces frames of its own
    return FRAMES[-1][0]


# -- (1) throughput ------------------------------------------------------------------------------------
async def ours(chunks: list[str]) -> float:
    """Seconds from Enter to the fully rendered reply in the chat screen (scripted backend: the UI alone)."""
    return await enter_to_rendered(ScriptedBackend([reply_script(chunks)]), "".join(chunks))


async def ours_offline(chunks: list[str]) -> float:
    """Seconds from Enter to the fully rendered reply, streamed by the offline model through the real agent."""
    source = "".join(chunks)
    chunk_size = max(1, round(len(source) / len(chunks)))  # the server cuts by characters: token-sized pieces
    with (
        tempfile.TemporaryDirectory() as folder,
        BackgroundServer({"replies": [{"text": source, "chunk_size": chunk_size}]}) as server,
    ):
        settings = Settings(db=Path(folder) / "history.db")
        choice = EndpointChoice(server.base_url, "offline-bench", "bench-key")
        built = await build_agent(settings, choice)
        try:
            return await enter_to_rendered(built, source)
        finally:
            await built.close()


async def enter_to_rendered(engine: Engine, source: str) -> float:
    app = TuiAgentApp(engine, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        screen.prompt_input.insert("go")
        start = time.perf_counter()
        await pilot.press("enter")
        while not screen.idle:
            await asyncio.sleep(0.005)
        end = await settle(pilot, time.perf_counter(), request=True)
        [message] = screen.chat_log.assistant_messages
        check(message.text == source, "chat screen text differs from the source")
        check(message.shown_text() == plain_render(source, message.size.width), "rendered text differs")
    return end - start


def plain_render(source: str, width: int) -> str:
    """The source rendered in one piece by Rich, as plain text: what the finished message must show."""
    console = Console(width=width, color_system=None)
    segments = console.render(RichMarkdown(source), console.options.update_width(width))
    return "\n".join(
        "".join(s.text for s in line).rstrip()
        for line in Segment.split_and_crop_lines(segments, width, include_new_lines=False)
    )


class MarkdownHost(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown()


async def baseline(chunks: list[str]) -> float:
    """Seconds for Textual's Markdown.get_stream() fed the same chunks to render everything."""
    source = "".join(chunks)
    app = MarkdownHost()
    async with app.run_test(size=SIZE) as pilot:
        markdown = app.query_one(Markdown)
        start = time.perf_counter()
        stream = Markdown.get_stream(markdown)
        for chunk in chunks:
            await stream.write(chunk)
        await stream.stop()
        end = await settle(pilot, time.perf_counter(), request=True)
        check(markdown.source == source, "Markdown widget text differs from the source")
    return end - start


# -- (2) paced streaming with a long log ------------------------------------------------------------------
class PacedBackend(ScriptedBackend):
    """Yields one token every 1/rate seconds on an absolute schedule (like a steady model)."""

    def __init__(self, chunks: list[str], rate: float) -> None:
        super().__init__()
        self.chunks, self.rate = chunks, rate

    async def send(self, prompt: str, attachments: Sequence[object] = ()) -> AsyncIterator[AgentEvent]:
        yield TurnStarted("bench", "u1", prompt)
        yield AssistantMessageStarted("paced")
        start = time.perf_counter()
        for index, chunk in enumerate(self.chunks):
            await asyncio.sleep(max(start + index / self.rate - time.perf_counter(), 0))
            yield AssistantTextDelta("paced", chunk)
        yield AssistantMessageFinished("paced", MessageStatus.COMPLETE)
        yield TurnFinished(TurnEndReason.DONE)


class SilentBackend(ScriptedBackend):
    """A turn that runs for `seconds` and streams nothing: what the screen costs with a turn running (the
    status bar's ticking, the keys typed, their frames) before any text arrives."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    async def send(self, prompt: str, attachments: Sequence[object] = ()) -> AsyncIterator[AgentEvent]:
        yield TurnStarted("bench", "u1", prompt)
        yield AssistantMessageStarted("silent")
        await asyncio.sleep(self.seconds)
        yield AssistantMessageFinished("silent", MessageStatus.COMPLETE)
        yield TurnFinished(TurnEndReason.DONE)


async def silent_cpu_share(seconds: float) -> float:
    """CPU share of one core with a turn running `seconds` and nothing streamed, keys typed as in `paced`."""
    app = TuiAgentApp(SilentBackend(seconds), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        _, _, cpu_share = await stream_while_typing(pilot, screen)
    return cpu_share


def render_once_cpu(source: str, width: int) -> float:
    """CPU seconds Rich takes to render `source` once (best of three): what drawing the text costs at least."""
    console = Console(width=width, color_system="truecolor", file=io.StringIO())
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        segments = console.render(RichMarkdown(source), console.options.update_width(width))
        list(Segment.split_and_crop_lines(segments, width, include_new_lines=False))
        best = min(best, time.process_time() - start)
    return best


def add_history(screen: ChatScreen, messages: int) -> None:
    """Prior conversation: `messages` finished messages, half user, half assistant markdown."""
    log = screen.chat_log
    for n in range(messages // 2):
        log.add_user(f"Question {n}: what did step {n} show?")
        old = log.start_assistant(f"old-{n}")
        old.set_text(section(n))
        old.finish(MessageStatus.COMPLETE)


async def paced(prior: int, seconds: float, rate: float = 100.0) -> dict[str, float]:
    chunks = document(int(seconds * rate))
    app = TuiAgentApp(PacedBackend(chunks, rate), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        add_history(screen, prior)
        latencies, frames, cpu_share = await stream_while_typing(pilot, screen)
        message = screen.chat_log.assistant("paced")
        check(message is not None and message.text == "".join(chunks), "paced text differs from the source")
    return {
        "latency_p99": percentile(latencies, 99),
        "frame_p95": percentile(frames, 95),
        "cpu_share": cpu_share,
    }


async def stream_while_typing(pilot: Any, screen: ChatScreen) -> tuple[list[float], list[float], float]:
    """Send a prompt once the app has settled, then press a key every 0.1 s until the turn ends: each key's
    time to echo, the frame times meanwhile (sorted) and the process's CPU share of the wall time."""
    await settle(pilot, time.perf_counter(), request=True)
    await pilot.pause(0.3)
    prompt = screen.prompt_input
    prompt.insert("stream")
    await pilot.press("enter")
    await pilot.pause(0.2)
    FRAMES.clear()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    latencies = []
    while not screen.idle:
        latencies.append(await keypress_to_echo(pilot, lambda: len(prompt.text), screen.app))
        await asyncio.sleep(0.1)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return latencies, sorted(duration for _, duration in FRAMES), cpu / wall


async def keypress_to_echo(pilot: Any, length: Callable[[], int], app: App[Any]) -> float:
    """Seconds from a key arriving at the app to the end of the first frame that paints it."""
    PROBE[:] = [length]
    PAINTED.clear()
    before = length()
    start = time.perf_counter()
    app.post_message(events.Key("x", "x"))
    while not any(probed > before for _, probed in PAINTED):
        await asyncio.sleep(0.001)
    PROBE.clear()
    return next(end for end, probed in PAINTED if probed > before) - start


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"FAILED: {message}")


def result(metric: str, value: float, base: float, target: str, digits: int = 3) -> None:
    ratio = value / base if base else float("inf")
    print(f"result: {metric}={value:.{digits}f} baseline={base:.{digits}f} ratio={ratio:.2f} target={target}")


async def main(tokens: int, seconds: float) -> None:
    chunks = document(tokens)
    small = chunks[: tokens // 10]
    ours_small = await ours(small)
    ours_time = await ours(chunks)
    offline_time = await ours_offline(chunks)
    base_time = await baseline(chunks)
    print(
        f"info: {tokens} tokens: offline model -> chat screen {offline_time:.2f}s, scripted -> chat screen "
        f"{ours_time:.2f}s, Markdown.get_stream {base_time:.2f}s; {len(small)} tokens: scripted {ours_small:.2f}s"
    )
    result("stream_tokens_per_s", tokens / offline_time, tokens / base_time, "ratio>=5", 0)
    result("ui_only_tokens_per_s", tokens / ours_time, tokens / base_time, "ratio>=5", 0)
    empty = await paced(0, seconds)
    long = await paced(200, seconds)
    silent = await silent_cpu_share(seconds)
    paced_text = "".join(document(int(seconds * 100.0)))
    drawing = render_once_cpu(paced_text, SIZE[0] - 4) / seconds
    print(f"info: paced 100 tok/s for {seconds:.0f}s; empty log {fmt(empty)}; 200 prior messages {fmt(long)}")
    print(
        f"info: cpu_share_pct floor {100 * (silent + drawing):.1f}%: the same turn streaming nothing, keys typed "
        f"alike {100 * silent:.1f}%, plus Rich rendering the paced text once {100 * drawing:.1f}% of the "
        f"{seconds:.0f}s"
    )
    result("keypress_echo_p99_ms", long["latency_p99"] * 1000, empty["latency_p99"] * 1000, "value<=50", 1)
    result("frame_p95_ms", long["frame_p95"] * 1000, empty["frame_p95"] * 1000, "ratio<=5", 2)
    result("cpu_share_pct", long["cpu_share"] * 100, empty["cpu_share"] * 100, "value<=25", 1)
    per_token_small, per_token = ours_small / len(small), ours_time / tokens
    result("growth_us_per_token", per_token * 1e6, per_token_small * 1e6, "ratio<=1.5", 1)


def fmt(figures: dict[str, float]) -> str:
    return (
        f"latency p99 {figures['latency_p99'] * 1000:.1f} ms, frame p95 {figures['frame_p95'] * 1000:.2f} ms, "
        f"cpu {figures['cpu_share'] * 100:.1f}%"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=8.0)
    options = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home:
        os.environ.setdefault("TUI_AGENT_HOME", home)  # the prompts it sends stay out of your prompt history
        asyncio.run(main(options.tokens, options.seconds))
    print(f"info: bench took {time.perf_counter() - started:.0f}s")
