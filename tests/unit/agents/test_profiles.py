"""Agent and team files: the shipped ones load, bad ones are reported by path and skipped, later folders win."""

from __future__ import annotations

from pathlib import Path

from tui_agent import paths
from tui_agent.agents.profiles import AgentProfile, load_catalog


def test_the_shipped_agents_and_team_load_without_problems() -> None:
    catalog = load_catalog([paths.shipped_dir("agents")], [paths.shipped_dir("teams")])

    assert {"assistant", "researcher", "coder", "writer", "critic"} <= set(catalog.agents)
    assert catalog.teams["writer-critic"].members == ["writer", "critic"]
    assert catalog.problems_of() == []


def test_a_bad_file_is_reported_by_its_path_and_the_others_still_load(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text('description = "fine"\n')
    (tmp_path / "broken.toml").write_text("name = [\n")
    (tmp_path / "typo.toml").write_text('name = "typo"\nmax_tool_round = 3\n')

    catalog = load_catalog([tmp_path], [])

    assert list(catalog.agents) == ["good"]
    assert [problem.split(":")[0] for problem in catalog.problems] == [
        str(tmp_path / "broken.toml"),
        str(tmp_path / "typo.toml"),
    ]
    assert "max_tool_round" in catalog.problems[1]


def test_a_later_folder_wins_a_name_clash_and_dangling_delegates_are_problems(tmp_path: Path) -> None:
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    (shipped / "helper.toml").write_text('description = "shipped"\n')
    (user / "helper.toml").write_text('description = "mine"\ndelegates = ["nobody"]\n')

    catalog = load_catalog([shipped, user], [])

    assert catalog.agents["helper"].description == "mine"
    assert catalog.sources["helper"] == user / "helper.toml"
    assert catalog.problems_of() == ["agent 'helper' delegates to 'nobody', which is not an agent"]


def test_tool_patterns_and_approval_overrides() -> None:
    profile = AgentProfile(name="r", tools=["read_*", "github.*"], approval={"run_*": "deny", "run_shell": "ask"})

    assert profile.allows_tool("read_file") and profile.allows_tool("github.search")
    assert not profile.allows_tool("run_shell")
    assert profile.approval_for("run_shell") == "ask"
    assert profile.approval_for("run_python") == "deny"
    assert profile.approval_for("read_file") is None
