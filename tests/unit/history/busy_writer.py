"""One of two processes writing to the same history file at once (run by test_two_process.py).

Usage: `python busy_writer.py DB SHARED_SESSION_ID SECONDS`. Prints one JSON line at the end: the ids of
every message it wrote, its notices and how many writes were left unsaved.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role, ToolStatus


async def main(path: Path, shared_id: str, seconds: float) -> None:
    store = await HistoryStore.open(path)
    own = await store.create_session("worker")
    ids: list[str] = []
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        user, reply = await store.begin_turn(own.id, f"prompt {n}")
        saver = StreamingSaver(store, reply.id, interval=0.005)
        for word in ("alpha ", "beta ", "gamma "):
            saver.push(word)
            await asyncio.sleep(0.003)
        await store.record_tool_call(reply.id, "c", "tool", "{}", {}, status=ToolStatus.RUNNING)
        await store.update_tool_call(reply.id, "c", ToolStatus.DONE, result=f"result {n}")
        await saver.finish(MessageStatus.COMPLETE)
        shared = await store.append_message(shared_id, Role.USER, f"shared {n}", MessageStatus.COMPLETE)
        ids += [user.id, reply.id, shared.id]
        n += 1
    await store.close()
    print(json.dumps({"ids": ids, "notices": store.report.notices(), "pending": store.pending_writes}))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])))
