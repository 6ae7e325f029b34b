"""Shipped and user themes load as Textual themes with the app's variables; bad files are reported once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color
from textual.css.stylesheet import Stylesheet

from tests.ui.helpers import chat_ready, make_app, wait_until
from tui_agent import paths
from tui_agent.config import Settings
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.themes import APP_VARIABLE_DEFAULTS, DEFAULT_THEME, load_themes, theme_folders

SHIPPED = paths.shipped_dir("themes")


def test_shipped_themes_are_valid_and_complete() -> None:
    loaded = load_themes([SHIPPED])
    assert loaded.problems == []
    themes = loaded.themes
    assert len(themes) >= 8 and DEFAULT_THEME in themes and "tui-agent-high-contrast" in themes
    assert {True, False} <= {theme.dark for theme in themes.values()}
    for theme in themes.values():
        assert set(APP_VARIABLE_DEFAULTS) <= set(theme.variables), f"{theme.name} lacks app variables"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('name = "x"\nprimary = ', "not valid TOML"),
        ('name = "x"', "primary"),
        ('name = "x"\nprimary = "#123456"\ncolour = "red"', "colour"),
        ('name = "x"\nprimary = "not-a-colour"', "not a colour"),
        ('name = "x"\nprimary = "#123456"\n[variables]\n"tool-done" = "nope"', "variables.tool-done"),
    ],
)
def test_invalid_theme_files_are_reported_and_skipped(tmp_path: Path, content: str, reason: str) -> None:
    (tmp_path / "bad.toml").write_text(content)
    (tmp_path / "good.toml").write_text('name = "good"\nprimary = "#123456"\ndark = false\n')
    loaded = load_themes([tmp_path])
    assert list(loaded.themes) == ["good"]
    [problem] = loaded.problems
    assert "bad.toml" in problem and reason in problem


def test_user_folder_is_searched() -> None:
    assert paths.user_themes_dir() in theme_folders()


async def test_app_uses_default_theme_and_reports_bad_user_themes_in_one_notification() -> None:
    user = paths.user_themes_dir()
    user.mkdir(parents=True, exist_ok=True)
    (user / "broken.toml").write_text("name = ")
    (user / "wrong.toml").write_text('name = "w"')
    (user / "mine.toml").write_text('name = "mine"\nprimary = "#ff0000"\n')
    app, _ = make_app()
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: bool(notifications(app)))
        assert app.theme == DEFAULT_THEME
        assert "mine" in app.available_themes
        [notice] = [n.message for n in notifications(app)]
        assert "broken.toml" in notice and "wrong.toml" in notice
        assert app.theme_variables["tool-running"] == "#e0af68"


async def test_the_app_starts_in_its_theme_with_one_parse_of_the_css(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's theme watcher re-parses every stylesheet source and restyles every node; set before the app
    runs, the theme needs none of that, and the re-parse fell inside the first frame (bench/startup.py)."""
    reparses: list[Stylesheet] = []
    real_reparse = Stylesheet.reparse

    def counted(stylesheet: Stylesheet) -> None:
        reparses.append(stylesheet)
        real_reparse(stylesheet)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app, _ = make_app()
    async with app.run_test() as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: "tui-agent-light" in app.available_themes, "every theme read")
        assert reparses == []
        assert app.theme == DEFAULT_THEME and app.has_class(f"-theme-{DEFAULT_THEME}", "-dark-mode")
        assert screen.styles.background == Color.parse(app.current_theme.background or "")  # its colours drawn
        assert app.theme_variables["tool-running"] == "#e0af68"


async def test_requested_theme_and_unknown_theme(tmp_path: Path) -> None:
    (tmp_path / "extra.toml").write_text('name = "extra"\nprimary = "#00ff00"\ndark = false\n')
    app = TuiAgentApp(ScriptedBackend(), settings=Settings(theme="extra"), theme_dirs=[tmp_path])
    async with app.run_test():
        assert app.theme == "extra" and not app.current_theme.dark
    app = TuiAgentApp(ScriptedBackend(), settings=Settings(theme="no-such-theme"))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: bool(notifications(app)))
        assert app.theme == DEFAULT_THEME
        assert "no-such-theme" in next(iter(notifications(app))).message


async def test_builtin_theme_works_with_app_variables() -> None:
    app = TuiAgentApp(ScriptedBackend(), settings=Settings(theme="nord"))
    async with app.run_test():
        assert app.theme == "nord"
        assert app.theme_variables["tool-failed"] == APP_VARIABLE_DEFAULTS["tool-failed"]


def test_themes_command_lists_all_and_reports_bad_files(capsys: pytest.CaptureFixture[str]) -> None:
    from tui_agent.cli import main

    user = paths.user_themes_dir()
    user.mkdir(parents=True, exist_ok=True)
    (user / "mine.toml").write_text('name = "mine"\nprimary = "#ff0000"\ndark = false\n')
    (user / "bad.toml").write_text("name = ")
    assert main(["themes"]) == 0
    out, err = capsys.readouterr()
    lines = {line[2:].split()[0]: line for line in out.splitlines()}
    assert lines["tui-agent-dark"].startswith("*") and "shipped" in lines["tui-agent-dark"]
    assert "light" in lines["mine"] and "user" in lines["mine"]
    assert "textual" in lines["nord"]
    assert "bad.toml" in err


async def test_a_theme_in_a_file_named_otherwise_is_found(tmp_path: Path) -> None:
    (tmp_path / "my-colours.toml").write_text('name = "sunrise"\nprimary = "#ff8800"\n')
    app = TuiAgentApp(ScriptedBackend(), settings=Settings(theme="sunrise"), theme_dirs=[tmp_path])
    async with app.run_test():
        assert app.theme == "sunrise" and app.current_theme.primary == "#ff8800"


async def test_a_later_folder_redefining_the_theme_on_screen_wins_once_all_are_read(tmp_path: Path) -> None:
    """The first frame reads only `<theme>.toml`; a differently named file in a later folder that redefines
    the same theme still wins, as soon as every file has been read."""
    (tmp_path / "override.toml").write_text(f'name = "{DEFAULT_THEME}"\nprimary = "#123456"\n')
    shipped_primary = TuiAgentApp(ScriptedBackend()).get_css_variables()["primary"]
    app = TuiAgentApp(ScriptedBackend(), theme_dirs=[tmp_path])
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: "tui-agent-light" in app.available_themes, "every theme read")
        await wait_until(pilot, lambda: app.current_theme.primary == "#123456", "the override in force")
        assert app.theme == DEFAULT_THEME
        assert app.theme_variables["primary"] != shipped_primary  # the stylesheet's colours follow it


async def test_a_bad_user_theme_is_reported_once_when_the_app_is_started_as_the_cli_does() -> None:
    user = paths.user_themes_dir()
    user.mkdir(parents=True, exist_ok=True)
    (user / "broken.toml").write_text("name = ")
    app = TuiAgentApp(ScriptedBackend(), theme_dirs=(paths.user_themes_dir(),))  # as launch.py passes it
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: bool(notifications(app)))
        await pilot.pause(0.1)
        text = "\n".join(n.message for n in notifications(app))
        assert text.count("broken.toml") == 1, text
