"""StreamingSaver: many tokens become few writes; finish writes the whole text."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from tests.unit.history.helpers import raw_rows
from tests.unit.history.test_stream_redaction import CountingRedactor
from tui_agent.history.models import Usage
from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.history.stream_redaction import MARGIN
from tui_agent.status import MessageStatus


class CountingStore(HistoryStore):
    """The real store, counting the streaming-text writes it is asked for."""

    saves: list[str]

    async def update_streaming_text(
        self, message_id: str, text: str, parts: Mapping[str, str] | None = None, *, redacted: bool = False
    ) -> None:
        self.saves.append(text)
        await super().update_streaming_text(message_id, text, parts, redacted=redacted)


async def _open(db_path: Path) -> CountingStore:
    store = await CountingStore.open(db_path)
    assert isinstance(store, CountingStore)
    store.saves = []
    return store


async def _wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_burst_of_tokens_is_one_write(db_path: Path) -> None:
    store = await _open(db_path)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        saver = StreamingSaver(store, reply.id, interval=0.05)
        tokens = [f"t{i} " for i in range(1000)]
        for token in tokens:
            saver.push(token)
        await _wait_for(lambda: saver.saved_length > 0, "the first save")
        assert store.saves == ["".join(tokens)]
        assert raw_rows(db_path, "SELECT content, status FROM messages WHERE id = ?", (reply.id,)) == [
            ("".join(tokens), "streaming")
        ]
    finally:
        await store.close()


async def test_text_pushed_after_a_save_is_saved_later_and_finish_writes_all(db_path: Path) -> None:
    store = await _open(db_path)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        saver = StreamingSaver(store, reply.id, interval=0.02)
        saver.push("Hello")
        await _wait_for(lambda: saver.saved_length == 5, "the first save")
        saver.push(", world")
        await _wait_for(lambda: saver.saved_length == 12, "the second save")
        saver.push(" and the rest")  # still waiting for its save when the reply ends
        await saver.finish(MessageStatus.COMPLETE, usage=Usage(3, 4))
        saver.push(" ignored")
        assert store.saves[:2] == ["Hello", "Hello, world"]
        [message] = await store.load_tail(session.id, 1)
        assert message.content == "Hello, world and the rest" and message.status is MessageStatus.COMPLETE
        assert message.usage == Usage(3, 4)
    finally:
        await store.close()


async def test_finish_with_an_error_keeps_the_partial_text(db_path: Path) -> None:
    store = await _open(db_path)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        saver = StreamingSaver(store, reply.id)
        saver.push("partial ")
        await saver.finish(MessageStatus.FAILED, error="The connection dropped.")
        [message] = await store.load_tail(session.id, 1)
        assert (message.content, message.status, message.error) == (
            "partial ",
            MessageStatus.FAILED,
            "The connection dropped.",
        )
        assert store.saves == []  # the pending periodic save was replaced by the final write
    finally:
        await store.close()


async def test_each_save_redacts_only_what_is_new(db_path: Path) -> None:
    """A long reply's saves cost time linear in its length (the whole text is not redacted again each time)."""
    redactor = CountingRedactor()
    store = await HistoryStore.open(db_path, redactor=redactor)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        saver = StreamingSaver(store, reply.id, interval=0)
        redactor.passed = 0
        chunk = "- a line of a long list\n" * 2000
        for _ in range(40):
            saver.push(chunk)
            await _wait_for(lambda: saver.saved_length == len(saver.text), "a save")
        await saver.finish(MessageStatus.COMPLETE)
        [message] = await store.load_tail(session.id, 1)
        assert message.content == chunk * 40
        assert redactor.passed < 3 * len(chunk) * 40 + 41 * MARGIN
    finally:
        await store.close()


async def test_each_save_redacts_only_what_is_new_in_a_part_too(db_path: Path) -> None:
    """A long reasoning grows like the text: its saves are linear in its length too, and the stored part is
    redacted exactly as the whole text would be."""
    redactor = CountingRedactor()
    store = await HistoryStore.open(db_path, redactor=redactor)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        saver = StreamingSaver(store, reply.id, interval=0)
        redactor.passed = 0
        chunk = "- a step of a long thought\n" * 2000
        for _ in range(40):
            saver.push_part("reasoning", chunk)
            await _wait_for(lambda: not saver._unsaved(), "a save")
        await saver.finish(MessageStatus.COMPLETE)
        [message] = await store.load_tail(session.id, 1)
        assert message.reasoning == chunk * 40
        assert redactor.passed < 3 * len(chunk) * 40 + 41 * MARGIN
    finally:
        await store.close()
