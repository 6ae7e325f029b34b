"""`HistoryStore.find_sessions`: sessions by the words of their title or messages, over the whole history, most
recently active first, a page at a time, each with its best-matching message and a snippet of it."""

from __future__ import annotations

from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


async def chat(store: HistoryStore, title: str, prompt: str, reply: str = "Noted.") -> str:
    session = await store.create_session(title)
    _, answer = await store.begin_turn(session.id, prompt)
    await store.finish_message(answer.id, MessageStatus.COMPLETE, content=reply)
    return session.id


async def test_title_and_message_matches_newest_first_with_a_snippet_of_the_message(store: HistoryStore) -> None:
    by_message = await chat(store, "Bread", "How long do I proof sourdough?")
    await chat(store, "Weather", "Is it raining in Oslo?")
    by_title = await chat(store, "Sourdough starters", "Feeding schedule?")
    found = await store.find_sessions("SOURDOUGH")
    assert [(m.session.id, m.by_title) for m in found] == [(by_title, True), (by_message, False)]
    hit = found[1].hit
    assert hit is not None and hit.role is Role.USER and "[sourdough]" in hit.snippet.lower()
    assert found[0].hit is None  # its title holds the word; no message does


async def test_every_word_must_match_and_titles_match_beyond_ascii(store: HistoryStore) -> None:
    accented = await chat(store, "Élan VITAL in Zürich", "Philosophy")
    await chat(store, "Élan only", "Nothing here")
    assert [m.session.id for m in await store.find_sessions("élan zürich")] == [accented]
    assert await store.find_sessions("élan absent") == []


async def test_pages_cover_the_whole_history_once(store: HistoryStore) -> None:
    ids = [await chat(store, f"Chat {n}", f"about the zebra {n}") for n in range(7)]
    pages = [await store.find_sessions("zebra", 3, offset) for offset in (0, 3, 6)]
    assert [len(page) for page in pages] == [3, 3, 1]
    assert [m.session.id for page in pages for m in page] == ids[::-1]
    assert [m.session.id for m in await store.find_sessions("", 100)] == ids[::-1]  # no word: every session
