"""Config file problems never stop the app: the message names the file and line; a syntax error costs the file,
an invalid value only itself, and an invalid tool setting turns the tools it concerns off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.config import Settings, resolve_settings
from tui_agent.history.redact import Redactor


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "a"\nthis is not toml\n')
    settings, problems = resolve_settings({}, path, environ={})
    assert settings == Settings()
    assert len(problems) == 1 and str(path) in problems[0] and "line 2" in problems[0]


def test_invalid_value_names_the_key_and_flags_still_apply(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("max_tool_rounds = 0\n")
    settings, problems = resolve_settings({"model": "flag-model"}, path, environ={})
    assert settings.max_tool_rounds == 10 and settings.model == "flag-model"
    assert "max_tool_rounds" in problems[0]


def test_valid_file_is_used(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "file-model"\nmax_tool_rounds = 3\n')
    settings, problems = resolve_settings({}, path, environ={})
    assert (settings.model, settings.max_tool_rounds, problems) == ("file-model", 3, [])


def test_missing_file_is_empty_config(tmp_path: Path) -> None:
    settings, problems = resolve_settings({}, tmp_path / "absent.toml", environ={})
    assert settings == Settings() and problems == []


TYPO_AND_GOOD_VALUES = """\
model = "file-model"
max_tool_rounds = "many"
redact_secrets = false

[tools]
disabled_plugins = ["shell"]
timeout = 5

[keys]
sessions = "ctrl+o"
help = 5
"""


def test_a_typo_costs_only_its_own_value(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(TYPO_AND_GOOD_VALUES)
    settings, problems = resolve_settings({}, path, environ={})
    assert settings.model == "file-model" and settings.redact_secrets is False
    assert settings.tools.disabled_plugins == ["shell"] and settings.tools.timeout == 5
    assert settings.keys == {"sessions": "ctrl+o"}
    assert settings.max_tool_rounds == 10 and settings.tools.turned_off == {}
    assert problems == [
        f"{path}: invalid value for max_tool_rounds (line 2) (Input should be a valid integer, unable to parse "
        "string as an integer); using the default for it",
        f"{path}: invalid value for keys.help (line 11) (Input should be a valid string); using the default for it",
    ]


@pytest.mark.parametrize(
    ("text", "off", "setting"),
    [
        ('[tools.run_shell]\nallow = "git status"\n', "run_shell", "tools.run_shell.allow (line 3)"),
        ('[tools.run_shell]\nallow = ["ls; rm -rf ~"]\n', "run_shell", "tools.run_shell.allow (line 3)"),
        ('[tools]\napproval = { run_shell = "nevr" }\n', "run_shell", "tools.approval.run_shell (line 3)"),
        ('[tools]\napproval = "ask"\n', "*", "tools.approval (line 3)"),
        ('[tools]\ndisabled_plugins = "shell"\n', "*", "tools.disabled_plugins (line 3)"),
        ('[tools]\ndisabled_tools = ["run_shell", 3]\n', "*", "tools.disabled_tools (line 3)"),
        ("tools = 3\n", "*", "tools (line 2)"),
    ],
)
def test_an_invalid_tool_setting_fails_closed(tmp_path: Path, text: str, off: str, setting: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "kept"\n' + text)
    settings, (problem,) = resolve_settings({}, path, environ={})
    assert settings.model == "kept"
    assert settings.tools.turned_off == {off: setting}
    then = "every tool is disabled" if off == "*" else f"the tool {off} is disabled"
    assert problem.startswith(f"{path}: invalid value for {setting} (")
    assert problem.endswith(f"{then} until it is fixed")


def test_an_invalid_limit_falls_back_without_turning_tools_off(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[tools]\ntimeout = -1\ndisabled_tools = ["calculate"]\n')
    settings, (problem,) = resolve_settings({}, path, environ={})
    assert settings.tools.timeout == 30.0 and settings.tools.disabled_tools == ["calculate"]
    assert settings.tools.turned_off == {} and problem.endswith("using the default for it")


def test_redaction_is_off_only_for_a_real_false_and_the_history_agrees(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    for text, redacts in [
        ("redact_secrets = false\nmax_tool_rounds = 0\n", False),
        ('redact_secrets = "false"\n', True),
        ("redact_secrets = 0\n", True),
    ]:
        path.write_text(text)
        settings, _ = resolve_settings({}, path, environ={})
        assert settings.redact_secrets is redacts
        assert Redactor.default(path).token_shapes is redacts


def test_the_problems_are_said_in_the_file_order_and_an_unknown_key_is_called_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'compact_at = 2.5\n[prices."offline"]\ninput = 1.0\noutput = "two"\n[ui]\nnotify = "loud"\nbogus = 1\n'
    )
    _, problems = resolve_settings({}, path, environ={})
    assert [problem.split(" (line ")[1].split(")")[0] for problem in problems] == ["1", "4", "6", "7"]
    assert problems[-1] == f"{path}: unknown setting ui.bogus (line 7) (no such setting: a typo?); it is ignored"


def test_a_misspelt_top_level_setting_is_said_with_its_line_and_the_rest_applies(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "gpt-4o-mini"\n\ntemprature = 0.5\n[ui]\nnotify = "bell"\n')
    settings, problems = resolve_settings({}, path, environ={})
    assert problems == [f"{path}: unknown setting temprature (line 3) (no such setting: a typo?); it is ignored"]
    assert settings.model == "gpt-4o-mini" and settings.temperature is None and settings.ui.notify == "bell"


def test_an_api_key_in_the_file_is_said_to_be_ignored_and_where_the_key_comes_from(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "gpt-4o-mini"\napi_key = "sk-test-0123456789abcdefghijklmnop"\n')
    _, problems = resolve_settings({}, path, environ={})
    assert problems == [
        f"{path}: api_key (line 2) is ignored: the key is read from the environment variable api_key_env names "
        "(OPENAI_API_KEY unless it says otherwise), never from a file"
    ]
