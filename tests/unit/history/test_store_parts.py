"""`HistoryStore` hands out its parts; each method callers use on it is one part's own, of the same name."""

from __future__ import annotations

from tui_agent.history.store import HistoryStore
from tui_agent.history.via import Via


async def test_each_store_method_is_the_part_method_of_its_name(store: HistoryStore) -> None:
    parts = [store.db, store.sessions, store.messages, store.replies, store.reads, store.export, store.files]
    names = [name for name, value in vars(HistoryStore).items() if isinstance(value, Via)]
    assert "begin_turn" in names and "close" in names
    for name in names:
        method = getattr(store, name)
        assert any(method.__self__ is part for part in parts), name
        assert method.__func__ is getattr(type(method.__self__), name), name


async def test_a_method_set_on_one_store_stands_in_for_its_part_until_deleted(store: HistoryStore) -> None:
    session = await store.create_session("s")
    seen: list[str] = []

    async def counting(title: str, *more: str | None) -> None:
        seen.append(title)

    store.create_session = counting  # type: ignore[assignment]
    await store.create_session("counted")
    del store.create_session
    after = await store.create_session("after")
    assert seen == ["counted"]
    assert {s.id for s in await store.list_recent()} == {session.id, after.id}
