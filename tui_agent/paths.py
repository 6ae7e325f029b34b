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


PRIVATE_FOLDER_MODE = 0o700
"""Every folder tui-agent makes is yours alone: logs, history and MCP servers' output may hold secrets."""


def private_folder(path: Path, *, ours: bool = False) -> Path:
    """Return `path`, creating it and each missing folder above it as yours alone (0700, whatever the umask).

    `ours`: the folder is one of tui-agent's own (config, data, logs, MCP logs...), so one made by an older
    version under a looser mode is made private too. A folder the user chose (an export's) is left as it is.
    """
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=PRIVATE_FOLDER_MODE, exist_ok=True)
        folder.chmod(PRIVATE_FOLDER_MODE)  # mkdir's mode is masked by the umask
    if ours and not missing:
        _tighten(path)
    return path


def _tighten(folder: Path) -> None:
    try:
        info = folder.stat()
        if info.st_uid == os.geteuid() and info.st_mode & 0o077:
            folder.chmod(info.st_mode & PRIVATE_FOLDER_MODE)
    except OSError:  # not ours to change after all (a read-only mount): it stays as it is
        pass


def _ensure(path: Path) -> Path:
    return private_folder(path, ours=True)


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


def retrieval_index_path() -> Path:
    """Return the passage index's own SQLite file, next to the history (it is rebuilt, never precious)."""
    return data_dir() / "retrieval.db"


def user_plugins_dir() -> Path:
    """Return the user's plugin folder (it may not exist)."""
    return config_dir() / "plugins"


def user_themes_dir() -> Path:
    """Return the user's themes folder (it may not exist)."""
    return config_dir() / "themes"


def shipped_dir(name: str) -> Path:
    """Return a shipped data folder (`themes`, `plugins`, `agents`, `teams` or `skills`).

    In a wheel they are bundled as `tui_agent/_shipped/<name>`; in a source checkout or an editable
    install they sit at the repository root.
    """
    package = Path(__file__).resolve().parent
    bundled = package / "_shipped" / name
    return bundled if bundled.is_dir() else package.parent / name
