"""The first frame's settings, read without validation, agree with the validated ones wherever the file is valid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.endpoint import choose_endpoint
from tui_agent.boot import first_paint_settings
from tui_agent.config import Settings, UiSettings, resolve_settings
from tui_agent.config_fields import DEFAULTS, RunFields, UiFields, read_leniently

CASES = [
    pytest.param("", {}, {}, id="nothing: offline"),
    pytest.param('base_url = "http://file:1/v1"\nmodel = "m"\ntheme = "paper"\n', {}, {}, id="file"),
    pytest.param('base_url = "http://file:1/v1"\n', {"OPENAI_BASE_URL": "http://env:2/v1"}, {}, id="env over file"),
    pytest.param('model = "file"\n', {"TUI_AGENT_MODEL": "env"}, {"model": "flag"}, id="flag over env"),
    pytest.param('base_url = "http://file:1/v1"\noffline = true\n', {}, {}, id="offline in file"),
    pytest.param('api_key_env = "MY_KEY"\n', {"MY_KEY": "k"}, {}, id="named key: OpenAI"),
    pytest.param('[keys]\ncancel_turn = "ctrl+c"\n', {}, {"theme": "ember"}, id="keys and theme flag"),
    pytest.param('[ui]\nreasoning = "hidden"\n', {}, {}, id="reasoning hidden"),
    pytest.param(
        '[ui]\nattach_paste_over = 40\nattach_max_bytes = 1000\nnotify = "bell"\nnotify_after = 2\n', {}, {}, id="[ui]"
    ),
]


@pytest.mark.parametrize(("text", "environ", "flags"), CASES)
def test_first_frame_settings_match_the_validated_ones(
    tmp_path: Path, text: str, environ: dict[str, str], flags: dict[str, Any]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    first = first_paint_settings(flags, path, environ)
    settings, problems = resolve_settings(flags, path, environ)
    assert problems == []
    assert choose_endpoint(first, environ) == choose_endpoint(settings, environ)
    assert (first.theme, first.keys) == (settings.theme, settings.keys)
    assert ui_values(first.ui) == ui_values(settings.ui)


def ui_values(ui: UiFields) -> dict[str, object]:
    return {name: getattr(ui, name) for name in UiFields.__annotations__}


def test_values_of_the_wrong_type_and_a_broken_file_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('base_url = 5\ntheme = ["x"]\noffline = "yes please"\n[keys]\nquit = 3\n[ui]\nreasoning = 1\n')
    first = first_paint_settings({}, path, {})
    assert (first.base_url, first.theme, first.offline, first.keys) == (None, "tui-agent-dark", False, {})
    assert first.ui.reasoning == "collapsed"
    path.write_text("base_url = \n")
    assert first_paint_settings({"model": "m"}, path, {}).model == "m"


def test_values_out_of_their_limits_are_skipped_as_validation_skips_them(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[ui]\nattach_paste_over = 0\nattach_max_bytes = 2.5\nnotify = "loud"\nnotify_after = -1\n')
    first = first_paint_settings({}, path, {})
    settings, problems = resolve_settings({}, path, {})
    assert ui_values(first.ui) == ui_values(settings.ui) == ui_values(UiSettings())
    assert len(problems) == 4


def test_each_first_frame_setting_is_declared_once_with_one_default() -> None:
    """The validated models take their fields (and defaults) from the first frame's classes; nothing else
    declares them (a field declared again in `Settings` would shadow it and could drift)."""
    for fields, model in ((RunFields, Settings), (UiFields, UiSettings)):
        assert set(fields.__annotations__) <= set(model.model_fields)
        assert not set(fields.__annotations__) & set(model.__annotations__) - {"ui"}
    assert ui_values(read_leniently(UiFields, {})) == ui_values(UiSettings()) == ui_values(DEFAULTS.ui)
    top = [name for name in RunFields.__annotations__ if name != "ui"]
    assert {name: getattr(DEFAULTS, name) for name in top} == {name: getattr(Settings(), name) for name in top}
