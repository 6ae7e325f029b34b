"""Benchmark: stream_chat's per-chunk cost against the raw openai client and a bare SSE reader, same run.

The offline model (in its own process, so it does not share our GIL) serves one reply of 100,000 small
chunks: half text, half the arguments of a tool call whose long `to_user` string streams in 4-character
pieces. (a) reads it raw through `openai.AsyncOpenAI` (touching each chunk's delta); (b) reads it
through `ChatClient.stream_chat` with tool-call assembly and `to_user` decoding; (c) the floor: a bare SSE
reader on the same HTTP library the SDK uses (`httpx2`): the body's bytes split into events, each `data:`
line `json.loads`-ed and its delta touched, nothing else. Best of R runs each, interleaved.
Targets: (b)/(a) <= 1.2, and (b)/(c) <= 1.5. stream_chat sends the request through the openai client but
reads the SSE body itself (strict UTF-8, `json.loads` to dicts), which skips building openai's pydantic
chunk models — the bulk of (a)'s per-chunk cost — so (b)/(a) lands far below 1; against (c), which does
the least any reader must, what is left is stream_chat's own work per chunk (issue 28: the openai SDK
alone was a flattering baseline).

    python bench/stream.py [--chunks N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletionMessageParam

from tui_agent.llm.client import ChatClient
from tui_agent.llm.events import TextDelta, ToolCallReady, ToUserDelta

PIECE = 4
TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "parameters": {
            "type": "object",
            "properties": {"to_user": {"type": "string"}, "location": {"type": "string"}},
            "required": ["location"],
        },
    },
}
MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "stream a lot"}]
SERVE = (
    "import argparse, sys; from tui_agent.offline import cli; p = argparse.ArgumentParser(); "
    "cli.add_parser(p.add_subparsers(dest='command')); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))"
)


def scenario(chunks: int) -> dict[str, Any]:
    """One reply: chunks/2 text pieces, then a tool call whose arguments take chunks/2 pieces."""
    half = chunks // 2
    text = ("Lorem ipsum dolor sit amet. " * (half * PIECE // 28 + 1))[: half * PIECE]
    prefix = '{"to_user": "'
    suffix = '", "location": "Paris"}'
    unit = "Checking \\u00e9 \\n "  # JSON escapes the decoder must resolve, whole units only
    to_user = unit * ((half * PIECE - len(prefix) - len(suffix)) // len(unit))
    arguments = prefix + to_user + suffix
    call = {"name": "get_current_weather", "arguments": arguments}
    return {"replies": [{"text": text, "tool_calls": [call], "chunk_size": PIECE}], "then": "repeat_last"}


def start_server(path: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--scenario", str(path)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, process.stdout.readline().rsplit(" ", 1)[-1].strip()


async def raw_run(base_url: str) -> tuple[float, int]:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench")
    start = time.perf_counter()
    stream = await client.chat.completions.create(
        model="offline",
        messages=MESSAGES,
        tools=[{"type": "function", "function": TOOL["function"]}],
        stream=True,
        stream_options={"include_usage": True},
    )
    count = 0
    async for chunk in stream:
        if chunk.choices:
            _ = chunk.choices[0].delta
        count += 1
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed, count


async def sse_run(base_url: str) -> tuple[float, int]:
    """The floor: read the SSE body with no SDK, `json.loads` each event's data and touch its delta."""
    body = {
        "model": "offline",
        "messages": MESSAGES,
        "tools": [{"type": "function", "function": TOOL["function"]}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    async with httpx2.AsyncClient(timeout=60) as client:
        start = time.perf_counter()
        count = 0
        async with client.stream(
            "POST", f"{base_url}/chat/completions", json=body, headers={"Authorization": "Bearer bench"}
        ) as response:
            pending = b""
            async for block in response.aiter_bytes():
                events = (pending + block).split(b"\n\n")
                pending = events.pop()
                for event in events:
                    data = event.removeprefix(b"data: ")
                    if data == b"[DONE]":
                        continue
                    chunk = json.loads(data)
                    if chunk["choices"]:
                        _ = chunk["choices"][0]["delta"]
                    count += 1
        elapsed = time.perf_counter() - start
    return elapsed, count


async def ours_run(base_url: str) -> tuple[float, int]:
    client = ChatClient(base_url, "offline", api_key="bench")
    start = time.perf_counter()
    events = text = to_user = ready = 0
    async for event in client.stream_chat(MESSAGES, [TOOL]):
        events += 1
        if isinstance(event, TextDelta):
            text += len(event.text)
        elif isinstance(event, ToUserDelta):
            to_user += len(event.text)
        elif isinstance(event, ToolCallReady):
            ready += 1
    elapsed = time.perf_counter() - start
    await client.aclose()
    assert ready == 1 and text > 0 and to_user > 0, "the reply was not fully parsed"
    return elapsed, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.json"
        path.write_text(json.dumps(scenario(args.chunks)))
        process, base_url = start_server(path)
        try:
            asyncio.run(raw_run(base_url))  # warm up: the server renders the reply once
            asyncio.run(sse_run(base_url))
            raw_times, our_times, sse_times = [], [], []
            for _ in range(args.repeat):
                gc.collect()
                sse_time, sse_chunks = asyncio.run(sse_run(base_url))
                gc.collect()
                raw_time, chunks = asyncio.run(raw_run(base_url))
                gc.collect()
                our_time, events = asyncio.run(ours_run(base_url))
                raw_times.append(raw_time)
                our_times.append(our_time)
                sse_times.append(sse_time)
        finally:
            process.terminate()
            process.wait(timeout=10)
    raw, ours, sse = min(raw_times), min(our_times), min(sse_times)
    assert sse_chunks == chunks, f"the bare reader saw {sse_chunks} chunks, the SDK {chunks}"
    print(f"bare SSE:    {chunks} chunks in {sse:.3f}s ({sse / chunks * 1e6:.2f} us/chunk)")
    print(f"raw openai:  {chunks} chunks in {raw:.3f}s ({raw / chunks * 1e6:.2f} us/chunk)")
    print(f"stream_chat: {chunks} chunks -> {events} events in {ours:.3f}s ({ours / chunks * 1e6:.2f} us/chunk)")
    print(f"result: stream_chat_s={ours:.3f} baseline={raw:.3f} ratio={ours / raw:.2f} target=ratio<=1.2")
    print(f"result: stream_chat_vs_bare_sse_s={ours:.3f} baseline={sse:.3f} ratio={ours / sse:.2f} target=ratio<=1.5")


if __name__ == "__main__":
    main()
