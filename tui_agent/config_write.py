"""Provides `set_config_value`: change one key of the TOML config file, keeping the rest and its comments.

The file is edited with tomlkit (comments and layout survive) and replaced atomically, so a crash never
leaves half a file. It refuses to write anything that looks like a secret: API keys live in the
environment only.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import tomlkit
from tomlkit.exceptions import ParseError
from tomlkit.items import Table

from tui_agent import paths
from tui_agent.config import ConfigFileError

SECRET_NAME = re.compile(r"(^|_)(api_?key|key|token|secret|password)$", re.IGNORECASE)
"""Key names tui-agent never writes (`api_key_env`, a variable *name*, is fine)."""
SECRET_VALUE = re.compile(r"^(sk|pk|rk)-[A-Za-z0-9_-]{16,}$|^Bearer\s", re.IGNORECASE)
"""Values shaped like an API key or an auth header, refused whatever the key is called."""

ConfigValue = str | int | float | bool | list[str]


def set_config_value(path: Path, key: str, value: ConfigValue) -> None:
    """Set `key` (dotted for tables, e.g. "keys.cancel_turn") to `value` in the file at `path`.

    Raises `ConfigFileError` (a readable sentence) when the key names a secret or the file cannot be
    parsed, read or written; an unparsable file is left untouched.
    """
    *tables, name = key.split(".")
    if SECRET_NAME.search(name):
        raise ConfigFileError(f"tui-agent never writes {name!r} to {path}: keep secrets in the environment.")
    if isinstance(value, str) and SECRET_VALUE.search(value):
        raise ConfigFileError(f"The value for {key!r} looks like an API key; tui-agent never writes one to {path}.")
    document = _read_document(path)
    container: tomlkit.TOMLDocument | Table = document
    for table in tables:
        if table not in container:
            container[table] = tomlkit.table()
        found = container[table]
        if not isinstance(found, Table):
            raise ConfigFileError(f"{path}: {table!r} is not a table, so {key!r} cannot be set.")
        container = found
    container[name] = value
    _replace(path, tomlkit.dumps(document))


def _read_document(path: Path) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return tomlkit.document()
    except ParseError as error:  # its message names the line and column
        raise ConfigFileError(f"{path}: {error}; fix it by hand, it was not changed") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigFileError(f"{path}: cannot be read ({error})") from error


def _replace(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, then rename it over `path` (atomic on one filesystem)."""
    try:
        paths.private_folder(path.parent)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise ConfigFileError(f"{path}: cannot be written ({error})") from error
