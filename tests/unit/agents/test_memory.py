"""Memory files: which AGENTS.md (or CLAUDE.md/GEMINI.md) are read, in which order, cut, refused, and the block
the system prompt gets; `config show` lists them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_agent.agent.profile_use import turn_setup
from tui_agent.agents.memory import BLOCK_END, BLOCK_START, find_memory, nearest_memory_file, with_memory
from tui_agent.agents.profiles import AgentProfile
from tui_agent.cli import main
from tui_agent.config import MemorySettings, Settings

ON = MemorySettings()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o644)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository two folders deep: root/AGENTS.md, root/app/CLAUDE.md, root/app/web/ (the working folder)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root / "AGENTS.md", "Root rules.")
    write(root / "app" / "CLAUDE.md", "App rules, Claude's name.")
    write(root / "app" / "GEMINI.md", "Not read: CLAUDE.md comes first.")
    (root / "app" / "web").mkdir()
    return root


def test_files_are_read_from_the_users_then_the_git_root_down_with_fallbacks(repo: Path, tmp_path: Path) -> None:
    user = tmp_path / "config"
    write(user / "AGENTS.md", "Mine everywhere.")
    web = repo / "app" / "web"
    write(web / "AGENTS.md", "Web rules.")
    write(web / "CLAUDE.md", "Not read: this folder has an AGENTS.md.")
    write(tmp_path / "AGENTS.md", "Not read: above the git root.")

    memory = find_memory(web, ON, user)

    assert [file.path for file in memory.files] == [
        user / "AGENTS.md",
        repo / "AGENTS.md",
        repo / "app" / "CLAUDE.md",
        web / "AGENTS.md",
    ]
    assert not memory.problems
    block = memory.block()
    assert block.startswith(BLOCK_START) and block.endswith(BLOCK_END)
    assert f'<memory-file path="{repo / "AGENTS.md"}">\nRoot rules.\n</memory-file>' in block
    assert block.index("Mine everywhere.") < block.index("Root rules.") < block.index("Web rules.")
    assert "Not read" not in block

    no_fallbacks = find_memory(web, MemorySettings(fallbacks=False), user)
    assert [file.path.name for file in no_fallbacks.files] == ["AGENTS.md"] * 3
    assert find_memory(web, MemorySettings(enabled=False), user).files == ()
    assert nearest_memory_file(web) == web / "AGENTS.md"
    assert nearest_memory_file(repo / "app") == repo / "AGENTS.md"  # the nearest AGENTS.md, not CLAUDE.md


def test_outside_git_only_the_working_folder_counts(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "Above: not read.")
    here = tmp_path / "here"
    write(here / "GEMINI.md", "Gemini's name.")

    memory = find_memory(here, ON, tmp_path / "no-config")

    assert [file.path for file in memory.files] == [here / "GEMINI.md"]
    assert nearest_memory_file(here) == here / "AGENTS.md"  # none yet: made where the search starts


def test_a_long_file_is_cut_with_a_notice_and_an_untrusted_one_refused(repo: Path, tmp_path: Path) -> None:
    write(repo / "AGENTS.md", "x" * 1000)
    shared = write(repo / "app" / "CLAUDE.md", "Anyone could have written this.")
    shared.chmod(0o666)

    memory = find_memory(repo / "app" / "web", MemorySettings(max_bytes=300), tmp_path / "no-config")

    [cut] = memory.files
    assert cut.cut and cut.size == 1000
    assert cut.text.startswith("x" * 300) and "x" * 301 not in cut.text
    assert "only the first 300 are read" in cut.text
    [problem] = memory.problems
    assert str(shared) in problem and "chmod" in problem and "Anyone could" not in memory.block()
    assert any(line.startswith("refused: ") for line in memory.listing())
    assert "cut to the size cap" in memory.listing()[0]


def test_the_block_goes_into_the_system_prompt_unless_the_agent_opts_out() -> None:
    settings = Settings(system_prompt=None)
    block = f"{BLOCK_START}\nrules\n{BLOCK_END}"

    assert turn_setup(AgentProfile(name="a"), settings, memory=block).memory == block
    assert turn_setup(AgentProfile(name="b", memory=False), settings, memory=block).memory == ""
    assert turn_setup(None, settings, memory=block).memory == block

    told = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert with_memory(told, block)[0]["content"] == f"Be brief.\n\n{block}"
    assert told[0]["content"] == "Be brief."  # what is stored is unchanged
    assert with_memory(told[1:], block) == [{"role": "system", "content": block}, told[1]]
    assert with_memory(told, "") == told


def test_config_show_lists_the_files_in_force(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "app" / "web")

    assert main(["config", "show"]) == 0

    out = capsys.readouterr().out
    listed = out[out.index("# Memory files") :]
    assert f"#   {repo / 'AGENTS.md'} (11 bytes)" in listed
    assert f"{repo / 'app' / 'CLAUDE.md'}" in listed
    assert os.fspath(repo / "app" / "GEMINI.md") not in listed
