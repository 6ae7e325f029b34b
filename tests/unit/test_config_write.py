"""`set_config_value`: one key changed, the rest of the file (comments, layout) kept; secrets refused; the file
replaced atomically, and left untouched when it cannot be parsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.config import ConfigFileError, resolve_settings
from tui_agent.config_write import set_config_value

ORIGINAL = """# my tui-agent settings
model = "gpt-4o-mini"   # the cheap one
theme = "tui-agent-dark"

[keys]
# I like Emacs
cancel_turn = "ctrl+g"
"""


def write(tmp_path: Path, text: str = ORIGINAL) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def leftovers(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p != path)


def test_changes_one_value_and_keeps_comments_and_layout(tmp_path: Path) -> None:
    path = write(tmp_path)
    set_config_value(path, "theme", "paper")
    assert path.read_text() == ORIGINAL.replace('theme = "tui-agent-dark"', 'theme = "paper"')
    settings, problems = resolve_settings({}, path, environ={})
    assert (settings.theme, settings.model, problems) == ("paper", "gpt-4o-mini", [])


def test_dotted_key_sets_a_table_entry(tmp_path: Path) -> None:
    path = write(tmp_path)
    set_config_value(path, "keys.sessions", "ctrl+o")
    text = path.read_text()
    assert '# I like Emacs\ncancel_turn = "ctrl+g"\nsessions = "ctrl+o"' in text
    settings, _ = resolve_settings({}, path, environ={})
    assert settings.keys == {"cancel_turn": "ctrl+g", "sessions": "ctrl+o"}


def test_missing_file_and_folder_are_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    set_config_value(path, "tools.timeout", 12.5)
    settings, _ = resolve_settings({}, path, environ={})
    assert settings.tools.timeout == 12.5


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("api_key", "abc"),
        ("openai_api_key", "abc"),
        ("token", "abc"),
        ("providers.x.secret", "abc"),
        ("model", "sk-proj-0123456789abcdefABCDEF"),
        ("keys.help", "Bearer abc"),
    ],
)
def test_secrets_are_refused_and_the_file_is_unchanged(tmp_path: Path, key: str, value: str) -> None:
    path = write(tmp_path)
    with pytest.raises(ConfigFileError, match="never writes"):
        set_config_value(path, key, value)
    assert path.read_text() == ORIGINAL and leftovers(path) == []


def test_the_name_of_the_key_variable_is_not_a_secret(tmp_path: Path) -> None:
    path = write(tmp_path)
    set_config_value(path, "api_key_env", "MY_PROVIDER_KEY")
    assert 'api_key_env = "MY_PROVIDER_KEY"' in path.read_text()


def test_file_is_replaced_by_rename_not_rewritten_in_place(tmp_path: Path) -> None:
    path = write(tmp_path)
    before = path.stat().st_ino
    set_config_value(path, "theme", "forest")
    assert path.stat().st_ino != before  # a new file renamed over the old: readers see old or new, never half
    assert leftovers(path) == []


def test_unparsable_file_is_left_untouched_and_the_line_named(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "a"\ntheme = \n')
    with pytest.raises(ConfigFileError, match="line 2"):
        set_config_value(path, "theme", "paper")
    assert path.read_text() == 'model = "a"\ntheme = \n' and leftovers(path) == []


def test_a_value_in_the_way_of_a_table_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path)
    with pytest.raises(ConfigFileError, match="not a table"):
        set_config_value(path, "theme.dark", True)
    assert path.read_text() == ORIGINAL
