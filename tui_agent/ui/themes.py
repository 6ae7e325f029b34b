"""Provides theme loading: shipped and user TOML files become Textual `Theme`s; bad files become problems.

A theme file is validated with pydantic; a file that fails is reported (one sentence) and skipped, so a
broken user theme never stops the app. `APP_VARIABLE_DEFAULTS` are the app's own colour variables, used
as fallbacks so Textual's built-in themes work with our stylesheet too.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError
from textual.color import Color, ColorParseError
from textual.theme import Theme

from tui_agent import paths

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


class ThemeFile(BaseModel):
    """The shape of one theme TOML file."""

    model_config = ConfigDict(extra="forbid")

    name: str
    primary: str
    dark: bool = True
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    variables: dict[str, str] = {}

    def colours(self) -> dict[str, str]:
        """Every colour value in the file by key (Textual's own variables may hold other values), to check them."""
        named = self.model_dump(exclude={"name", "dark", "variables"}, exclude_none=True)
        ours = {f"variables.{key}": value for key, value in self.variables.items() if key in APP_VARIABLE_DEFAULTS}
        return {**named, **ours}


@dataclass
class ThemeSet:
    """Loaded themes by name, and one sentence per file that could not be loaded."""

    themes: dict[str, Theme] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def theme_folders(extra: Iterable[Path] = ()) -> list[Path]:
    """Shipped themes first, then the user's folder, then any extra folders (later wins on a name clash)."""
    return [paths.shipped_dir("themes"), paths.user_themes_dir(), *extra]


def load_themes(folders: Iterable[Path]) -> ThemeSet:
    """Load every `*.toml` theme in `folders`; missing folders are fine."""
    loaded = ThemeSet()
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
    """Parse one theme file; raises ValueError with a readable reason."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        spec = ThemeFile.model_validate(data)
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot be read ({error})") from error
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"is not valid TOML ({error})") from error
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise ValueError(f"{where}: {first['msg']}") from error
    for key, value in spec.colours().items():
        try:
            Color.parse(value)
        except ColorParseError as error:
            raise ValueError(f"{key}: {value!r} is not a colour") from error
    return Theme(**spec.model_dump(exclude_none=True))


def problems_notice(problems: list[str]) -> str:
    """One notification text for every theme file that was skipped."""
    return "Skipped theme files that could not be loaded:\n" + "\n".join(f"• {problem}" for problem in problems)
