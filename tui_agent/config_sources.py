"""Provides the sources settings come from — the TOML file, the environment, flags — merged by precedence.

Nothing here imports pydantic: the app reads the few settings its first frame needs from these sources
(`tui_agent.boot.first_paint_settings`, into `tui_agent.config_fields`' classes) and paints at once;
`tui_agent.config` validates everything in the engine's build. Both skip an invalid value alone (validation
reports it with its line); where they could still disagree, the built agent's endpoint and model are what the
status bar shows from then on.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tui_agent.config_fields import DEFAULT_API_KEY_ENV as DEFAULT_API_KEY_ENV
from tui_agent.file_trust import RefusedFileError, read_user_file

ENV_VARS: Mapping[str, str] = {
    "OPENAI_BASE_URL": "base_url",
    "TUI_AGENT_MODEL": "model",
    "TUI_AGENT_THEME": "theme",
    "TUI_AGENT_DB": "db",
}
"""Environment variable -> setting it sets."""


class ConfigFileError(ValueError):
    """The config file cannot be used; the message names the file and, for syntax errors, the line."""


class RefusedConfigError(ConfigFileError):
    """The config file is refused: others could change it (`tui_agent.file_trust`); `reason` says how."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} is refused: {reason}; using the defaults instead")
        self.reason = reason


def read_config_file(path: Path) -> dict[str, Any]:
    """Read a TOML config file; a missing file is an empty config. A file that others could change is
    refused (its `[mcp_servers]` would run as you): `RefusedConfigError`."""
    try:
        return tomllib.loads(read_user_file(path).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except RefusedFileError as error:
        raise RefusedConfigError(path, str(error)) from error
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
