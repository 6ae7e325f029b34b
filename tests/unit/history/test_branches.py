"""Branches in the store: siblings, switching, paging the active branch, forking a branch, search on any."""

from __future__ import annotations

from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role

DONE = MessageStatus.COMPLETE


async def _turn(store: HistoryStore, session_id: str, prompt: str, answer: str) -> tuple[str, str]:
    user, reply = await store.begin_turn(session_id, prompt)
    await store.finish_message(reply.id, DONE, content=answer)
    return user.id, reply.id


async def _texts(store: HistoryStore, session_id: str) -> list[str]:
    return [m.content for m in await store.load_tail(session_id, 100)]


async def test_an_edited_prompt_is_a_sibling_on_a_new_branch_and_switching_back_restores_the_old(
    store: HistoryStore,
) -> None:
    session = await store.create_session("edit")
    first, _ = await _turn(store, session.id, "two plus two?", "four")
    _, old_leaf = await _turn(store, session.id, "times ten?", "forty")
    edited = await store.add_sibling(first, Role.USER, "two plus three?")
    reply = await store.append_message(session.id, Role.ASSISTANT, "five", DONE)
    assert edited.parent_id is None and reply.parent_id == edited.id
    assert await _texts(store, session.id) == ["two plus three?", "five"]
    assert await store.count_messages(session.id) == 2
    siblings = await store.siblings(edited.id)
    assert [m.content for m in siblings.messages] == ["two plus two?", "two plus three?"] and siblings.index == 1
    assert [m.content for m in await store.children(first)] == ["four"]
    assert await store.switch_to(first) == old_leaf  # the newest leaf under it
    assert await _texts(store, session.id) == ["two plus two?", "four", "times ten?", "forty"]
    assert (await store.get_session(session.id)).active_leaf_id == old_leaf  # type: ignore[union-attr]
    await _turn(store, session.id, "and halved?", "twenty")  # goes on the branch switched to
    assert (await _texts(store, session.id))[-2:] == ["and halved?", "twenty"]
    assert len(await store.tree(session.id)) == 8


async def test_a_regenerated_reply_and_paging_back_follow_the_branch_shown(store: HistoryStore) -> None:
    session = await store.create_session("regenerate")
    for n in range(5):
        await _turn(store, session.id, f"q{n}", f"a{n}")
    tail = await store.load_tail(session.id, 2)
    again = await store.add_sibling(tail[-1].id, Role.ASSISTANT, "a4 again")
    assert again.position == 10 and again.parent_id == tail[-1].parent_id
    page = await store.load_tail(session.id, 3)
    assert [m.content for m in page] == ["a3", "q4", "a4 again"]
    older = await store.load_before(session.id, page[0].position, 4)
    assert [m.content for m in older] == ["a1", "q2", "a2", "q3"]
    assert [m.content for m in await store.load_before(session.id, older[0].position, 10)] == ["q0", "a0", "q1"]
    assert (await store.siblings(again.id)).index == 1 and len((await store.siblings(again.id)).messages) == 2


async def test_a_retry_is_a_sibling_shown_beside_the_reply_it_replaced(store: HistoryStore) -> None:
    session = await store.create_session("retry")
    user, failed = await store.begin_turn(session.id, "hello")
    await store.finish_message(failed.id, MessageStatus.FAILED, content="half", error="boom")
    retry = await store.replace_reply(session.id, failed.id)
    assert retry.parent_id == user.id
    assert (await store.siblings(retry.id)).index == 1
    assert await store.count_messages(session.id) == 3
    await store.switch_to(failed.id)  # the retried reply's own branch: it alone
    assert await _texts(store, session.id) == ["hello", "half"]


async def test_a_fork_copies_the_branch_up_to_the_message_only(store: HistoryStore) -> None:
    session = await store.create_session("fork")
    first, _ = await _turn(store, session.id, "one", "uno")
    await _turn(store, session.id, "two", "dos")
    edited = await store.add_sibling(first, Role.USER, "eins")
    reply = await store.append_message(session.id, Role.ASSISTANT, "ein", DONE)
    await store.switch_to(first)
    fork = await store.fork_session(session.id, reply.id)
    copied = await store.tree(fork.id)
    assert [(m.content, m.position) for m in copied] == [("eins", 0), ("ein", 1)]
    assert copied[1].parent_id == copied[0].id and copied[0].parent_id is None
    stored = await store.get_session(fork.id)
    assert fork.message_count == 2 and stored is not None and stored.active_leaf_id == copied[1].id
    follow = await store.append_message(fork.id, Role.USER, "zwei", DONE)
    assert follow.position == 2 and follow.parent_id == copied[1].id
    assert edited.id not in {m.id for m in copied}


async def test_search_finds_a_message_on_another_branch_and_switching_opens_that_branch(store: HistoryStore) -> None:
    session = await store.create_session("search")
    first, _ = await _turn(store, session.id, "tell me about quokkas", "small marsupials")
    await store.add_sibling(first, Role.USER, "tell me about wombats")
    assert "quokkas" not in " ".join(await _texts(store, session.id))
    [hit] = await store.search("marsupials")
    assert hit.session_id == session.id
    await store.switch_to(hit.message_id)
    assert await _texts(store, session.id) == ["tell me about quokkas", "small marsupials"]
