"""The `tui-agent` entry point: --version and --help work from a fresh install."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from tui_agent import __version__


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_agent", *args], capture_output=True, text=True, timeout=60)


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"tui-agent {__version__}"


def test_help_lists_options() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    assert "--offline" in out.stdout and "--base-url" in out.stdout


def test_a_mistyped_command_names_every_command() -> None:
    out = run_cli("--offline", "sesions")
    assert out.returncode == 2
    assert "invalid choice: 'sesions'" in out.stderr
    assert all(name in out.stderr for name in ("plugins", "serve", "sessions", "themes", "config"))


def test_options_alone_parse_without_building_the_commands() -> None:
    from tui_agent.cli import build_parser

    args = build_parser(["--offline", "--continue"]).parse_args(["--offline", "--continue"])
    assert args.command is None and args.offline and args.continue_session


def test_collections_are_back_on_after_any_command_but_the_app(capsys: pytest.CaptureFixture[str]) -> None:
    """main() turns the collector off while it starts; only the app, which turns it on after its first
    frame, keeps it off past parsing."""
    from tui_agent.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert gc.isenabled()
    assert main(["config", "path"]) == 0
    assert gc.isenabled()
    assert capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "prompt", "command"),
    [
        (["-p", "--agent", "coder", "fix it"], "fix it", None),
        (["-p", "--team", "writer-critic", "--offline", "a post"], "a post", None),
        (["--print", "--attach", "a.txt", "--attach", "b.txt", "what is in these"], "what is in these", None),
        (["-p", "-", "--agent", "coder"], "-", None),  # stdin, named right after -p
        (["-p", "sessions"], "sessions", None),  # right after -p, a word is the prompt
        (["-p", "--continue"], "", None),  # no prompt at all (--retry and --continue-reply need none)
        (["--offline", "sessions", "list"], None, "sessions"),
    ],
)
def test_the_prompt_may_come_after_the_options_of_p(argv: list[str], prompt: str | None, command: str | None) -> None:
    from tui_agent.cli import build_parser, prompt_beside_print

    parser = build_parser(argv)
    args = parser.parse_args(prompt_beside_print(parser, argv))
    assert (args.print, args.command) == (prompt, command)


@pytest.mark.parametrize(
    ("argv", "otel", "command"),
    [
        (["--otel", "sessions", "list"], "otlp", "sessions"),  # a command's name is not --otel's file
        (["--otel", "trace.jsonl", "-p", "hi"], "trace.jsonl", None),
        (["--otel=sessions", "-p", "hi"], "sessions", None),  # a file named like a command, said so
        (["--otel"], "otlp", None),
    ],
)
def test_a_bare_otel_before_a_command_traces_to_otlp(argv: list[str], otel: str, command: str | None) -> None:
    from tui_agent.cli import build_parser, otel_before_command

    args = build_parser(argv).parse_args(otel_before_command(argv))
    assert (args.otel, args.command) == (otel, command)
