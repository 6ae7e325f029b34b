"""Provides theme loading: shipped and user TOML files become Textual `Theme`s; bad files become problems.

A theme file is checked key by key; a file that fails is reported (one sentence) and skipped, so a
broken user theme never stops the app. `ThemeStart` is the first frame's fast path: only the wanted
theme's own file before it, every other file after it. `APP_VARIABLE_DEFAULTS` are the app's own colour variables, used
as fallbacks so Textual's built-in themes work with our stylesheet too.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme

from tui_agent import paths
from tui_agent.file_trust import RefusedFileError, read_user_file

DEFAULT_THEME = "tui-agent-dark"

APP_VARIABLE_DEFAULTS: dict[str, str] = {
    "role-user": "#7dcfff",
    "role-assistant": "#c0caf5",
    "role-error": "#f7768e",
    "tool-pending": "#808080",
    "tool-awaiting-approval": "#ff9e64",
    "tool-running": "#e0af68",
    "tool-done": "#9ece6a",
    "tool-failed": "#f7768e",
    "tool-denied": "#db4b4b",
    "tool-interrupted": "#a9b1d6",
}


THEME_COLOURS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "warning",
    "error",
    "success",
)
"""Colour keys a theme file may set (`primary` it must)."""
THEME_KEYS = {"name", "dark", "variables", *THEME_COLOURS}


def theme_spec(data: dict[str, Any]) -> dict[str, Any]:
    """Check a theme file's values; returns `Theme` arguments, raises ValueError naming the bad key.

    Checked by hand rather than with pydantic: themes load before the first frame, pydantic after it.
    """
    unknown = sorted(set(data) - THEME_KEYS)
    if unknown:
        raise ValueError(f"{unknown[0]}: not a theme setting (known: {', '.join(sorted(THEME_KEYS))})")
    for key in ("name", "primary"):
        if key not in data:
            raise ValueError(f"{key}: missing (every theme needs a name and a primary colour)")
    for key in ("name", *THEME_COLOURS):
        if key in data and not isinstance(data[key], str):
            raise ValueError(f"{key}: should be a string")
    if not isinstance(data.get("dark", True), bool):
        raise ValueError("dark: should be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(value, str) for value in variables.values()):
        raise ValueError("variables: should be a table of strings")
    colours = {key: data[key] for key in THEME_COLOURS if key in data}
    colours |= {f"variables.{key}": value for key, value in variables.items() if key in APP_VARIABLE_DEFAULTS}
    for key, value in colours.items():
        try:
            Color.parse(value)
        except ColorParseError as error:
            raise ValueError(f"{key}: {value!r} is not a colour") from error
    return data


class ThemeSet(NamedTuple):
    """Loaded themes by name, and one sentence per file that could not be loaded (a NamedTuple: its class
    is made before the first frame, where a dataclass costs ~0.6 ms more)."""

    themes: dict[str, Theme]
    problems: list[str]


def theme_folders(extra: Iterable[Path] = ()) -> list[Path]:
    """Shipped themes first, then the user's folder, then any extra folders (later wins on a name clash).
    Each folder once: the CLI passes the user's folder as an extra one too, and its bad files were reported twice."""
    return list(dict.fromkeys([paths.shipped_dir("themes"), paths.user_themes_dir(), *extra]))


def find_theme_file(name: str, folders: Iterable[Path]) -> Path | None:
    """`<name>.toml` in the last of `folders` that has one (the folder that wins a name clash)."""
    for folder in reversed(list(folders)):
        if (path := folder / f"{name}.toml").is_file():
            return path
    return None


def load_themes(folders: Iterable[Path]) -> ThemeSet:
    """Load every `*.toml` theme in `folders`; missing folders are fine."""
    loaded = ThemeSet({}, [])
    for folder in folders:
        for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
            try:
                theme = load_theme_file(path)
            except ValueError as error:
                loaded.problems.append(f"{path}: {error}")
            else:
                loaded.themes[theme.name] = theme
    return loaded


def load_theme_file(path: Path) -> Theme:
    """Parse one theme file; raises ValueError with a readable reason (one that others could change is
    refused: `tui_agent.file_trust`)."""
    try:
        data = tomllib.loads(read_user_file(path, shipped=paths.shipped_dir("themes")).decode("utf-8"))
    except RefusedFileError as error:
        raise ValueError(f"is refused: {error}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot be read ({error})") from error
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"is not valid TOML ({error})") from error
    return Theme(**theme_spec(data))


def problems_notice(problems: list[str]) -> str:
    """One notification text for every theme file that was skipped."""
    return "Skipped theme files that could not be loaded:\n" + "\n".join(f"• {problem}" for problem in problems)


def start_in(app: App[Any], name: str) -> None:
    """Set the theme of an app that is not running yet, as `app.theme = name` would, without the stylesheet
    re-parse Textual's theme watcher queues for the app's first turn: before the app runs there is no CSS to
    parse again, and that re-parse (the app's and every widget's CSS a second time, then every node restyled)
    landed in the first frame (~2 ms, bench/startup.py). A theme of the other brightness, or an app already
    running, goes through Textual's watcher: its ANSI colour mapping has to change too."""
    theme = app.get_theme(name)
    if theme is None or app.is_running or theme.dark != app.current_theme.dark:
        app.theme = name
        return
    app.set_reactive(App.theme, name)
    for old in [cls for cls in app.classes if cls.startswith("-theme-")]:
        app.set_class(False, old, update=False)
    app.set_class(True, f"-theme-{name}", update=False)  # what the watcher adds, for CSS keyed on the theme
    app.stylesheet.set_variables(app.get_css_variables())  # read when the stylesheet is first parsed


class ThemeStart:
    """Registers an app's themes: the wanted one before the first frame (its own file, when its name gives
    it away; started in by `start_in`), every file once the frame is out (`finish`; ~6 ms), for the theme
    picker."""

    def __init__(self, app: App[Any], extra_dirs: Iterable[Path] = ()) -> None:
        self.app = app
        self.folders = theme_folders(extra_dirs)
        self.pending = True
        """Some theme files are still to be read (`finish` reads them)."""

    def start(self, wanted: str) -> list[str]:
        """Register theme `wanted` (all of them when its file does not give it away) and start in it;
        returns what to tell the person (a theme that does not exist, files that were skipped)."""
        notices: list[str] = []
        if not self._register_named(wanted):
            notices.extend(self.finish())
        if wanted not in self.app.available_themes:
            notices.append(f"There is no theme called {wanted!r}; using {DEFAULT_THEME}.")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.app.available_themes else "textual-dark"
        start_in(self.app, wanted)
        return notices

    def _register_named(self, name: str) -> bool:
        """Register the theme called `name` from `<name>.toml`; False when that file has no such theme."""
        if name in self.app.available_themes:  # one of Textual's
            return True
        path = find_theme_file(name, self.folders)
        try:
            theme = load_theme_file(path) if path is not None else None
        except ValueError:  # reported when all the files are loaded
            return False
        if theme is None or theme.name != name:
            return False
        self.app.register_theme(theme)
        return True

    def finish(self) -> list[str]:
        """Register every theme file (once); returns the one notice about skipped files, if any."""
        if not self.pending:
            return []
        self.pending = False
        shown = self.app.current_theme
        loaded = load_themes(self.folders)
        for theme in loaded.themes.values():
            self.app.register_theme(theme)
        if self.app.get_theme(shown.name) != shown:  # a folder read later redefines the theme on screen
            self.app.refresh_css(animate=False)
        return [problems_notice(loaded.problems)] if loaded.problems else []
