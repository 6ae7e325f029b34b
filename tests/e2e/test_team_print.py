"""`tui-agent -p --team NAME`: the shipped writer/critic team against the offline model, from the binary."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.history.store import HistoryStore


async def test_print_runs_the_writer_critic_team_to_approved(isolated_home: Path) -> None:
    done = run(["--offline", "-p", "--team", "writer-critic", "Write a post about tea"], isolated_home)
    assert done.returncode == 0, done.stderr
    headers = re.findall(r"^\[(\w+)\]$", done.stdout, re.MULTILINE)
    assert headers == ["writer", "critic", "writer", "critic"]
    assert "\n[critic]\nAPPROVED\n" in done.stdout
    assert done.stdout.rstrip().endswith("[stopped] critic said APPROVED (after 2 round(s))")
    store = await HistoryStore.open(isolated_home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
        messages = await store.load_tail(session.id, 10)
    finally:
        await store.close()
    assert (session.agent, session.stop_reason) == ("team:writer-critic", "critic said APPROVED")
    assert [m.agent for m in messages] == [None, "writer", "critic", "writer", "critic"]


def test_a_team_run_ends_without_a_traceback(isolated_home: Path) -> None:
    """The team's stream is closed before history is: its last reads ran against a closed store, at exit."""
    done = run(["--offline", "-p", "--team", "writer-critic", "Write a post about tea"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert "[stopped] critic said APPROVED" in done.stdout
    assert "Traceback" not in done.stderr and "never retrieved" not in done.stderr, done.stderr
    assert "history store is closed" not in done.stderr, done.stderr


def test_print_with_an_unknown_team_says_which_teams_there_are(isolated_home: Path) -> None:
    done = run(["--offline", "-p", "hi", "--team", "nobody"], isolated_home)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "There is no team 'nobody' (teams: writer-critic" in done.stderr


def test_a_team_session_continued_goes_on_with_its_team(isolated_home: Path) -> None:
    team = run(["--offline", "-p", "--team", "writer-critic", "Write a post about tea"], isolated_home)
    assert team.returncode == 0, team.stderr
    after = run(["--offline", "--continue", "-p", "Write a post about coffee"], isolated_home)
    assert after.returncode == 0, after.stderr
    assert re.findall(r"^\[(\w+)\]$", after.stdout, re.MULTILINE) == ["writer", "critic", "writer", "critic"]
    assert after.stdout.rstrip().endswith("[stopped] critic said APPROVED (after 2 round(s))")


def test_a_team_session_whose_team_file_is_gone_says_so_and_goes_on_with_the_agent(isolated_home: Path) -> None:
    teams = isolated_home / "config" / "teams"
    teams.mkdir(parents=True)
    shipped = (Path(__file__).parents[2] / "teams" / "writer-critic.toml").read_text(encoding="utf-8")
    (teams / "pair.toml").write_text(shipped.replace('name = "writer-critic"', 'name = "pair"'), encoding="utf-8")
    team = run(["--offline", "-p", "--team", "pair", "Write a post about tea"], isolated_home)
    assert team.returncode == 0, team.stderr
    (teams / "pair.toml").unlink()
    after = run(["--offline", "--continue", "-p", "what is 6 * 7?"], isolated_home)
    assert after.returncode == 0, after.stderr
    assert "This session ran team 'pair', which cannot run now: There is no team 'pair'" in after.stderr
    assert "Traceback" not in after.stderr
    assert "42" in after.stdout and "[writer]" not in after.stdout
