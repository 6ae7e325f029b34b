"""Compaction on the real stack (the strict offline model over HTTP, a real SQLite file): what the model is
sent before and after, what history keeps, resume, a second compaction, and the failures that change nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tests.unit.history.test_newer_schema import newer_database
from tui_agent.agent.compaction import SUMMARY_REQUEST, CompactionFailedError, NothingToCompactError
from tui_agent.agent.conversation import SUMMARY_HEADING
from tui_agent.agent.events import TurnEndReason, TurnFinished
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import Role

STRICT = pytest.mark.parametrize("offline_server", [{"strict": True}], indirect=True)


def _sent(server: BackgroundServer) -> list[dict[str, Any]]:
    """The last request's messages after the agent's system prompt (which leads every request)."""
    messages = list((server.requests[-1].body or {})["messages"])
    return messages[1:] if messages and messages[0]["role"] == "system" else messages


def _said(server: BackgroundServer) -> str:
    return "\n".join(str(message.get("content") or "") for message in _sent(server))


async def _ask(built: Any, prompt: str) -> None:
    events = await collect(built.agent.send(prompt))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE, finished


async def _three_turns(built: Any) -> None:
    for prompt in ("Name a river in Europe", "What's the weather in Paris?", "And a mountain?"):
        await _ask(built, prompt)


@STRICT
async def test_older_turns_are_sent_as_one_summary_and_the_latest_turn_as_it_was(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _three_turns(built)
    await _ask(built, "before")
    assert "Name a river in Europe" in _said(offline_server)  # everything is sent before

    done = await built.agent.compact()
    asked = _sent(offline_server)
    assert asked[-1]["role"] == "user" and SUMMARY_REQUEST in asked[-1]["content"]
    assert (offline_server.requests[-1].body or {}).get("tools") is None

    await _ask(built, "after")
    sent = _sent(offline_server)
    assert sent[0]["role"] == "user" and sent[0]["content"].startswith(SUMMARY_HEADING)
    assert "Name a river in Europe" in sent[0]["content"]  # in the offline model's summary, not as a turn
    assert [m["content"] for m in sent[1:] if m["role"] == "user"] == ["after"]
    assert sent[0]["content"].endswith("before")  # the kept turn's prompt follows the summary (roles alternate)
    assert not any(m["role"] == "tool" or m.get("tool_calls") for m in sent)  # the weather call went with its turn
    assert offline_server.requests[-1].outcome == "ok"  # the strict server accepted it
    assert len(done.compacted) == 7  # river (2), weather (prompt, call, answer), mountain (2); "before" is kept


@STRICT
async def test_history_keeps_the_originals_marked_and_the_summary_with_its_cost(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _three_turns(built)
    done = await built.agent.compact()
    session = built.agent.session
    assert session is not None
    path = await built.agent.store.load_tail(session.id, 100)
    assert path[-1].id == done.summary.id and path[-1].role is Role.SYSTEM
    assert path[-1].usage is not None and path[-1].usage.total_tokens > 0  # asking for it was paid for
    assert {m.id for m in path if m.compacted_by == done.summary.id} == set(done.compacted)
    kept = [m for m in path if m.compacted_by is None and m.role is not Role.SYSTEM]
    assert [m.content for m in kept if m.role is Role.USER] == ["And a mountain?"]
    assert built.agent.meter.context_estimated  # the server has not counted the new path yet


@STRICT
async def test_a_resumed_session_is_sent_compacted(make_agent: MakeAgent, offline_server: BackgroundServer) -> None:
    built = await make_agent(offline_server.base_url)
    await _three_turns(built)
    await built.agent.compact()
    session = built.agent.session
    assert session is not None
    again = await make_agent(offline_server.base_url)
    await again.agent.resume(session.id)
    await _ask(again, "after resuming")
    sent = _sent(offline_server)
    assert sent[0]["content"].startswith(SUMMARY_HEADING)
    assert [m["content"] for m in sent if m["role"] == "user"][1:] == ["after resuming"]


@STRICT
async def test_a_second_compaction_summarises_the_first_summary_too(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _three_turns(built)
    first = await built.agent.compact()
    await _ask(built, "Name a lake")
    await _ask(built, "Name a sea")
    second = await built.agent.compact()
    assert first.summary.id in second.compacted
    assert "Before that:" in second.summary.content  # the offline model was shown the first summary
    # ... said with "And a mountain?" as one message (strict templates): the summary still counts that prompt
    assert "The person asked 2 things:\n- And a mountain?\n- Name a lake\n" in second.summary.content
    await _ask(built, "one more")
    sent = _sent(offline_server)
    summaries = [m for m in sent if str(m.get("content") or "").startswith(SUMMARY_HEADING)]
    assert len(summaries) == 1 and "Name a lake" in summaries[0]["content"]
    assert [m["content"] for m in sent if m["role"] == "user"][1:] == ["one more"]


@STRICT
async def test_nothing_to_compact_and_a_failed_summary_change_nothing(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    with pytest.raises(NothingToCompactError):
        await built.agent.compact()  # an empty session
    await _ask(built, "only turn")
    with pytest.raises(NothingToCompactError):
        await built.agent.compact()  # the latest turn is always kept
    await _ask(built, "second turn")
    again = {"status": 500, "retry_after": 0.01}  # retried at once, not after 0.5 s then 1 s
    offline_server.server.script([{**again, "error_message": "boom"}, again, again])
    with pytest.raises(CompactionFailedError, match="Could not compact the conversation"):
        await built.agent.compact()
    offline_server.server.script([{"text": "   "}])
    with pytest.raises(CompactionFailedError, match="no summary"):
        await built.agent.compact()
    session = built.agent.session
    assert session is not None
    path = await built.agent.store.load_tail(session.id, 100)
    assert all(m.compacted_by is None and m.role is not Role.SYSTEM for m in path)
    await _ask(built, "third turn")
    assert [m["content"] for m in _sent(offline_server) if m["role"] == "user"] == [
        "only turn",
        "second turn",
        "third turn",
    ]


@STRICT
async def test_compaction_is_refused_while_history_is_not_saved(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    session_id = await newer_database(tmp_path / "history.db")  # opened read-only: changes stay in memory
    built = await make_agent(offline_server.base_url)
    await built.agent.resume(session_id)
    await _ask(built, "a second turn")
    with pytest.raises(CompactionFailedError, match=r"Cannot compact while history is not saved \(read-only"):
        await built.agent.compact()
    await _ask(built, "a third turn")  # the chat goes on


@STRICT
async def test_on_a_branch_without_the_summary_the_compacted_messages_are_sent_again(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await _three_turns(built)
    await built.agent.compact()
    store, session = built.agent.store, built.agent.session
    assert session is not None
    river, *_ = await store.tree(session.id)
    second_prompt = next(m for m in await store.tree(session.id) if m.content == "What's the weather in Paris?")
    await built.agent.switch_branch(river.id)  # still the compacted branch: nothing changes
    edited = await store.add_sibling(second_prompt.id, Role.USER, "Name a city")  # a branch before the summary
    await store.switch_to(edited.id)
    await built.agent.resume(session.id)
    await _ask(built, "and a country")
    sent = _sent(offline_server)
    assert not any(str(m.get("content") or "").startswith(SUMMARY_HEADING) for m in sent)
    assert [m["content"] for m in sent if m["role"] == "user"] == [
        "Name a river in Europe",
        "Name a city\n\nand a country",
    ]


@STRICT
async def test_a_teams_conversation_is_summarised_as_prompts_and_the_members_answers(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    for prompt in ("Write a post about tea", "Write a post about rain"):
        await collect(built.agent.run_team("writer-critic", prompt))
    done = await built.agent.compact()
    asked = _sent(offline_server)
    assert [m["role"] for m in asked] == ["user", "assistant", "user"]  # the members' replies did not merge
    assert asked[1]["content"].startswith("[writer] ") and "[critic] APPROVED" in asked[1]["content"]
    assert asked[-1]["content"] == SUMMARY_REQUEST
    assert done.summary.content.startswith("The person asked 1 thing:\n- Write a post about tea")
    assert offline_server.requests[-1].outcome == "ok"
