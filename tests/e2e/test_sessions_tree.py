"""Branches from the shell: `--continue` goes on with the active branch, `sessions show --tree` draws them all,
`sessions export` holds the active one (`--all-branches`: every message, each naming its parent)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


async def _branch_off_the_first_prompt(home: Path) -> tuple[str, list[Message]]:
    """Edit the stored session's first prompt as the TUI will: a sibling with its own reply, made active."""
    store = await HistoryStore.open(home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
        first = (await store.tree(session.id))[0]
        await store.add_sibling(first.id, Role.USER, "edited first question")
        reply = await store.append_message(session.id, Role.ASSISTANT, "", MessageStatus.STREAMING)
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="an answer to the edit")
        return session.id, await store.tree(session.id)
    finally:
        await store.close()


async def _active(home: Path, session_id: str) -> list[str]:
    store = await HistoryStore.open(home / "data" / "history.db")
    try:
        return [m.content for m in await store.load_tail(session_id, 100) if m.role is Role.USER]
    finally:
        await store.close()


async def test_continue_goes_on_with_the_active_branch_and_the_tree_and_exports_show_it(isolated_home: Path) -> None:
    for args in (["-p", "first question"], ["--continue", "-p", "second question"]):
        done = run(["--offline", *args], isolated_home)
        assert done.returncode == 0, done.stderr
    session_id, tree = await _branch_off_the_first_prompt(isolated_home)
    done = run(["--offline", "--continue", "-p", "third question"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert await _active(isolated_home, session_id) == ["edited first question", "third question"]

    shown = run(["sessions", "show", session_id[:10], "--tree"], isolated_home)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()[1:]
    assert len(lines) == len(tree) + 2  # the third question and its reply
    assert lines[0].startswith("├─ ○ user      first question")
    assert any(line.startswith("│  ○ user      second question") for line in lines)
    edited = next(i for i, line in enumerate(lines) if "edited first question" in line)
    assert lines[edited].startswith("└─ ● user") and all(line.startswith("   ● ") for line in lines[edited + 1 :])

    exported = run(["sessions", "export", session_id, "--format", "json"], isolated_home)
    messages = json.loads(exported.stdout)["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == ["edited first question", "third question"]
    assert [m["parent_id"] for m in messages] == [None] + [m["id"] for m in messages[:-1]]
    every = json.loads(
        run(["sessions", "export", session_id, "--format", "json", "--all-branches"], isolated_home).stdout
    )["messages"]
    assert len(every) == len(lines) and {m["id"] for m in messages} < {m["id"] for m in every}
    assert [m["parent_id"] for m in every if m["role"] == "user" and "first" in m["content"]] == [None, None]
    markdown = run(["sessions", "export", session_id], isolated_home).stdout
    assert "second question" not in markdown and "third question" in markdown
    assert f"Other branches: {len(every) - len(messages)} messages not shown" in markdown
    with_ids = run(["sessions", "export", session_id, "--all-branches"], isolated_home).stdout
    assert "second question" in with_ids and f"`{every[1]['id']}` after `{every[0]['id']}`" in with_ids
