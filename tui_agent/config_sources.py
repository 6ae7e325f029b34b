"""Provides the sources settings come from — the TOML file, the environment, flags — and `first_paint_settings`.

Nothing here imports pydantic: the app reads the few settings its first frame needs (theme, endpoint,
model) with `first_paint_settings` and paints at once; `tui_agent.config` validates everything in the
background build. Both skip an invalid value alone (validation reports it with its line); where they could
still disagree, the built agent's endpoint and model are what the status bar shows from then on.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

ENV_VARS: Mapping[str, str] = {
    "OPENAI_BASE_URL": "base_url",
    "TUI_AGENT_MODEL": "model",
    "TUI_AGENT_THEME": "theme",
    "TUI_AGENT_DB": "db",
}
"""Environment variable -> setting it sets."""
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"


class ConfigFileError(ValueError):
    """The config file cannot be used; the message names the file and, for syntax errors, the line."""


def read_config_file(path: Path) -> dict[str, Any]:
    """Read a TOML config file; a missing file is an empty config."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as error:  # its message carries "(at line N, column M)"
        raise ConfigFileError(f"{path}: {error}; using the defaults instead") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigFileError(f"{path}: cannot be read ({error}); using the defaults instead") from error


def merge_sources(
    file_values: Mapping[str, Any], environ: Mapping[str, str] | None = None, flags: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The raw values by precedence: flags > environment > file (defaults are the validator's)."""
    environ = os.environ if environ is None else environ
    merged: dict[str, Any] = dict(file_values)
    merged.update({field: environ[var] for var, field in ENV_VARS.items() if environ.get(var)})
    merged.update({key: value for key, value in (flags or {}).items() if value is not None})
    return merged


class FirstPaintSettings(NamedTuple):
    """What the first frame needs; has the attributes `choose_endpoint` reads.

    A NamedTuple rather than a frozen dataclass, as it is made before the first frame (~0.2 ms to create
    the class against ~1.5 ms).
    """

    base_url: str | None = None
    model: str | None = None
    offline: bool = False
    api_key_env: str = DEFAULT_API_KEY_ENV
    theme: str | None = None
    keys: Mapping[str, str] = MappingProxyType({})
    """Key binding overrides (the `[keys]` table)."""
    db: Path | None = None
    """The history file, when not the default one."""
    reasoning: str = "collapsed"
    """How replies' reasoning is shown (`[ui] reasoning`; an invalid value is reported once settings load)."""


def first_paint_settings(
    flags: Mapping[str, Any], path: Path, environ: Mapping[str, str] | None = None
) -> FirstPaintSettings:
    """The first frame's settings from the same sources, unvalidated: a value of the wrong type is skipped."""
    try:
        file_values = read_config_file(path)
    except ConfigFileError:  # the background build reports it
        file_values = {}
    merged = merge_sources(file_values, environ, flags)
    return FirstPaintSettings(
        base_url=_text(merged.get("base_url")),
        model=_text(merged.get("model")),
        offline=merged.get("offline") is True,
        api_key_env=_text(merged.get("api_key_env")) or DEFAULT_API_KEY_ENV,
        theme=_text(merged.get("theme")),
        keys=_text_table(merged.get("keys")),
        db=_path(merged.get("db")),
        reasoning=_reasoning(merged.get("ui")),
    )


def _reasoning(ui: Any) -> str:
    value = ui.get("reasoning") if isinstance(ui, dict) else None
    return value if value in ("collapsed", "expanded", "hidden") else "collapsed"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _path(value: Any) -> Path | None:
    if isinstance(value, Path):
        return value.expanduser()
    return Path(value).expanduser() if isinstance(value, str) and value else None


def _text_table(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(name): text for name, text in value.items() if isinstance(text, str)}
