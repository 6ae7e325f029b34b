"""Provides what the app's first frame needs, read fast and without the engine, and how the engine is built.

`boot(args)` reads the few settings the first frame shows (endpoint, model, theme, keys, history file, `[ui]`)
straight from the sources into the settings model's own pydantic-free part (`tui_agent.config_fields`),
unvalidated: pydantic loads with the engine. `early_page` reads a resumed
session's newest page straight from the history file (stdlib sqlite3, read-only), so a long session is on
screen as soon as a short one; the history view shows it while the engine is built. `build_engine` is
what the app runs in a worker after its first frame: validated settings, the agent, `--continue`/`--resume`.
The theme's fast path is `tui_agent.ui.themes.start_theme`; the first frame must not import more than
`tests/unit/test_import_hygiene.py` allows.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tui_agent import paths
from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint
from tui_agent.agent.port import EarlyPage
from tui_agent.agent.resume import ResumeFailedError, ResumeRequest, apply_resume
from tui_agent.config_fields import RunFields, read_leniently, with_provider_key
from tui_agent.config_sources import ConfigFileError, merge_sources, read_config_file

if TYPE_CHECKING:  # validated settings (pydantic), the engine and history's records load after the first frame
    from tui_agent.agent.services import BuiltAgent
    from tui_agent.config import Settings
    from tui_agent.history.peek import SessionPeek


class Boot(NamedTuple):
    """The first frame's settings, the endpoint they name, and the session to resume (if any)."""

    settings: RunFields
    """The run's settings as the first frame reads them (`tui_agent.config_fields.read_leniently`)."""
    choice: EndpointChoice
    resume: ResumeRequest | None
    early_page: EarlyPage | None


def flags_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given on the command line (None: not given)."""
    return {
        "base_url": args.base_url,
        "model": args.model,
        "offline": args.offline,
        "provider": getattr(args, "provider", None),
        "db": args.db,
        "plugin_dirs": args.plugins,
        "theme": args.theme,
        "agent": getattr(args, "agent", None),
    }


def boot(args: argparse.Namespace) -> Boot:
    """What the first frame of `tui-agent [--continue | --resume ID]` needs."""
    first = first_paint_settings(flags_from_args(args), paths.config_file())
    request = ResumeRequest.from_args(args)
    page = early_page(first.db or paths.db_path(), request) if request is not None else None
    return Boot(first, choose_endpoint(first), request, page)


def first_paint_settings(flags: Mapping[str, Any], path: Path, environ: Mapping[str, str] | None = None) -> RunFields:
    """The first frame's settings from the same sources, unvalidated: a value of the wrong type is skipped."""
    try:
        file_values = read_config_file(path)
    except ConfigFileError:  # the engine's build reports it
        file_values = {}
    merged = merge_sources(file_values, environ, flags)
    return with_provider_key(read_leniently(RunFields, merged), merged)


def early_page(db: Path, request: ResumeRequest) -> EarlyPage:
    """Reads the resumed session's newest page straight from the file, in a thread."""

    async def look(limit: int) -> SessionPeek | None:
        return await asyncio.to_thread(_peek, db, request.session_id, limit)

    return look


def _peek(db: Path, session_id: str | None, limit: int) -> SessionPeek | None:
    # In the thread: sqlite3 and history's record classes load off the loop that draws the first frame.
    from tui_agent.history.peek import peek_session

    return peek_session(db, session_id, limit)


def settings_from_args(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    """Settings for this run (flags > environment > config file) and any problem with the config file."""
    # pydantic (~40 ms) loads with the engine, after the first frame; `-p` calls this at once.
    from tui_agent.config import resolve_settings

    settings, problems = resolve_settings(flags_from_args(args), paths.config_file())
    if (otel := getattr(args, "otel", None)) is not None:  # `--otel [otlp|FILE]`: traced this run
        settings = settings.model_copy(update={"tracing": settings.tracing.chosen_by_flag(otel)})
    if docs := getattr(args, "docs", None):  # added to `[retrieval] folders`, not in their place
        retrieval = settings.retrieval.model_copy(update={"folders": [*settings.retrieval.folders, *map(Path, docs)]})
        settings = settings.model_copy(update={"retrieval": retrieval})
    return settings, problems


async def build_engine(args: argparse.Namespace, request: ResumeRequest | None = None) -> BuiltAgent:
    """The engine for the app: settings validated, the agent built, the session asked for resumed.

    Its modules (openai alone is ~650 ms) are imported in a thread, so the fresh screen stays responsive.
    A session that cannot be resumed leaves a fresh one and `resume_failure` saying why.
    """
    gc.enable()  # off since `cli.main` began (start-up's objects live on); the first frame is up by now
    settings, problems = await asyncio.to_thread(settings_from_args, args)
    services = await asyncio.to_thread(importlib.import_module, "tui_agent.agent.services")
    built: BuiltAgent = await services.build_agent(settings, choose_endpoint(settings))
    built.notices[:0] = problems
    from tui_agent.tools.modes import start_mode  # deferred: loaded with the engine (above), not the first frame

    permissions = built.agent.runner.permissions
    unsandboxed = getattr(args, "dangerously_auto_without_sandbox", False)
    if refused := start_mode(permissions, getattr(args, "mode", None), settings.tools.mode, unsandboxed=unsandboxed):
        built.notices.append(refused)
    built.resume_failure = await resume_notice(built, request)
    return built


async def resume_notice(built: BuiltAgent, request: ResumeRequest | None) -> str | None:
    """Resume what `request` names in the built agent; the sentence to show inline when that did not work.
    What resuming says (the session's agent or team is gone) joins the build's notices: no one listens yet."""
    stop = built.agent.watch_notices(built.notices.append)
    try:
        _, notice = await apply_resume(built.agent, request)
    except ResumeFailedError as error:  # the app carries on in a fresh session and says why, inline
        notice = f"{error} Starting a new session."
    finally:
        stop()
    return notice
