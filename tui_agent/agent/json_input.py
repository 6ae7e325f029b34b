"""Provides `answer_prompts`: `tui-agent -p --input-format stream-json`, several prompts to one session.

Each line of stdin is one JSON object, a user message: `{"type": "user", "text": "..."}`, or Claude Code's
shape `{"type": "user", "message": {"role": "user", "content": "..." | [{"type": "text", "text": "..."}]}}`.
Each is answered as a turn of the same session, in order, its events and its `result` written as
stream-json (`json_output`), before the next line is read. A line that is not such a message is answered
with an `error` line naming it, and skipped: the session goes on. Blank lines are ignored; the run ends at
the end of stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TextIO

from tui_agent.agent.events import AgentEvent
from tui_agent.agent.json_output import JsonPrinter, failure_json, print_json_turn
from tui_agent.agent.team_error import TeamError

BAD_INPUT = 2
"""The exit status when every turn went well but some input line was not a user message."""


def prompt_of(line: str) -> str:
    """The prompt a stdin line carries; ValueError with a sentence saying what is wrong with it."""
    try:
        message = json.loads(line)
    except ValueError as error:
        raise ValueError(f"not JSON ({error})") from None
    if not isinstance(message, dict) or message.get("type") != "user":
        raise ValueError('not a user message (expected {"type": "user", "text": "..."})')
    text = message.get("text")
    if text is None and isinstance(message.get("message"), dict):
        text = content_text(message["message"].get("content"))
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the message has no text")
    return text


def content_text(content: Any) -> str | None:
    """A chat message's content as text: a string, or the text blocks of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return "\n".join(text for text in texts if isinstance(text, str)) or None
    return None


async def stdin_lines(stdin: TextIO) -> AsyncIterator[str]:
    """stdin's lines as they come, read in a thread of their own. A daemon thread, not the loop's executor: at
    Ctrl+C the run ends at once, where `asyncio.run` would wait for the executor's thread, blocked reading a
    line that may never come."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        with contextlib.suppress(RuntimeError):  # the run ended (its loop closed) while a line was read: dropped
            for line in stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, "")  # the end of stdin

    threading.Thread(target=read, name="stdin prompts", daemon=True).start()
    while line := await lines.get():
        yield line


async def answer_prompts(
    agent: Any,
    printer: JsonPrinter,
    err: TextIO,
    lines: AsyncIterator[str],
    turn: Callable[[str], AsyncIterator[AgentEvent]],
) -> int:
    """Answer each prompt of `lines` with `turn(prompt)`; returns the first turn's status that was not 0, else
    `BAD_INPUT` when a line was skipped, else 0. A cancelled turn (130) ends the run."""
    status, skipped, number = 0, False, 0
    async for line in lines:
        number += 1
        if not line.strip():
            continue
        try:
            prompt = prompt_of(line)
        except ValueError as error:
            printer.line({"type": "error", "message": f"input line {number}: {error}; skipped"})
            skipped = True
            continue
        try:
            done: Awaitable[int] = print_json_turn(agent, printer, err, turn(prompt))
            turn_status = await done
        except TeamError as error:
            printer.line(failure_json(str(error), 1))
            turn_status = 1
        status = status or turn_status
        if turn_status == 130:
            break
    return status or (BAD_INPUT if skipped else 0)
