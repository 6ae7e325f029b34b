"""The session screen's rows at a glance (issue 28's faster read): the last reply, the cost with the sub-agents'
(a reply without a model priced by its session's), a session that is gone, and the page read with its glances in
one call giving the same as the two reads; the newest page read off the recent index without sorting it again."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

from tui_agent.history import rows
from tui_agent.history.models import Usage
from tui_agent.history.rolled_usage import rolled_tallies
from tui_agent.history.session_glance import SessionGlance
from tui_agent.history.session_search import find_sessions
from tui_agent.history.store import HistoryStore
from tui_agent.prices import PriceTable
from tui_agent.status import MessageStatus


async def test_glances_roll_up_sub_agents_price_by_the_sessions_model_and_match_the_one_call_page(
    store: HistoryStore,
) -> None:
    prices = PriceTable.with_overrides()
    caller = await store.create_session("caller", model="gpt-4o-mini")
    _, reply = await store.begin_turn(caller.id, "ask the researcher")  # the reply names no model: the session's
    await store.record_tool_call(reply.id, "c1", "ask_researcher", '{"task": "w"}', {"task": "w"})
    sub = await store.create_sub_session("w", caller.id, reply.id, "researcher", model="gpt-4o-mini")
    _, answer = await store.begin_turn(sub.id, "w", model="gpt-4o-mini")
    await store.record_tool_call(answer.id, "c2", "ask_helper", '{"task": "h"}', {"task": "h"})
    helper = await store.create_sub_session("h", sub.id, answer.id, "helper", model="gpt-4o-mini")
    _, helped = await store.begin_turn(helper.id, "h", model="gpt-4o-mini")
    await store.finish_message(helped.id, MessageStatus.COMPLETE, content="sun", usage=Usage(0, 1_000_000))
    stranger = await store.create_sub_session("not asked", caller.id, reply.id, "stranger", model="gpt-4o-mini")
    _, aside = await store.begin_turn(stranger.id, "x", model="gpt-4o-mini")  # no ask_stranger call: not a run
    await store.finish_message(aside.id, MessageStatus.COMPLETE, content="x", usage=Usage(0, 1_000_000))
    await store.finish_message(answer.id, MessageStatus.COMPLETE, content="sunny", usage=Usage(0, 1_000_000))
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="It is sunny", usage=Usage(1_000_000, 0))
    quiet = await store.create_session("only asked")
    await store.begin_turn(quiet.id, "hello?")

    found = await store.glances([caller.id, sub.id, helper.id, stranger.id, quiet.id, "gone"], prices)
    rolled = await store.db.call(lambda conn: rolled_tallies(conn, [caller.id, sub.id, caller.id], prices))
    assert {key: (value.tally.tokens, value.sub_runs) for key, value in rolled.items()} == {
        caller.id: (3_000_000, 2),  # counted once though asked twice
        sub.id: (2_000_000, 1),
    }

    # 0.15 + the sub's 0.60 + its helper's 0.60; the stranger's child session is not a sub-agent run
    assert found[caller.id] == SessionGlance("It is sunny", 3_000_000, Decimal("1.35"))
    assert found[sub.id] == SessionGlance("sunny", 2_000_000, Decimal("1.2"))
    assert found[stranger.id] == SessionGlance("x", 1_000_000, Decimal("0.6"))
    assert found[quiet.id] == SessionGlance("", 0, None)  # its reply is still streaming, empty
    assert found["gone"] == SessionGlance()
    page = await store.find_sessions("", 10, prices=prices)
    assert [match.glance for match in page] == [found[match.session.id] for match in page]
    assert {match.session.id for match in page} == {caller.id, sub.id, helper.id, stranger.id, quiet.id}
    assert all(match.glance == SessionGlance() for match in await store.find_sessions("", 10))  # no prices: none


async def test_the_newest_page_is_read_off_the_recent_index_unsorted_and_ties_page_once(
    store: HistoryStore, db_path: Path
) -> None:
    made = [await store.create_session(f"s{n}") for n in range(5)]
    await store.close()
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("UPDATE sessions SET updated_at = 1000.0")  # every one a tie
        conn.commit()
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        pages = [rows.list_recent(conn, 2, offset) for offset in (0, 2, 4)]
        screen_pages = [find_sessions(conn, "", 2, offset, PriceTable.with_overrides()) for offset in (0, 2, 4)]
        conn.set_trace_callback(None)
        listed = [session.id for page in pages for session in page]
        assert sorted(listed) == sorted(session.id for session in made)  # no session twice, none skipped
        assert [match.session.id for page in screen_pages for match in page] == listed  # the screen's, with glances
        page_sqls = [sql for sql in statements if "ORDER BY updated_at" in sql]
        assert len(page_sqls) == 6
        for page_sql in page_sqls:
            plan = " ".join(str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {page_sql}"))
            assert "sessions_recent" in plan and "TEMP B-TREE" not in plan, plan  # a page is not sorted again
    finally:
        conn.close()
