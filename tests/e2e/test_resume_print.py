"""`tui-agent --continue` / `--resume ID` with `-p`: the turn continues a stored session; a bad id is a sentence."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.history.store import HistoryStore
from tui_agent.status import Role


async def sessions(home: Path) -> list[tuple[str, list[str]]]:
    """(session id, message texts oldest first) for every stored session, most recent first."""
    store = await HistoryStore.open(home / "data" / "history.db")
    try:
        return [
            (s.id, [m.content for m in await store.load_tail(s.id, 100) if m.role is Role.USER])
            for s in await store.list_recent()
        ]
    finally:
        await store.close()


async def test_continue_and_resume_add_to_the_stored_session(isolated_home: Path) -> None:
    assert run(["--offline", "-p", "first session"], isolated_home).returncode == 0
    assert run(["--offline", "-p", "second session"], isolated_home).returncode == 0
    done = run(["--offline", "--continue", "-p", "more for the second"], isolated_home)
    assert done.returncode == 0, done.stderr
    stored = await sessions(isolated_home)
    assert [texts for _, texts in stored] == [["second session", "more for the second"], ["first session"]]
    first_id = stored[1][0]
    done = run(["--offline", "--resume", first_id[:10], "-p", "back to the first"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert dict(await sessions(isolated_home))[first_id] == ["first session", "back to the first"]


async def test_resume_of_an_unknown_id_exits_1_with_a_sentence(isolated_home: Path) -> None:
    done = run(["--offline", "--resume", "nosuchsession", "-p", "hello"], isolated_home)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "There is no session 'nosuchsession' to resume" in done.stderr
    assert await sessions(isolated_home) == []  # nothing was sent


async def test_continue_with_no_history_starts_a_new_session(isolated_home: Path) -> None:
    done = run(["--offline", "--continue", "-p", "hello"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert "no earlier session to continue" in done.stderr
    assert [texts for _, texts in await sessions(isolated_home)] == [["hello"]]
