"""Markdown commands: which folders are read and which file wins a name, front matter, arguments filled in, files
refused (others could change them, too big, a built-in's name), and what a `/name args` prompt asks for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_agent.cli import main
from tui_agent.commands.catalogue import BUILTINS, Catalogue, invocation
from tui_agent.commands.command_files import find_commands
from tui_agent.commands.templates import fill, split_arguments
from tui_agent.config import CommandSettings

ON = CommandSettings()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o644)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a working folder two levels down (root/app/web)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "app" / "web").mkdir(parents=True)
    return root


def test_the_nearest_folder_wins_a_name_ours_before_other_tools_and_the_project_before_the_user(
    repo: Path, tmp_path: Path
) -> None:
    user, home, web = tmp_path / "config", tmp_path / "home", repo / "app" / "web"
    write(repo / ".tui-agent/commands/review.md", "Root review.")
    write(web / ".tui-agent/commands/review.md", "---\ndescription: Web review\n---\nWeb review of $ARGUMENTS.")
    write(web / ".claude/commands/review.md", "Claude's review: not read, ours is in the same folder.")
    write(repo / ".claude/commands/git/commit.md", "Commit with message $1.")
    write(repo / ".opencode/command/deploy.md", "# Deploy it\n\nDeploy to $1.")
    write(user / "commands/standup.md", "Write my standup.")
    write(user / "commands/review.md", "The user's review: the project's wins.")
    write(home / ".claude/commands/mine.md", "From Claude Code's user folder.")
    write(tmp_path / ".tui-agent/commands/above.md", "Above the git root: not read.")

    found = find_commands(web, ON, user, home)

    by_name = {file.name: file for file in found.files}
    assert set(by_name) == {"review", "git:commit", "deploy", "standup", "mine"}
    assert by_name["review"].path == web / ".tui-agent/commands/review.md"
    assert by_name["review"].description == "Web review"
    assert by_name["review"].source == "project" and by_name["standup"].source == "user"
    assert by_name["deploy"].description == "Deploy it"  # the first line when there is no description
    assert by_name["review"].expand("the parser").text == "Web review of the parser."
    assert not found.problems
    only_ours = find_commands(web, CommandSettings(other_tools=False), user, home)
    assert {file.name for file in only_ours.files} == {"review", "standup"}
    assert find_commands(web, CommandSettings(enabled=False), user, home).files == ()


def test_front_matter_agent_model_and_named_arguments(repo: Path, tmp_path: Path) -> None:
    text = (
        "---\n"
        "description: 'Review a file: bugs first'  # a comment\n"
        "agent: coder\n"
        "model: qwen3:8b\n"
        "arguments:\n"
        "  - file\n"
        "  - focus\n"
        "allowed-tools: Bash(git:*)\n"
        "---\n"
        "Review $file, looking at $focus. All: $ARGUMENTS. First: $1. Not a name: $files."
    )
    write(repo / ".tui-agent/commands/check.md", text)
    write(repo / ".tui-agent/commands/hinted.md", "---\nargument-hint: [pr] [branch]\n---\nLook at PR $1.")

    found = find_commands(repo, ON, tmp_path / "config", tmp_path / "home")

    check = found.find("check")
    assert check is not None
    assert (check.description, check.agent, check.model) == ("Review a file: bugs first", "coder", "qwen3:8b")
    assert check.arguments == ("file", "focus") and check.command.hint == "<file> <focus>"
    assert check.command.takes_arguments
    expanded = check.expand('app.py "error handling"')
    assert expanded.text == (
        'Review app.py, looking at error handling. All: app.py "error handling". First: app.py. Not a name: $files.'
    )
    assert (expanded.agent, expanded.model) == ("coder", "qwen3:8b")
    hinted = found.find("hinted")
    assert hinted is not None and hinted.command.hint == "[pr] [branch]" and hinted.arguments == ()


def test_filling_in_arguments() -> None:
    assert fill("Fix $1 then $2.", "a.py") == "Fix a.py then ."  # a missing word is empty, as in Claude Code
    assert fill("Say hello.", "to Ana") == "Say hello.\n\nARGUMENTS: to Ana"  # nothing typed is lost
    assert fill("Say hello.", "") == "Say hello."
    assert fill("Echo $1 and $ARGUMENTS", "$2 x") == "Echo $2 and $2 x"  # an argument is not filled again
    assert split_arguments('one "two words" three') == ["one", "two words", "three"]
    assert split_arguments('an "unclosed quote') == ["an", '"unclosed', "quote"]


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_files_refused_are_said_and_left_out(repo: Path, tmp_path: Path) -> None:
    folder = repo / ".tui-agent/commands"
    write(folder / "shared.md", "Anyone could change me.").chmod(0o666)
    write(folder / "big.md", "x" * 300)
    write(folder / "help.md", "My help.")
    write(folder / "bad name!.md", "Spaces.")
    write(folder / "fine.md", "Fine.")

    found = find_commands(repo, CommandSettings(max_bytes=256), tmp_path / "config", tmp_path / "home")

    assert [file.name for file in found.files] == ["fine"]
    said = "\n".join(found.problems)
    assert "shared.md" in said and "chmod o-w" in said
    assert "big.md: 300 bytes, over the 256" in said
    assert "/help is a built-in command" in said
    assert "bad name!.md" in said


def test_a_prompt_names_a_command_and_the_catalogue_finds_it() -> None:
    assert invocation("/review src/app.py  now\n") is not None
    assert invocation("/review src/app.py  now") == invocation("/review   src/app.py  now")
    found = invocation("/git:commit fix the bug\nsecond line")
    assert found is not None and (found.name, found.arguments) == ("git:commit", "fix the bug\nsecond line")
    assert invocation("/usr/bin/env is a path") is None
    assert invocation("no command") is None and invocation("/") is None

    catalogue = Catalogue()
    assert [command.name for command in catalogue.matching("co")][:3] == ["compact", "continue", "copy"]
    assert "commands" in [command.name for command in catalogue.matching("co")]
    assert catalogue.matching("")[0] == BUILTINS[0]
    assert "memory" in catalogue and catalogue.find("nope") is None


def test_p_runs_a_command_says_an_unknown_one_and_refuses_the_apps_own(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / ".tui-agent/commands/hello.md", "---\nagent: researcher\n---\nSay hello to $1 and $2.")
    monkeypatch.chdir(repo)

    def run(prompt: str) -> tuple[int, str, str]:
        status = main(["--offline", "-p", prompt])
        out, err = capfd.readouterr()
        return status, out, err

    status, out, err = run('/hello Ana "Bo Li"')
    assert status == 0 and "You asked: *Say hello to Ana and Bo Li.*" in out, (out, err)
    assert "/hello runs with the researcher agent" in err
    status, out, err = run("/nope at all")
    assert status == 0 and "/nope is not a command: sent as text" in err and "You asked: */nope at all*" in out
    status, out, err = run("/compact")
    assert status == 2 and "/compact is one of the app's commands" in err and not out


def test_the_repositorys_own_example_commands_load(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[3]
    found = find_commands(repo, CommandSettings(other_tools=False), tmp_path / "config", tmp_path / "home")
    assert {"review", "explain"} <= {file.name for file in found.files} and not found.problems
    review = found.find("review")
    assert review is not None and review.command.hint == "<file> [what to look at]"
    assert review.expand("tui_agent/cli.py the flags").text.startswith("Review tui_agent/cli.py in this repository")
