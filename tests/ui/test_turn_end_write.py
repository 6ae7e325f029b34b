"""A turn's end is announced before its final write: Esc makes the chat ready at once, and nothing is lost.

The final write of a long reply (its whole text, the search index) takes tens of milliseconds; the person must
not wait for it. Here another connection holds the history file's write lock while the turn ends, so that
write cannot land: the screen must be ready anyway, and once the lock is let go the reply's final text and
status must be in SQLite — after an immediate next prompt (which comes after it) and after quitting.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from textual.pilot import Pilot

from tests.ui.helpers import chat, send, wait_until
from tests.ui.test_real_stack import MakeApp, history, real_app  # noqa: F401 (the fixture)
from tests.unit.agent.conftest import MakeAgent, make_agent  # noqa: F401 (the fixture)
from tui_agent.agent.events import AgentEvent, AssistantTextDelta, TurnFinished
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus
from tui_agent.ui.screens.chat import ChatScreen

LONG = {"text": "word " * 400, "chunk_size": 5, "chunk_delay": 0.01}
READY_WITHIN = 3.0
"""Seconds Esc may take to make the screen ready while the write waits. A screen that waited for the write would
be ready only once the lock had held it the store's busy timeout (5 s) and it was kept in memory instead: the
bound separates the two with room for a loaded machine (1 s was within reach of CI's), it is no budget."""


@contextmanager
def write_lock(path: Path) -> Iterator[sqlite3.Connection]:
    """Hold the history file's write lock (another process writing, as far as the app can tell)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()


async def escape_while_locked(pilot: Pilot[None], screen: ChatScreen) -> str:
    """Press Esc mid-stream, once a streaming save waits for the lock too, and check the screen is ready
    within `READY_WITHIN`; the text shown."""
    await pilot.pause(0.5)  # more than `StreamingSaver`'s interval: a save is on its way and waits
    await pilot.press("escape")
    start = time.monotonic()
    while not screen.idle and time.monotonic() - start < READY_WITHIN:
        await pilot.pause(0.01)
    assert screen.idle, "the screen must not wait for the final write to be ready"
    return screen.chat_log.assistant_messages[0].text


async def streaming(pilot: Pilot[None], screen: ChatScreen) -> None:
    await send(pilot, "talk a lot", wait=False)
    await wait_until(
        pilot,
        lambda: bool(screen.chat_log.assistant_messages) and len(screen.chat_log.assistant_messages[0].text) > 50,
        "some text",
    )


async def test_esc_is_ready_before_the_final_write_and_the_next_prompt_comes_after_it(
    real_app: MakeApp,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    app, _ = real_app({"replies": [LONG, {"text": "Second answer."}]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await streaming(pilot, screen)
        with write_lock(tmp_path / "history.db"):
            shown = await escape_while_locked(pilot, screen)
            await send(pilot, "and then this", wait=False)  # at once, while the write still waits
            await pilot.pause(0.1)
        await wait_until(pilot, lambda: screen.idle and len(screen.chat_log.assistant_messages) == 2, "second turn")
    messages = await history(tmp_path / "history.db")
    assert [(m.role.value, m.status) for m in messages] == [
        ("user", MessageStatus.COMPLETE),
        ("assistant", MessageStatus.INTERRUPTED),
        ("user", MessageStatus.COMPLETE),
        ("assistant", MessageStatus.COMPLETE),
    ]
    assert messages[1].content.startswith(shown) and messages[3].content.strip() == "Second answer."


async def test_continuing_right_after_esc_reads_the_final_reply_not_a_streaming_one(
    real_app: MakeApp,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    """Continue reads the last reply from history: it must wait for the final write (not say "still written")."""
    app, _ = real_app({"replies": [LONG, {"text": " and the rest."}]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await streaming(pilot, screen)
        with write_lock(tmp_path / "history.db"):
            shown = await escape_while_locked(pilot, screen)
            await pilot.press("ctrl+g")
            await pilot.pause(0.1)
        await wait_until(
            pilot,
            lambda: screen.idle and screen.chat_log.assistant_messages[0].text.endswith("rest."),
            lambda: f"the reply continued ({screen.chat_log.assistant_messages[0].text[-40:]!r})",
        )
    (_, reply) = await history(tmp_path / "history.db")
    assert reply.status is MessageStatus.COMPLETE and reply.content == shown + " and the rest."


async def test_quitting_right_after_esc_still_saves_the_final_text(real_app: MakeApp, tmp_path: Path) -> None:  # noqa: F811
    app, _ = real_app({"replies": [LONG]})
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        await streaming(pilot, screen)
        with write_lock(tmp_path / "history.db") as lock:
            shown = await escape_while_locked(pilot, screen)
            asyncio.get_running_loop().call_later(0.3, lock.execute, "ROLLBACK")  # while the app closes
            await app.action_quit()
    (_, reply) = await history(tmp_path / "history.db")
    assert reply.status is MessageStatus.INTERRUPTED
    assert reply.content.startswith(shown) and len(reply.content) < len(LONG["text"])  # type: ignore[arg-type]


async def test_a_print_run_gets_the_end_before_the_final_write_and_its_events_end_after_it(
    make_agent: MakeAgent,  # noqa: F811 (the fixture imported above)
    offline_server: BackgroundServer,
    tmp_path: Path,
) -> None:
    """`TurnFinished` comes while the final write waits; the turn's events end once it is committed (as `-p`
    and every caller reading history after a turn rely on)."""
    built = await make_agent(offline_server.base_url)
    seen: list[AgentEvent] = []
    with ExitStack() as stack:
        locked_at = finished_at = 0.0
        async for event in built.agent.send("hello"):
            seen.append(event)
            if isinstance(event, AssistantTextDelta) and not locked_at:  # the streaming saves wait too
                lock, locked_at = stack.enter_context(write_lock(tmp_path / "history.db")), time.monotonic()
            if isinstance(event, TurnFinished):
                finished_at = time.monotonic()
                asyncio.get_running_loop().call_later(0.3, lock.execute, "ROLLBACK")
        assert 0 < finished_at - locked_at < READY_WITHIN
    session = built.agent.session
    assert session is not None
    (_, reply) = await built.agent.store.load_tail(session.id, 2)
    text = "".join(event.text for event in seen if isinstance(event, AssistantTextDelta))
    assert reply.status is MessageStatus.COMPLETE and reply.content == text
