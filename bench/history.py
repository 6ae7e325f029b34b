"""Benchmark: the history store against plain sqlite3 doing the same writes and reads, in one run.

Both sides use the same file layout (schema from the store's migrations), the same pragmas (WAL,
synchronous=FULL, foreign keys) and the very same SQL (the store's write functions run directly on a
plain sqlite3 connection, one transaction each). Measures:
  - appending 10,000 messages one awaited call at a time (and concurrently, where writes get grouped);
  - a 100,000-message database: loading the last 50 messages of its largest session, and a search;
  - saving streamed replies with tool calls (begin turn, ~300 ms text saves, tool calls, finish);
  - the event loop's worst lag while the store works, against the same loop's lag when idle (the machine's
    own scheduling noise); plain sqlite3 called inline would block the loop for each transaction instead.
  - opening the 100,000-message database as our last clean close left it, against opening an empty one (the
    whole-file integrity check runs only for a file changed otherwise: `tui_agent/history/check_policy.py`).
Targets: tail <= 50 ms; reply save ratio <= 1.2; open ratio <= 1.2; max loop lag <= 2x the idle loop's own.

    python bench/history.py [--messages 100000] [--appends 10000] [--replies 50]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui_agent.history import rows, writes
from tui_agent.history.models import Message, Usage
from tui_agent.history.redact import Redactor
from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.history.writer import run_batch
from tui_agent.launch import tune_garbage_collector
from tui_agent.status import MessageStatus, Role, ToolStatus

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu weather oslo paris rain sunny "
    "python sqlite stream token reply tool call result session history search index"
).split()
OWNER = "bench"


class LagMeter:
    """Measures how late a 1 ms ticker wakes up: the worst time the loop was blocked."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None
        self._generation = 0

    async def _tick(self) -> None:
        while True:
            start, generation = time.perf_counter(), self._generation
            await asyncio.sleep(0.001)
            if generation == self._generation and generation % 2 == 0:
                self.worst = max(self.worst, time.perf_counter() - start - 0.001)

    def pause(self) -> None:
        """Stop measuring (the baseline is about to block the loop on purpose)."""
        self._generation += 1

    def resume(self) -> None:
        self._generation += 1

    def __enter__(self) -> LagMeter:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


class Plain:
    """Plain sqlite3 on the calling thread, same pragmas and SQL as the store."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON", "busy_timeout = 5000"):
            self.conn.execute(f"PRAGMA {pragma}")

    def write(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        return run_batch(self.conn, [fn])[0][1]

    def close(self) -> None:
        self.conn.close()


def message(session_id: str, role: Role, content: str, status: MessageStatus = MessageStatus.COMPLETE) -> Message:
    now = datetime.now(UTC)
    return Message(writes.new_id(), session_id, -1, role, content, status, None, None, None, now, now)


def sentence(rng: random.Random, n: int = 30) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


@contextmanager
def timed(out: list[float]) -> Iterator[None]:
    start = time.perf_counter()
    yield
    out.append(time.perf_counter() - start)


async def new_db(folder: Path, name: str) -> tuple[HistoryStore, str]:
    store = await HistoryStore.open(folder / name, redactor=Redactor())
    session = await store.create_session("bench")
    return store, session.id


# --- appends -------------------------------------------------------------------------------------------------------


async def bench_appends(folder: Path, count: int) -> dict[str, float]:
    rng = random.Random(1)
    texts = [sentence(rng) for _ in range(count)]
    store, sid = await new_db(folder, "append-store.db")
    with LagMeter() as lag:
        start = time.perf_counter()
        for text in texts:
            await store.append_message(sid, Role.USER, text, MessageStatus.COMPLETE)
        store_s = time.perf_counter() - start
        start = time.perf_counter()
        for chunk in range(0, count, 100):
            await asyncio.gather(
                *(store.append_message(sid, Role.USER, t, MessageStatus.COMPLETE) for t in texts[chunk : chunk + 100])
            )
        grouped_s = time.perf_counter() - start
    await store.close()
    plain_store, plain_sid = await new_db(folder, "append-plain.db")
    await plain_store.close()
    plain = Plain(folder / "append-plain.db")
    start = time.perf_counter()
    for text in texts:
        plain.write(writes.add_messages([message(plain_sid, Role.USER, text)], OWNER))
    plain_s = time.perf_counter() - start
    plain.close()
    return {"store": store_s, "grouped": grouped_s, "plain": plain_s, "lag": lag.worst}


# --- a 100,000-message database --------------------------------------------------------------------------------------


def build_big(path: Path, total: int) -> str:
    """Fill with plain sqlite3 in one transaction: one big session (half), the rest in 100-message sessions."""
    rng = random.Random(2)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    now = time.time()
    sizes = [total // 2] + [100] * ((total - total // 2) // 100)
    largest = ""
    for n, size in enumerate(sizes):
        sid = uuid.uuid4().hex
        largest = largest or sid
        conn.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, ?)",
            (sid, f"session {n}", now - n, now - n, size),
        )
        batch = []
        calls = []
        parent: str | None = None
        for pos in range(size):
            mid = uuid.uuid4().hex
            role = "user" if pos % 2 == 0 else "assistant"
            batch.append((mid, sid, pos, role, sentence(rng), "complete", now, now, parent))
            parent = mid
            if role == "assistant" and pos % 10 == 1:
                calls.append(
                    (mid, "c1", "get_weather", '{"city": "Oslo"}', '{"city": "Oslo"}', "done", "rain", now, now)
                )
        conn.executemany(
            "INSERT INTO messages (id, session_id, position, role, content, status, created_at, "
            "updated_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            batch,
        )
        conn.execute("UPDATE sessions SET active_leaf_id = ? WHERE id = ?", (parent, sid))  # one branch
        conn.executemany(
            "INSERT INTO tool_calls (message_id, call_id, name, raw_arguments, arguments, status, "
            "result, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            calls,
        )
    conn.execute("COMMIT")
    conn.close()
    return largest


async def best_of(n: int, fn: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


async def bench_big(folder: Path, total: int) -> dict[str, float]:
    path = folder / "big.db"
    store = await HistoryStore.open(path, redactor=Redactor())
    await store.close()
    start = time.perf_counter()
    largest = build_big(path, total)
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    store = await HistoryStore.open(path, redactor=Redactor())
    open_s = time.perf_counter() - start
    with LagMeter() as lag:
        tail = await store.load_tail(largest, 50)
        assert len(tail) == 50 and tail[-1].position == total // 2 - 1
        _, store_tail = await best_of(20, lambda: store.load_tail(largest, 50))
        _, store_search = await best_of(10, lambda: store.search("weather oslo", 50))
    await store.close()
    empty = folder / "empty.db"
    await (await HistoryStore.open(empty, redactor=Redactor())).close()
    reopen, empty_open = await open_times(path, empty)  # as our clean close left it: no whole-file check
    plain = Plain(path)

    async def plain_tail() -> None:
        rows.load_tail(plain.conn, largest, None, 50)

    async def plain_search() -> None:
        rows.search(plain.conn, "weather oslo", 50)

    _, plain_tail_s = await best_of(20, plain_tail)
    _, plain_search_s = await best_of(10, plain_search)
    plain.close()
    return {
        "build": build_s,
        "open": open_s,
        "reopen": reopen,
        "empty_open": empty_open,
        "tail": store_tail,
        "plain_tail": plain_tail_s,
        "search": store_search,
        "plain_search": plain_search_s,
        "lag": lag.worst,
    }


async def open_times(*paths: Path, runs: int = 5) -> list[float]:
    """The best time to open (and prepare) the store on each of `paths`, each open closed cleanly after; the
    paths take turns, so that the machine's load falls on each alike. One after the other they gave 1.16-1.25
    on a quiet machine, while each step of the two opens, timed alone, differs by under 2% (the same work: the
    stamp's sampled pages of the big file lie further apart)."""
    best = [float("inf")] * len(paths)
    for run in range(runs):
        for n, path in enumerate(paths):
            start = time.perf_counter()
            store = await HistoryStore.open(path, redactor=Redactor())
            best[n] = min(best[n], time.perf_counter() - start)
            assert not store.report.whole_file_checked or run == 0
            await store.close()
    return best


# --- streamed replies ----------------------------------------------------------------------------------------------

SAVES_PER_REPLY = 10  # a 3 s reply saved every 300 ms
TOOL_CALLS = 3


def reply_texts(rng: random.Random) -> list[str]:
    words = [rng.choice(WORDS) + " " for _ in range(600)]
    step = len(words) // SAVES_PER_REPLY
    return ["".join(words[: step * (i + 1)]) for i in range(SAVES_PER_REPLY)]


async def store_reply(store: HistoryStore, sid: str, texts: list[str]) -> None:
    """Issue the writes the way a turn does: the prompt, each tool call and the end are awaited; text saves
    (StreamingSaver) and tool-status updates (chained in order by the agent) run in the background."""
    _, reply = await store.begin_turn(sid, "what is the weather in Oslo?")
    background: list[asyncio.Task[None]] = []

    def later(write: Awaitable[None]) -> None:
        background.append(asyncio.ensure_future(write))

    for i, text in enumerate(texts):
        later(store.update_streaming_text(reply.id, text))
        if i < TOOL_CALLS:
            await store.record_tool_call(reply.id, f"c{i}", "get_weather", '{"city": "Oslo"}', {"city": "Oslo"})
            later(store.update_tool_call(reply.id, f"c{i}", ToolStatus.RUNNING))
            later(store.update_tool_call(reply.id, f"c{i}", ToolStatus.DONE, result="rain, 9 C"))
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content=texts[-1], usage=Usage(120, 600))
    await asyncio.gather(*background)


async def store_reply_each_awaited(store: HistoryStore, sid: str, texts: list[str]) -> None:
    """The worst case: every write awaited on its own, so nothing can be grouped."""
    _, reply = await store.begin_turn(sid, "what is the weather in Oslo?")
    for i, text in enumerate(texts):
        await store.update_streaming_text(reply.id, text)
        if i < TOOL_CALLS:
            await store.record_tool_call(reply.id, f"c{i}", "get_weather", '{"city": "Oslo"}', {"city": "Oslo"})
            await store.update_tool_call(reply.id, f"c{i}", ToolStatus.RUNNING)
            await store.update_tool_call(reply.id, f"c{i}", ToolStatus.DONE, result="rain, 9 C")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content=texts[-1], usage=Usage(120, 600))


def plain_reply(plain: Plain, sid: str, texts: list[str]) -> None:
    user = message(sid, Role.USER, "what is the weather in Oslo?")
    reply = message(sid, Role.ASSISTANT, "", MessageStatus.STREAMING)
    plain.write(writes.add_messages([user, reply], OWNER))
    for i, text in enumerate(texts):
        plain.write(writes.update_text(reply.id, text))
        if i < TOOL_CALLS:
            plain.write(
                writes.record_tool_call(
                    reply.id, f"c{i}", "get_weather", '{"city": "Oslo"}', {"city": "Oslo"}, ToolStatus.PENDING, OWNER
                )
            )
            plain.write(writes.update_tool_call(reply.id, f"c{i}", ToolStatus.RUNNING, None, None, OWNER))
            plain.write(writes.update_tool_call(reply.id, f"c{i}", ToolStatus.DONE, "rain, 9 C", None, OWNER))
    plain.write(writes.finish_message(reply.id, MessageStatus.COMPLETE, texts[-1], None, Usage(120, 600)))


async def bench_replies(folder: Path, replies: int) -> dict[str, float]:
    rng = random.Random(3)
    texts = [reply_texts(rng) for _ in range(replies)]
    store, sid = await new_db(folder, "reply-store.db")
    plain_store, plain_sid = await new_db(folder, "reply-plain.db")
    await plain_store.close()
    plain = Plain(folder / "reply-plain.db")
    times: dict[str, list[float]] = {"store": [], "each": [], "plain": []}
    transactions = 0
    with LagMeter() as lag:
        for reply in texts:  # interleaved, so every side sees the same disk conditions
            before = store.transactions
            with timed(times["store"]):
                await store_reply(store, sid, reply)
            transactions += store.transactions - before
            with timed(times["each"]):
                await store_reply_each_awaited(store, sid, reply)
            lag.pause()
            with timed(times["plain"]):
                plain_reply(plain, plain_sid, reply)
            lag.resume()
        paced = await paced_reply(store, sid, rng)
    await store.close()
    plain.close()
    return {
        "store": sum(times["store"]),
        "each": sum(times["each"]),
        "plain": sum(times["plain"]),
        "store_tx": transactions / replies,
        "lag": lag.worst,
        **paced,
    }


async def idle_lag(seconds: float) -> float:
    """The loop's worst lag with nothing to do: the machine's own noise, for comparison."""
    with LagMeter() as lag:
        await asyncio.sleep(seconds)
    return lag.worst


async def paced_reply(store: HistoryStore, sid: str, rng: random.Random) -> dict[str, float]:
    """A real-time reply through StreamingSaver: 1,500 tokens at ~2 ms each; count the text writes."""
    _, reply = await store.begin_turn(sid, "tell me a story")
    saver = StreamingSaver(store, reply.id)
    before = store.pending_writes
    writes_seen = 0
    original = store.update_streaming_text

    async def counting(message_id: str, text: str, *more: Any, **options: Any) -> None:
        nonlocal writes_seen
        writes_seen += 1
        await original(message_id, text, *more, **options)

    store.update_streaming_text = counting
    start = time.perf_counter()
    for _ in range(1500):
        saver.push(rng.choice(WORDS) + " ")
        await asyncio.sleep(0.002)
    await saver.finish(MessageStatus.COMPLETE)
    del store.update_streaming_text
    assert store.pending_writes == before
    return {"paced_tokens": 1500, "paced_writes": writes_seen, "paced_s": time.perf_counter() - start}


# --- report --------------------------------------------------------------------------------------------------------


def result(metric: str, value: float, baseline: float, target: str) -> None:
    ratio = value / baseline if baseline else float("inf")
    print(f"result: {metric}={value:.4g} baseline={baseline:.4g} ratio={ratio:.3g} target={target}")


async def main(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="tui-agent-bench-"))
    try:
        appends = await bench_appends(folder, args.appends)
        print(
            f"append {args.appends:,} messages, one awaited call each: store {appends['store']:.2f} s, "
            f"plain sqlite3 {appends['plain']:.2f} s (ratio {appends['store'] / appends['plain']:.2f}); "
            f"100 at a time (grouped into shared transactions): {appends['grouped']:.2f} s "
            f"(ratio {appends['grouped'] / appends['plain']:.2f})"
        )
        big = await bench_big(folder, args.messages)
        print(
            f"{args.messages:,}-message database: built in {big['build']:.1f} s, opened the first time (changed "
            f"by another program: integrity check, recovery) in {big['open'] * 1000:.0f} ms, as our clean close "
            f"left it in {big['reopen'] * 1000:.1f} ms (an empty one: {big['empty_open'] * 1000:.1f} ms)"
        )
        print(
            f"last 50 messages of the largest session: store {big['tail'] * 1000:.2f} ms, "
            f"plain sqlite3 {big['plain_tail'] * 1000:.2f} ms"
        )
        print(
            f"search 'weather oslo' (50 hits): store {big['search'] * 1000:.2f} ms, "
            f"plain sqlite3 {big['plain_search'] * 1000:.2f} ms"
        )
        replies = await bench_replies(folder, args.replies)
        per = 1 + SAVES_PER_REPLY + 3 * TOOL_CALLS + 1
        print(
            f"{args.replies} streamed replies ({per} writes each: turn, {SAVES_PER_REPLY} text saves, "
            f"{TOOL_CALLS} tool calls x3, finish): store {replies['store']:.3f} s in "
            f"{replies['store_tx']:.1f} transactions per reply (writes issued as a turn issues them, grouped), "
            f"plain sqlite3 {replies['plain']:.3f} s in {per} transactions per reply; "
            f"store with every write awaited alone {replies['each']:.3f} s "
            f"(ratio {replies['each'] / replies['plain']:.2f})"
        )
        print(
            f"paced reply: {replies['paced_tokens']:.0f} tokens over {replies['paced_s']:.1f} s saved in "
            f"{replies['paced_writes']:.0f} text writes"
        )
        worst_lag = max(appends["lag"], big["lag"], replies["lag"])
        noise = await idle_lag(2.0)
        plain_block = replies["plain"] / (args.replies * per)
        print(
            f"max event-loop lag while the store works: {worst_lag * 1000:.2f} ms "
            f"(appends {appends['lag'] * 1000:.2f}, tail/search {big['lag'] * 1000:.2f}, replies "
            f"{replies['lag'] * 1000:.2f}; idle loop on this machine: {noise * 1000:.2f} ms; "
            "plain sqlite3 on the loop blocks it "
            f"~{plain_block * 1000:.2f} ms per transaction)"
        )
        result("tail_load_ms_100k", big["tail"] * 1000, big["plain_tail"] * 1000, "value<=50")
        result("reply_save_s", replies["store"], replies["plain"], "ratio<=1.2")
        result("open_ms_100k", big["reopen"] * 1000, big["empty_open"] * 1000, "ratio<=1.2")
        result("max_loop_lag_ms", worst_lag * 1000, noise * 1000, "ratio<=2")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--appends", type=int, default=10_000)
    parser.add_argument("--replies", type=int, default=50)
    tune_garbage_collector()  # as `tui-agent` does at start: the loop lag is the app's (full collections were ~6 ms)
    asyncio.run(main(parser.parse_args()))
