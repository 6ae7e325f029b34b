"""Benchmark: four sub-agents streaming at once into their calls' panels in the real chat screen, headless.

The caller's reply asks four agents (`ask_*` calls); each sub-agent then streams markdown at 100 tok/s, with a
tool call of its own every 50 tokens, as a delegation's events reach the screen (each wrapped in a
`SubAgentEvent`). The baseline is one agent streaming its reply alone at 100 tok/s, same run. Measured while
they stream: keypress-to-echo p99 (target value <= 50 ms), frame time p95, and CPU share of one core (four
streams against one: target ratio <= 4). Every run checks the panels end with their sub-agents' last lines.

    python bench/subagents.py [--seconds S] [--agents N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections.abc import AsyncIterator, Sequence

from render import SIZE, PacedBackend, check, document, percentile, result, stream_while_typing

from tui_agent.agent.events import (
    AgentEvent,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantTextDelta,
    MessageStatus,
    SubAgentEvent,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.tool_call import ToolCall
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen

AGENTS = ("researcher", "coder", "writer", "critic", "planner", "tester")
TOOL_EVERY = 50


class PacedSubAgents(ScriptedBackend):
    """One reply asking `agents` sub-agents, which then stream `chunks` each at `rate` tokens/s, interleaved."""

    def __init__(self, chunks: list[str], rate: float, agents: int) -> None:
        super().__init__()
        self.chunks, self.rate, self.asked = chunks, rate, AGENTS[:agents]

    async def send(self, prompt: str, attachments: Sequence[object] = ()) -> AsyncIterator[AgentEvent]:
        yield TurnStarted("bench", "u1", prompt)
        yield AssistantMessageStarted("m1")
        asks = {agent: self._ask(agent, ToolStatus.RUNNING) for agent in self.asked}
        for ask in asks.values():
            yield ToolCallUpdated(ask)
        for agent in self.asked:
            yield self._wrap(agent, TurnStarted(f"sub-{agent}", f"su-{agent}", "go"))
            yield self._wrap(agent, AssistantMessageStarted(f"s-{agent}"))
        start = time.perf_counter()
        for index, chunk in enumerate(self.chunks):
            await asyncio.sleep(max(start + index / self.rate - time.perf_counter(), 0))
            for agent in self.asked:
                yield self._wrap(agent, AssistantTextDelta(f"s-{agent}", chunk))
                if index % TOOL_EVERY == TOOL_EVERY - 1:
                    yield self._wrap(agent, ToolCallUpdated(self._tool(agent, index)))
        for agent, ask in asks.items():
            yield self._wrap(agent, AssistantMessageFinished(f"s-{agent}", MessageStatus.COMPLETE))
            yield self._wrap(agent, TurnFinished(TurnEndReason.DONE))
            yield ToolCallUpdated(ask.replace(status=ToolStatus.DONE, finished_at=time.monotonic(), result="ok"))
        yield AssistantMessageFinished("m1", MessageStatus.COMPLETE)
        yield TurnFinished(TurnEndReason.DONE)

    @staticmethod
    def _ask(agent: str, status: ToolStatus) -> ToolCall:
        return ToolCall(
            f"c-{agent}", f"ask_{agent}", '{"task": "go"}', message_id="m1", status=status, started_at=time.monotonic()
        )

    @staticmethod
    def _tool(agent: str, index: int) -> ToolCall:
        now = time.monotonic()
        return ToolCall(
            f"t{index}",
            "read_file",
            '{"path": "notes.md"}',
            message_id=f"s-{agent}",
            status=ToolStatus.DONE,
            started_at=now,
            finished_at=now,
            result="ok",
        )

    @staticmethod
    def _wrap(agent: str, event: AgentEvent) -> SubAgentEvent:
        return SubAgentEvent(("m1", f"c-{agent}"), agent, f"sub-{agent}", event)


async def paced(backend: ScriptedBackend) -> dict[str, float]:
    app = TuiAgentApp(backend, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        latencies, frames, cpu_share = await stream_while_typing(pilot, screen)
        if isinstance(backend, PacedSubAgents):
            await pilot.pause(0.3)
            lines = len("".join(backend.chunks).strip().splitlines())
            for panel in screen.tool_panels.panels:  # a finished sub-agent's text is counted; its answer shown
                shown = str(panel.render())
                check(
                    f"its text: {lines} lines" in shown and shown.rstrip().endswith("ok"), f"{panel.call.name}: {shown}"
                )
    return {"latency_p99": percentile(latencies, 99), "frame_p95": percentile(frames, 95), "cpu_share": cpu_share}


def fmt(figures: dict[str, float]) -> str:
    return (
        f"latency p99 {figures['latency_p99'] * 1000:.1f} ms, frame p95 {figures['frame_p95'] * 1000:.2f} ms, "
        f"cpu {figures['cpu_share'] * 100:.1f}%"
    )


async def main(seconds: float, agents: int, rate: float = 100.0) -> None:
    chunks = document(int(seconds * rate))
    alone = await paced(PacedBackend(chunks, rate))
    many = await paced(PacedSubAgents(chunks, rate, agents))
    print(f"info: {rate:.0f} tok/s for {seconds:.0f}s; one agent alone {fmt(alone)}; {agents} sub-agents {fmt(many)}")
    result("keypress_echo_p99_ms", many["latency_p99"] * 1000, alone["latency_p99"] * 1000, "value<=50", 1)
    result("frame_p95_ms", many["frame_p95"] * 1000, alone["frame_p95"] * 1000, "ratio<=5", 2)
    result("cpu_share_pct", many["cpu_share"] * 100, alone["cpu_share"] * 100, f"ratio<={agents}", 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--agents", type=int, default=4)
    options = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home:
        os.environ.setdefault("TUI_AGENT_HOME", home)  # the prompts it sends stay out of your prompt history
        asyncio.run(main(options.seconds, options.agents))
    print(f"info: bench took {time.perf_counter() - started:.0f}s")
