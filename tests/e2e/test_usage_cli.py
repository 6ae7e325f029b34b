"""`tui-agent usage` and the cost column of `sessions list`, on a database written by the real store."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.history.models import Usage
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus


async def _sessions(home: Path) -> dict[str, str]:
    """Two sessions: one on gpt-4o-mini (priced) with two replies, one on a model without a price."""
    store = await HistoryStore.open(home / "data" / "history.db")
    ids = {}
    try:
        for title, model, usages in (
            ("priced", "gpt-4o-mini", [Usage(1_000_000, 0), Usage(0, 1_000_000)]),
            ("unknown", "home-brew-7b", [Usage(1200, 34)]),
        ):
            session = await store.create_session(title, model=model)
            ids[title] = session.id
            for number, usage in enumerate(usages):
                _, reply = await store.begin_turn(session.id, f"question {number}", model=model)
                await store.finish_message(reply.id, MessageStatus.COMPLETE, content="answer", usage=usage)
    finally:
        await store.close()
    return ids


async def test_sessions_list_shows_the_cost_or_tokens_only_for_a_model_without_a_price(isolated_home: Path) -> None:
    ids = await _sessions(isolated_home)
    listed = run(["sessions", "list"], isolated_home)
    assert listed.returncode == 0, listed.stderr
    lines = {line.split()[0]: line for line in listed.stdout.splitlines()}
    assert "$0.7500" in lines[ids["priced"]]  # 1M input at 0.15 + 1M output at 0.60
    assert "1,234 tok" in lines[ids["unknown"]] and "$" not in lines[ids["unknown"]]
    rows = {row["id"]: row for row in json.loads(run(["sessions", "list", "--json"], isolated_home).stdout)}
    assert rows[ids["priced"]]["cost"] == "0.75" and rows[ids["priced"]]["tokens"] == 2_000_000
    assert rows[ids["unknown"]]["cost"] is None and rows[ids["unknown"]]["tokens"] == 1234


async def test_usage_sums_tokens_and_cost_per_day_and_model_with_the_config_prices(isolated_home: Path) -> None:
    await _sessions(isolated_home)
    done = run(["usage", "--days", "7"], isolated_home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    mini = next(line for line in lines if "gpt-4o-mini" in line)
    assert "1,000,000" in mini and mini.endswith("$0.7500")
    brew = next(line for line in lines if "home-brew-7b" in line)
    assert "1,200" in brew and brew.split()[-1] == "-"
    assert lines[-2].startswith("total") and lines[-2].endswith("$0.7500+")
    assert "[prices." in lines[-1]

    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[prices."home-brew-*"]\ninput = 1000\noutput = 0\n')
    priced = run(["usage"], isolated_home).stdout.splitlines()
    assert next(line for line in priced if "home-brew-7b" in line).endswith("$1.20")
    assert priced[-1].startswith("total") and priced[-1].endswith("$1.95")


async def test_cached_prompt_tokens_are_priced_at_the_cached_price_in_sessions_list_and_usage(
    isolated_home: Path,
) -> None:
    store = await HistoryStore.open(isolated_home / "data" / "history.db")
    try:
        session = await store.create_session("cached", model="gpt-4o-mini")
        _, reply = await store.begin_turn(session.id, "question", model="gpt-4o-mini")
        usage = Usage(1_000_000, 0, cached_tokens=800_000)  # 200k at 0.15 + 800k at 0.075 per million
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="answer", usage=usage)
    finally:
        await store.close()
    rows = json.loads(run(["sessions", "list", "--json"], isolated_home).stdout)
    assert rows[0]["cost"] == "0.09"
    lines = run(["usage"], isolated_home).stdout.splitlines()
    mini = next(line for line in lines if "gpt-4o-mini" in line)
    assert "800,000" in mini and mini.endswith("$0.0900")


def test_usage_with_an_empty_history_says_so(isolated_home: Path) -> None:
    done = run(["usage"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert "No token usage recorded yet." in done.stdout


async def _caller_and_sub_agent(home: Path) -> tuple[str, str]:
    """A caller on gpt-4o-mini whose reply asked the researcher, and the researcher's run (on gpt-4o-mini too)."""
    store = await HistoryStore.open(home / "data" / "history.db")
    try:
        caller = await store.create_session("caller", model="gpt-4o-mini")
        _, reply = await store.begin_turn(caller.id, "ask the researcher", model="gpt-4o-mini")
        await store.record_tool_call(reply.id, "c1", "ask_researcher", '{"task": "w"}', {"task": "w"})
        sub = await store.create_sub_session("w", caller.id, reply.id, "researcher", model="gpt-4o-mini")
        _, answer = await store.begin_turn(sub.id, "w", model="gpt-4o-mini")
        await store.finish_message(answer.id, MessageStatus.COMPLETE, content="sun", usage=Usage(0, 1_000_000))
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="sun", usage=Usage(1_000_000, 0))
    finally:
        await store.close()
    return caller.id, sub.id


async def test_sessions_list_counts_a_callers_sub_agents_in_its_cost_and_says_so(isolated_home: Path) -> None:
    caller, sub = await _caller_and_sub_agent(isolated_home)
    listed = run(["sessions", "list"], isolated_home)
    assert listed.returncode == 0, listed.stderr
    lines = {
        line.split()[0] if not line.startswith(" ") else line.split()[1]: line for line in listed.stdout.splitlines()
    }
    assert "$0.7500" in lines[caller]  # 0.15 + 0.60
    assert lines[caller].endswith("(tokens and cost with its sub-agents')")
    assert "$0.6000" in lines[sub] and "sub-agents" not in lines[sub]  # its own, listed under the caller
    rows = {row["id"]: row for row in json.loads(run(["sessions", "list", "--json"], isolated_home).stdout)}
    assert (rows[caller]["cost"], rows[caller]["tokens"], rows[caller]["sub_agent_runs"]) == ("0.75", 2_000_000, 1)
    assert (rows[sub]["cost"], rows[sub]["tokens"], rows[sub]["sub_agent_runs"]) == ("0.6", 1_000_000, 0)
