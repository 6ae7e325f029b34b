"""Provides `tui-agent config path|show`: where the config file is, and the settings a run would use.

`show` prints the effective settings as TOML, each value followed by where it came from (flag,
environment, file or default), after a list of the file's invalid values and what became of each (the
default used, or the tools turned off), and ends with the memory files (AGENTS.md...) in force here. API keys
are never printed: only the name of the variable that holds one. A plain-http endpoint on another machine is
flagged with a warning line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint, cleartext_warning
from tui_agent.agents.memory import Memory, find_memory
from tui_agent.config import ENV_VARS, Fallback, Settings, resolve_config
from tui_agent.sanitize import sanitize

FLAG_FIELDS: Mapping[str, tuple[str, str]] = {
    "base_url": ("base_url", "--base-url"),
    "model": ("model", "--model"),
    "offline": ("offline", "--offline"),
    "db": ("db", "--db"),
    "plugin_dirs": ("plugins", "--plugins"),
    "theme": ("theme", "--theme"),
}
"""Settings field -> (argparse attribute, flag) for the top-level flags that set it."""


def add_parser(subparsers: Any) -> None:
    """Register `config path` and `config show`."""
    parser = subparsers.add_parser("config", help="show the config file's path or the effective settings")
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    actions.add_parser("path", help="print the config file's path").set_defaults(func=run_path)
    actions.add_parser("show", help="print the effective settings and where each comes from").set_defaults(
        func=run_show
    )


def run_path(args: argparse.Namespace) -> int:
    """Print the config file's path (and say so on stderr when it does not exist yet)."""
    path = paths.config_file()
    print(path)
    if not path.exists():
        print("tui-agent: the file does not exist yet; create it to change the defaults.", file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print the settings a run with these flags would use, as TOML with a source comment per value."""
    path = paths.config_file()
    flags = flag_values(args)
    resolved = resolve_config(flags, path)
    for problem in resolved.problems:
        print(f"tui-agent: {sanitize(problem)}", file=sys.stderr)
    origin = sources(flags, os.environ, resolved.file_values, resolved.fallbacks)
    text = render_settings(resolved.settings, origin, path, resolved.fallbacks, resolved.refused)
    print(sanitize(text))  # values are the file's
    print(sanitize(memory_listing(find_memory(Path.cwd(), resolved.settings.memory, paths.config_dir()))))
    return 0


def memory_listing(memory: Memory) -> str:
    """The memory files in force here, as TOML comments (`config show`'s last lines)."""
    lines = ["", "# Memory files in the system prompt, most general first (see docs/context.md):"]
    return "\n".join([*lines, *(f"#   {line}" for line in memory.listing())])


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as top-level flags (e.g. `tui-agent --model X config show`)."""
    return {field: getattr(args, attr, None) for field, (attr, _) in FLAG_FIELDS.items()}


def sources(
    flags: Mapping[str, Any],
    environ: Mapping[str, str],
    file_values: Mapping[str, Any],
    fallbacks: Sequence[Fallback] = (),
) -> dict[str, str]:
    """Where each settings field's value comes from, by the precedence flags > environment > file > default
    (`file_values`: the file's valid values; a field whose file value is invalid says so)."""
    env_for = {field: var for var, field in ENV_VARS.items()}
    invalid = {fallback.name: fallback for fallback in fallbacks}
    found: dict[str, str] = {}
    for field in Settings.model_fields:
        if flags.get(field) is not None:
            found[field] = f"flag {FLAG_FIELDS[field][1]}"
        elif field in env_for and environ.get(env_for[field]):
            found[field] = f"environment ${env_for[field]}"
        elif field in file_values:
            found[field] = "config file"
        elif field in invalid:
            line = invalid[field].line
            found[field] = f"default: the config file's value{f' on line {line}' if line else ''} is invalid"
        else:
            found[field] = "default"
    return found


def render_settings(
    settings: Settings,
    origin: Mapping[str, str],
    path: Path,
    fallbacks: Sequence[Fallback] = (),
    refused: str | None = None,
) -> str:
    """The settings as TOML text; unset values are comments, tables come last (`refused`: why the whole file
    was not used)."""
    lines = [f"# Effective settings (config file: {path})"]
    if refused is not None:
        lines.append(f"# The config file is refused, so none of it is used: {refused}")
    if fallbacks:
        lines.append("# Invalid in the config file, so not used:")
        lines.extend(f"#   {fallback.where}: {fallback.reason}; {fallback.consequence}" for fallback in fallbacks)
    key_var = settings.api_key_env
    state = "is set" if os.environ.get(key_var) else "is not set"
    lines.append(f"# The API key is read from ${key_var}, which {state}; it is never shown or stored.")
    warning = None if settings.offline else cleartext_warning(settings.base_url)
    if warning is not None:
        lines.append(f"# Warning: {warning}")
    values = settings.model_dump(mode="json")
    origin = {**origin, **_as_run(settings, choose_endpoint(settings), values)}
    for server in values.get("mcp_servers", {}).values():  # environment and headers often carry tokens
        for secret in ("env", "headers"):
            server[secret] = {name: "(set, not shown)" for name in server.get(secret, {})}
    tables = {name: value for name, value in values.items() if isinstance(value, dict)}
    for name, value in values.items():
        if name in tables:
            continue
        text = f"# {name} is not set" if value is None else f"{name} = {_toml(value)}"
        lines.append(f"{text}  # {origin[name]}")
    for name, table in tables.items():
        lines.append(f"\n[{name}]  # {origin[name]}")
        lines.extend(f"{_toml_key(key)} = {_toml(value)}" for key, value in table.items() if value is not None)
    return "\n".join(lines)


def _as_run(settings: Settings, choice: EndpointChoice, values: dict[str, Any]) -> dict[str, str]:
    """Put in `values` what the run decides beyond the settings (the offline model when no endpoint is set, OpenAI
    when only a key is), so `show` prints what a run would actually use; returns the origins of what it changed."""
    changed: dict[str, str] = {}
    if choice.offline and not settings.offline:
        values["offline"] = True
        changed["offline"] = "default: no endpoint is configured, so the built-in offline model answers"
    elif choice.key_alone:
        values["base_url"] = choice.base_url
        changed["base_url"] = f"default: OpenAI's, as ${choice.api_key_env} is set and no endpoint is"
    if settings.model is None and choice.model:
        values["model"] = choice.model
        changed["model"] = "default: the offline model's" if choice.offline else "default: this endpoint's"
    return changed


def _toml(value: Any) -> str:
    import tomlkit

    if isinstance(value, dict):  # a nested table is written inline so each line stays one setting
        table = tomlkit.inline_table()
        table.update({key: _inline(item) for key, item in value.items() if item is not None})
        return table.as_string()
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):  # `[[hooks.X]]`: one line too
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    rendered: str = tomlkit.item(value).as_string()
    return rendered


def _inline(value: Any) -> Any:
    """A value for an inline table: nested tables inline too, unset (None) values left out."""
    import tomlkit

    if not isinstance(value, dict):
        return value
    table = tomlkit.inline_table()
    table.update({key: _inline(item) for key, item in value.items() if item is not None})
    return table


def _toml_key(key: str) -> str:
    import tomlkit

    rendered: str = tomlkit.key(key).as_string()
    return rendered
