"""Whatever happened before — a failed, cut or interrupted reply, tools cut short, a crash — the next request
is one a strict server (alternating roles, every call answered) accepts: these run against the offline model
in strict mode, which answers 400 "Conversation roles must alternate" as llama.cpp and vLLM templates do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.ui.sessions_stack import Call, Turn, add_turn
from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.conversation import CONTINUE, INTERRUPTED_RESULT, NO_REPLY, strict_history
from tui_agent.agent.events import AgentEvent, TurnEndReason, TurnFinished
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.offline.strict import role_problem
from tui_agent.status import MessageStatus, ToolStatus

PLUGINS = Path(__file__).parent / "plugins"
ECHO = {"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "seconds": 0}}]}


FAILS = {"status": 500, "retry_after": 0.01}
"""A server error, retried at once (not after 0.5 s, then 1 s) until the retries run out."""


def scenario(*replies: dict[str, Any], then: str = "default") -> pytest.MarkDecorator:
    return pytest.mark.parametrize(
        "offline_server", [{"replies": list(replies), "then": then, "strict": True}], indirect=True
    )


def roles(body: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The conversation sent (the agent's system prompt left out)."""
    return [(m["role"], m.get("content") or "") for m in (body or {})["messages"] if m["role"] != "system"]


def ended(events: list[AgentEvent]) -> TurnEndReason:
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    return finished.reason


@scenario(FAILS, then="repeat_last")
async def test_a_turn_that_failed_with_no_text_then_a_good_turn(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    assert ended(await collect(built.agent.send("first"))) is TurnEndReason.ERROR  # retries exhausted
    offline_server.server.script([])  # the server recovers
    events = await collect(built.agent.send("second"))
    assert ended(events) is TurnEndReason.DONE, events[-1]
    # Never answered, the first prompt is asked again with the second, as one user message.
    assert roles(offline_server.requests[-1].body) == [("user", "first\n\nsecond")]


@scenario({"text": "Half of an answer, then ", "chunk_size": 6, "cut_after": 3})
async def test_a_turn_cut_mid_stream_then_a_good_turn(make_agent: MakeAgent, offline_server: BackgroundServer) -> None:
    built = await make_agent(offline_server.base_url)
    assert ended(await collect(built.agent.send("first"))) is TurnEndReason.ERROR
    assert ended(await collect(built.agent.send("second"))) is TurnEndReason.DONE
    assert roles(offline_server.requests[-1].body) == [
        ("user", "first"),
        ("assistant", "Half of an a"),
        ("user", "second"),
    ]


@scenario(ECHO, FAILS, then="repeat_last")
async def test_a_reply_that_failed_after_its_tools_then_a_good_turn(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    assert ended(await collect(built.agent.send("echo hi"))) is TurnEndReason.ERROR
    offline_server.server.script([])
    assert ended(await collect(built.agent.send("and now?"))) is TurnEndReason.DONE
    sent = roles(offline_server.requests[-1].body)
    assert [role for role, _ in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent[3] == ("assistant", NO_REPLY)


@scenario()
async def test_resumed_session_with_interrupted_tool_calls_is_accepted(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    """A session left by a crash mid-tool (calls still running) and a failed turn with no text after it."""
    store = await HistoryStore.open(tmp_path / "history.db")
    try:
        session = await store.create_session("Crashed", model="offline")
        running = Call("c_run", "slow_echo", {"text": "x"}, ToolStatus.RUNNING)
        await add_turn(store, session.id, Turn("echo x", "", MessageStatus.STREAMING, calls=(running,)))
        await add_turn(store, session.id, Turn("hello?", "", MessageStatus.FAILED, error="500"))
    finally:
        await store.close()
    built = await make_agent(offline_server.base_url, plugin_dirs=[PLUGINS])
    await built.agent.resume(session.id)
    events = await collect(built.agent.send("still there?"))
    assert ended(events) is TurnEndReason.DONE, events[-1]
    sent = offline_server.requests[-1].body or {}
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent["messages"][2]["content"] == INTERRUPTED_RESULT
    assert sent["messages"][-1]["content"] == "hello?\n\nstill there?"


# Any record a session can hold, repaired, is accepted by the strict checker.
CALL_IDS = st.sampled_from(["a", "b", "c"])
RECORD = st.one_of(
    st.just({"role": "user", "content": "u"}),
    st.just({"role": "system", "content": "s"}),
    st.sampled_from(["", "text"]).map(lambda text: {"role": "assistant", "content": text or None}),
    st.lists(CALL_IDS, min_size=1, max_size=3, unique=True).map(
        lambda ids: {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids],
        }
    ),
    CALL_IDS.map(lambda i: {"role": "tool", "tool_call_id": i, "content": "r"}),
)


@given(st.lists(RECORD, min_size=1, max_size=12))
def test_any_history_is_repaired_into_one_a_strict_server_accepts(records: list[dict[str, Any]]) -> None:
    messages = [{"role": "system", "content": "sys"}, *records, {"role": "user", "content": "now"}]
    repaired = strict_history(messages)
    assert role_problem(repaired) is None, repaired
    assert strict_history(repaired) == repaired  # nothing left to repair


def test_a_history_ending_with_a_reply_asks_to_continue() -> None:
    repaired = strict_history([{"role": "user", "content": "u"}, {"role": "assistant", "content": "cut off"}])
    assert repaired[-1] == {"role": "user", "content": CONTINUE}
