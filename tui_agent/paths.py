"""Provides every filesystem location tui-agent uses, in one place.

Locations come from platformdirs. `TUI_AGENT_HOME` puts config, data and plugins under one root,
which is how tests keep away from the user's real files.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

APP_NAME = "tui-agent"
HOME_ENV = "TUI_AGENT_HOME"


def _dirs() -> PlatformDirs:
    return PlatformDirs(APP_NAME, appauthor=False)


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def _root(kind: str, default: Path) -> Path:
    home = os.environ.get(HOME_ENV)
    return Path(home) / kind if home else default


def config_dir() -> Path:
    """Return (creating) the directory holding config.toml, themes/ and plugins/."""
    return _ensure(_root("config", _dirs().user_config_path))


def data_dir() -> Path:
    """Return (creating) the directory holding the history database."""
    return _ensure(_root("data", _dirs().user_data_path))


def config_file() -> Path:
    """Return the path of the TOML config file (it may not exist)."""
    return config_dir() / "config.toml"


def db_path() -> Path:
    """Return the default history database path."""
    return data_dir() / "history.db"


def user_plugins_dir() -> Path:
    """Return the user's plugin folder (it may not exist)."""
    return config_dir() / "plugins"


def user_themes_dir() -> Path:
    """Return the user's themes folder (it may not exist)."""
    return config_dir() / "themes"


def shipped_dir(name: str) -> Path:
    """Return a shipped data folder (`themes`, `plugins`, `agents` or `teams`).

    In a wheel they are bundled as `tui_agent/_shipped/<name>`; in a source checkout or an editable
    install they sit at the repository root.
    """
    package = Path(__file__).resolve().parent
    bundled = package / "_shipped" / name
    return bundled if bundled.is_dir() else package.parent / name
