"""Config file problems never stop the app: the message names the file and line, defaults are used."""

from __future__ import annotations

from pathlib import Path

from tui_agent.config import Settings, resolve_settings


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
