"""`tui-agent config path|show`: where the file is, the effective settings with the origin of each value
(flag > environment > file > default), a broken file reported by line (a syntax error: defaults used; an invalid
value: its own default, or its tools off), no API key ever shown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui_agent import paths
from tui_agent.cli import main

SECRET = "sk-test-0123456789abcdefSECRET"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    assert main(list(argv)) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def setting_lines(out: str) -> dict[str, str]:
    """`name -> whole line` for each top-level setting shown (set or not)."""
    lines: dict[str, str] = {}
    for line in out.splitlines():
        if " = " in line and not line.startswith("# "):
            lines[line.split(" = ")[0]] = line
        elif line.startswith("# ") and line.split()[2:4] == ["is", "not"]:
            lines[line.split()[1]] = line
    return lines


def test_path_names_the_file_and_says_when_it_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = run(capsys, "config", "path")
    assert out.strip() == str(paths.config_file())
    assert "does not exist yet" in err
    paths.config_file().write_text("")
    out, err = run(capsys, "config", "path")
    assert out.strip() == str(paths.config_file()) and err == ""


def test_show_gives_each_value_its_origin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    paths.config_file().write_text(
        'model = "file-model"\ntheme = "file-theme"\nmax_tool_rounds = 3\n[keys]\nsessions = "ctrl+o"\n'
    )
    monkeypatch.setenv("TUI_AGENT_MODEL", "env-model")
    monkeypatch.setenv("TUI_AGENT_THEME", "env-theme")
    out, err = run(capsys, "--theme", "flag-theme", "config", "show")
    lines = setting_lines(out)
    assert lines["theme"] == 'theme = "flag-theme"  # flag --theme'
    assert lines["model"] == 'model = "env-model"  # environment $TUI_AGENT_MODEL'
    assert lines["max_tool_rounds"] == "max_tool_rounds = 3  # config file"
    assert lines["stall_timeout"] == "stall_timeout = 30.0  # default"
    assert lines["base_url"].startswith("# base_url is not set") and lines["base_url"].endswith("# default")
    assert "[keys]  # config file" in out and 'sessions = "ctrl+o"' in out
    assert str(paths.config_file()) in out and err == ""


def test_syntax_error_is_named_by_line_and_defaults_are_shown(capsys: pytest.CaptureFixture[str]) -> None:
    paths.config_file().write_text('model = "ok"\ntheme = \n')
    out, err = run(capsys, "config", "show")
    assert str(paths.config_file()) in err and "line 2" in err and "using the defaults" in err
    lines = setting_lines(out)
    assert lines["theme"] == 'theme = "tui-agent-dark"  # default'
    assert lines["model"] == 'model = "offline"  # default: the offline model\'s'  # the file's "ok" is not used


def test_an_invalid_value_falls_back_alone_and_show_says_which(capsys: pytest.CaptureFixture[str]) -> None:
    paths.config_file().write_text('model = "m"\nmax_tool_rounds = "many"\n[tools]\napproval = { run_shell = "x" }\n')
    out, err = run(capsys, "config", "show")
    assert "max_tool_rounds (line 2)" in err and "tools.approval.run_shell (line 4)" in err
    lines = setting_lines(out)
    assert lines["model"] == 'model = "m"  # config file'
    assert lines["max_tool_rounds"] == "max_tool_rounds = 10  # default: the config file's value on line 2 is invalid"
    assert "# Invalid in the config file, so not used:" in out
    assert "#   max_tool_rounds (line 2): Input should be a valid integer" in out
    assert "the tool run_shell is disabled until it is fixed" in out.split("[tools]")[0]


def test_api_key_is_never_shown(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", SECRET)
    paths.config_file().write_text(f'api_key_env = "MY_KEY"\napi_key = "{SECRET}"\n')
    out, err = run(capsys, "config", "show")
    assert SECRET not in out + err
    assert "$MY_KEY, which is set" in out
    assert setting_lines(out)["api_key_env"] == 'api_key_env = "MY_KEY"  # config file'


def test_config_path_as_a_real_command(tmp_path: Path) -> None:
    env = {**os.environ, "TUI_AGENT_HOME": str(tmp_path / "elsewhere")}
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "config", "path"], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0
    assert done.stdout.strip() == str(tmp_path / "elsewhere" / "config" / "config.toml")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[tools]\ntimeout = -1\n", "tools.timeout (line 2)"),
        ('[keys]\nhelp = "f1"\nsessions = 5\n', "keys.sessions (line 3)"),
        ('[tools]\napproval = {shell = "sometimes"}\n', "tools.approval.shell (line 2)"),
    ],
)
def test_invalid_values_in_tables_are_named_by_line(capsys: pytest.CaptureFixture[str], text: str, named: str) -> None:
    paths.config_file().write_text(text)
    _, err = run(capsys, "config", "show")
    assert named in err and "invalid value" in err


def test_themes_marks_the_theme_a_run_would_use(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def marked(*argv: str) -> list[str]:
        out, _ = run(capsys, *argv, "themes")
        return [line.split()[1] for line in out.splitlines() if line.startswith("*")]

    assert marked() == ["tui-agent-dark"]
    paths.config_file().write_text('theme = "nord"\n')
    assert marked() == ["nord"]
    monkeypatch.setenv("TUI_AGENT_THEME", "paper")
    assert marked() == ["paper"]
    assert marked("--theme", "forest") == ["forest"]


def test_show_lists_mcp_servers_without_their_env_or_header_values(capsys: pytest.CaptureFixture[str]) -> None:
    paths.config_file().write_text(
        f'[mcp_servers.gh]\ncommand = "gh-mcp"\nenv = {{ GITHUB_TOKEN = "{SECRET}" }}\n'
        f'[mcp_servers.docs]\nurl = "http://127.0.0.1:1/mcp"\n'
        f'headers = {{ Authorization = "Bearer {SECRET}" }}\n'
    )
    out, err = run(capsys, "config", "show")
    assert SECRET not in out + err and err == ""
    assert 'gh = {command = "gh-mcp", args = [], env = {GITHUB_TOKEN = "(set, not shown)"}' in out
    assert 'headers = {Authorization = "(set, not shown)"}' in out


def test_show_carries_no_escape_or_bidi_control(capsys: pytest.CaptureFixture[str]) -> None:
    paths.config_file().write_text('system_prompt = "\\u001b]0;pwned\\u0007 be \\u202egnp.exe"\nmodel = 3\n')
    out, err = run(capsys, "config", "show")
    assert "system_prompt" in out and "model" in err
    assert not {"\x1b", "\x07", "\u202e"} & set(out + err)


def test_show_says_what_the_run_uses_when_no_endpoint_or_only_a_key_is_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    lines = setting_lines(run(capsys, "config", "show")[0])
    assert lines["offline"] == (
        "offline = true  # default: no endpoint is configured, so the built-in offline model answers"
    )
    assert lines["model"] == 'model = "offline"  # default: the offline model\'s'
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out = run(capsys, "config", "show")[0]
    lines = setting_lines(out)
    assert lines["offline"] == "offline = false  # default"
    assert lines["base_url"].startswith('base_url = "https://api.openai.com/v1"  # default: OpenAI')
    assert lines["model"] == 'model = "gpt-4o-mini"  # default: this endpoint\'s'
    assert SECRET not in out


def test_show_lists_command_hooks_one_line_per_event_and_an_invalid_matcher_by_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths.config_file().write_text('[[hooks.before_tool]]\nmatcher = "run_shell"\ncommand = "./check.sh"\n')
    out, err = run(capsys, "config", "show")
    assert err == "" and "\n[hooks]  # config file\n" in out
    assert 'before_tool = [{command = "./check.sh", matcher = "run_shell", timeout = 10.0, name = ""}]' in out
    assert "\nafter_tool = []\n" in out and "log =" not in out  # unset: the data folder's hooks.log
    paths.config_file().write_text('[[hooks.before_tool]]\nmatcher = "run_(shell"\ncommand = "./check.sh"\n')
    out, err = run(capsys, "config", "show")
    assert "hooks.before_tool (line 1)" in err and "not a regular expression" in err, err
    assert "every tool is disabled until it is fixed" in err  # fails closed: that hook might have denied any call
