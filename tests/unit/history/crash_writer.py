"""Streams a long reply into the history until it is killed; prints each fact once it is committed.

Run by test_crash.py as `python crash_writer.py DB`. Lines: `ready`, `committed <id>`, `turn <id>`,
`tool <call id>`, `saved <chars>`, `finished`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role, ToolStatus

TOKENS = [f"word{i} " for i in range(3000)]
FULL_REPLY = "".join(TOKENS)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(path: Path) -> None:
    store = await HistoryStore.open(path)
    say("ready")
    session = await store.create_session("crash test")
    for n in range(3):
        message = await store.append_message(session.id, Role.USER, f"committed {n}", MessageStatus.COMPLETE)
        say(f"committed {message.id}")
    _, reply = await store.begin_turn(session.id, "please stream", model="offline")
    say(f"turn {reply.id}")
    saver = StreamingSaver(store, reply.id, interval=0.01)
    saved = 0
    for i, token in enumerate(TOKENS):
        saver.push(token)
        if i % 500 == 0:
            await store.record_tool_call(reply.id, f"call{i}", "tool", "{}", {}, status=ToolStatus.RUNNING)
            say(f"tool call{i}")
        await asyncio.sleep(0.0002)
        if saver.saved_length != saved:
            saved = saver.saved_length
            say(f"saved {saved}")
    await saver.finish(MessageStatus.COMPLETE)
    say("finished")
    await store.close()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
