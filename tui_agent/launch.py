"""Provides the two ways `tui-agent` runs a chat: the full-screen app and `-p` (one turn, plain text).

Both build settings from the command line the same way and use the same agent; only the front end
differs. The app paints first and builds the agent in the background (`DeferredAgent`), so start-up
does not wait for the openai import, plugins or the offline model.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tui_agent import paths
from tui_agent.agent.deferred import BuiltAgent, DeferredAgent
from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint
from tui_agent.agent.resume import ResumeFailedError, ResumeRequest, apply_resume
from tui_agent.config_sources import first_paint_settings
from tui_agent.ending import Ending, ending_on_signals
from tui_agent.terminal import OwnTerminal, output_log_path, own_terminal, private_reply

if TYPE_CHECKING:  # validated settings (pydantic) load after the first paint
    from tui_agent.config import Settings
    from tui_agent.history.peek import SessionPeek

STDIN_PROMPT = "-"


def flags_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given on the command line (None: not given)."""
    return {
        "base_url": args.base_url, "model": args.model, "offline": args.offline, "db": args.db,
        "plugin_dirs": args.plugins, "theme": args.theme,
    }


def settings_from_args(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    """Settings for this run (flags > environment > config file) and any problem with the config file."""
    from tui_agent.config import resolve_settings

    return resolve_settings(flags_from_args(args), paths.config_file())


YOUNG_COLLECTION_THRESHOLD = 10_000
"""Allocations between young-generation collections (Python's default: 700)."""


def tune_garbage_collector() -> None:
    """Collect less often: Textual allocates many short-lived objects per frame, and at the default
    threshold scrolling a 10,000-message session spent a sixth of its time in full collections, up to
    260 ms each, landing in frames (bench/resume.py: frame p95 13.9 -> 11.9 ms, page p95 224 -> 153 ms)."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, old)


def run_app(args: argparse.Namespace) -> int:
    """Run the full-screen chat until the user quits (or SIGTERM/SIGHUP arrives, or the terminal goes).

    The first frame uses the few settings it needs read without validation; the settings are validated,
    and their problems reported, with the rest of the engine after the paint. Only the UI writes to the
    terminal meanwhile: fds 1 and 2 go to the output log (`tui_agent.terminal`).
    """
    tune_garbage_collector()
    first = first_paint_settings(flags_from_args(args), paths.config_file())
    choice = choose_endpoint(first)
    request = ResumeRequest.from_args(args)
    backend = DeferredAgent(lambda: _build_in_background(args, request, backend), model=choice.model,
                            endpoint=choice.label)
    if request is None:
        backend.starts_empty = True
    else:
        backend.peek = early_look(first.db or paths.db_path(), request)
    from tui_agent.ui.app import TuiAgentApp

    with own_terminal(output_log_path()) as terminal:
        app = TuiAgentApp(backend, theme=first.theme, theme_dirs=(paths.user_themes_dir(),), keys=first.keys,
                          output_log=terminal.log, reasoning=first.reasoning)
        backend.on_notice = app.show_notice
        asyncio.run(_run_until_exit(app, backend, terminal))
    for alarm in backend.alarms:  # a notification is easily missed; this stays in the terminal (fds 1/2 are back)
        print(f"tui-agent: {alarm}", file=sys.stderr)
    return app.return_code or 0


async def _build_in_background(args: argparse.Namespace, request: ResumeRequest | None = None,
                               backend: DeferredAgent | None = None) -> BuiltAgent:
    # Importing the engine (openai alone is ~650 ms) in a thread keeps the fresh screen responsive meanwhile.
    gc.enable()  # off since `cli.main` began; the app starts this once its first frame is up
    settings, problems = await asyncio.to_thread(settings_from_args, args)
    services = await asyncio.to_thread(importlib.import_module, "tui_agent.agent.services")
    built: BuiltAgent = await services.build_agent(settings, choose_endpoint(settings))
    built.notices[:0] = problems
    try:
        _, notice = await apply_resume(built.agent, request)
    except ResumeFailedError as error:  # the app carries on in a fresh session and says why, inline
        notice = f"{error} Starting a new session."
    if notice and backend is not None:
        backend.resume_failure = notice
    return built


def early_look(db: Path, request: ResumeRequest) -> Callable[[int], Awaitable[SessionPeek | None]]:
    """Reads the resumed session's newest page straight from the file, in a thread (shown while the engine
    is built, so a long session is on screen as soon as a short one)."""

    async def look(limit: int) -> SessionPeek | None:
        from tui_agent.history.peek import peek_session

        return await asyncio.to_thread(peek_session, db, request.session_id, limit)

    return look


async def _run_until_exit(app: Any, backend: DeferredAgent, terminal: OwnTerminal) -> None:
    loop = asyncio.get_running_loop()
    # a normal exit, asked of the loop: terminal restored, history flushed below
    ending = Ending(lambda: loop.call_soon_threadsafe(app.exit), report=terminal.log.path)
    terminal.when_lost(ending.now)
    with ending_on_signals(ending, signal.SIGTERM, signal.SIGHUP):
        try:
            await app.run_async()
        finally:
            await backend.close()


def run_print(args: argparse.Namespace) -> int:
    """Run one turn for `-p PROMPT` (`-p -` reads stdin), or `--retry`/`--continue-reply` of a session's last
    reply, and print the reply; returns the exit status."""
    redo = redo_of(args)
    if isinstance(redo, int):
        return redo
    prompt = sys.stdin.read() if args.print == STDIN_PROMPT else args.print
    if redo is None and not prompt.strip():
        print("tui-agent: the prompt is empty.", file=sys.stderr)
        return 2
    settings, problems = settings_from_args(args)
    for problem in problems:
        print(f"tui-agent: {problem}", file=sys.stderr)
    with private_reply() as reply:  # what tools and plugins write goes to stderr, never into the reply
        return asyncio.run(_print_one_turn(settings, choose_endpoint(settings), prompt, reply,
                                           ResumeRequest.from_args(args), getattr(args, "allow", None) or [], redo,
                                           getattr(args, "show_reasoning", False)))


def redo_of(args: argparse.Namespace) -> str | int | None:
    """"retry" or "continue" for `-p --retry` / `-p --continue-reply`, None for a prompt, or exit status 2
    (said on stderr) when the flags do not fit together."""
    retry, more = getattr(args, "retry", False), getattr(args, "continue_reply", False)
    if not (retry or more):
        return None
    problem = None
    if retry and more:
        problem = "use --retry or --continue-reply, not both"
    elif not (args.continue_session or args.resume):
        problem = "they need a session: add --continue (the most recent) or --resume ID"
    elif args.print:
        problem = "they take no prompt (the session's last one is used)"
    if problem is not None:
        print(f"tui-agent: --retry and --continue-reply redo the last reply of a session; {problem}.",
              file=sys.stderr)
        return 2
    return "retry" if retry else "continue"


async def _print_one_turn(settings: Settings, choice: EndpointChoice, prompt: str, reply: TextIO,
                          request: ResumeRequest | None = None, allowed: list[str] | None = None,
                          redo: str | None = None, show_reasoning: bool = False) -> int:
    from tui_agent.agent.agent import NothingToRedoError
    from tui_agent.agent.headless import print_turn, say
    from tui_agent.agent.services import build_agent

    try:
        built = await build_agent(settings, choice)
    except Exception as error:
        say(sys.stderr, f"could not start: {error}")
        return 1
    for notice in built.notices:
        say(sys.stderr, notice)
    if not built.agent.model:  # none named and the server did not say which: a notice above says what to do
        await built.close()
        return 1
    if built.agent.mcp is not None:  # a server that fails to start is named on stderr; the turn goes on
        built.agent.mcp.watch(lambda notice: say(sys.stderr, notice))
    built.agent.store.on_notice = lambda notice: say(sys.stderr, notice)  # disk full, a lock that outlasts the run
    try:
        try:
            _, resume_notice = await apply_resume(built.agent, request)
        except ResumeFailedError as error:
            say(sys.stderr, str(error))
            return 1
        if resume_notice:
            say(sys.stderr, resume_notice)
        # non-interactive: tools that ask are denied (print_turn answers them), unless --allow names them
        built.agent.runner.preapproved = frozenset(allowed or [])
        for name in sorted(set(allowed or []) - set(built.agent.registry.names())):
            say(sys.stderr, f"--allow {name}: there is no tool called {name} (see `tui-agent plugins`)")
        agent = built.agent
        turn = {"retry": agent.retry, "continue": agent.continue_reply}.get(redo or "", lambda: agent.send(prompt))
        try:
            return await print_turn(agent, prompt, reply, sys.stderr, turn(),
                                    show_reasoning=show_reasoning)
        except NothingToRedoError as error:
            say(sys.stderr, str(error))
            return 1
    finally:
        await built.close()
