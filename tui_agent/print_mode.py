"""Provides `run_print`: `tui-agent -p PROMPT` (and `--retry`/`--continue-reply`), one turn printed as plain text.

It builds the same agent as the app, at once (there is no first frame to wait for): what tools and
plugins write goes to stderr, the reply alone to stdout, approval questions are denied unless `--allow`
names the tool.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from functools import partial
from pathlib import Path
from typing import TextIO

from tui_agent.agent.agent import NothingToRedoError
from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint
from tui_agent.agent.headless import print_turn, say
from tui_agent.agent.resume import ResumeFailedError, ResumeRequest, apply_resume
from tui_agent.agent.services import build_agent
from tui_agent.agent.slash_commands import prompt_to_send
from tui_agent.agent.team import TeamError
from tui_agent.agents.apply import unknown_agent
from tui_agent.boot import settings_from_args
from tui_agent.config import Settings
from tui_agent.errors import UserError
from tui_agent.history.attachments import Attachment, AttachmentError, load_attachment
from tui_agent.terminal import private_reply
from tui_agent.tools.modes import start_mode

STDIN_PROMPT = "-"


def run_print(args: argparse.Namespace) -> int:
    """Run one turn for `-p PROMPT` (`-p -` reads stdin), or `--retry`/`--continue-reply` of a session's last
    reply, and print the reply; returns the exit status."""
    redo = redo_of(args)
    if isinstance(redo, int):
        return redo
    prompt = sys.stdin.read() if args.print == STDIN_PROMPT else args.print
    if redo is None and not prompt.strip() and not getattr(args, "attach", None):
        print("tui-agent: the prompt is empty.", file=sys.stderr)
        return 2
    if (unknown := unknown_agent(getattr(args, "agent", None))) is not None:  # what there is, where to see more
        print(f"tui-agent: {unknown}", file=sys.stderr)
        return 2
    settings, problems = settings_from_args(args)
    for problem in problems:
        print(f"tui-agent: {problem}", file=sys.stderr)
    attachments = attached_files(getattr(args, "attach", None) or [], settings.ui.attach_max_bytes)
    if isinstance(attachments, int):
        return attachments
    with private_reply() as reply:  # what tools and plugins write goes to stderr, never into the reply
        return asyncio.run(
            _print_one_turn(
                settings,
                choose_endpoint(settings),
                prompt,
                reply,
                ResumeRequest.from_args(args),
                getattr(args, "allow", None) or [],
                redo,
                shown_parts(args),
                getattr(args, "team", None),
                attachments,
                (getattr(args, "mode", None), getattr(args, "dangerously_auto_without_sandbox", False)),
            )
        )


def attached_files(paths: list[str], max_bytes: int) -> list[Attachment] | int:
    """The `--attach` files, read; or exit status 2 when one cannot be attached (said on stderr, by name)."""
    attachments: list[Attachment] = []
    for path in paths:
        try:
            attachment = load_attachment(Path(path).expanduser(), name=path, max_bytes=max_bytes)
        except AttachmentError as error:
            print(f"tui-agent: --attach: {error.user_message}", file=sys.stderr)
            return 2
        if attachment.note:
            print(f"tui-agent: --attach: {path} is long: {attachment.note}.", file=sys.stderr)
        attachments.append(attachment)
    return attachments


def shown_parts(args: argparse.Namespace) -> frozenset[str]:
    """The kinds of reply parts `-p` writes to stderr: `--show-part` kinds, and reasoning for `--show-reasoning`."""
    kinds = set(getattr(args, "show_part", None) or [])
    return frozenset(kinds | {"reasoning"} if getattr(args, "show_reasoning", False) else kinds)


def redo_of(args: argparse.Namespace) -> str | int | None:
    """ "retry" or "continue" for `-p --retry` / `-p --continue-reply`, None for a prompt, or exit status 2
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
        print(f"tui-agent: --retry and --continue-reply redo the last reply of a session; {problem}.", file=sys.stderr)
        return 2
    return "retry" if retry else "continue"


async def _print_one_turn(
    settings: Settings,
    choice: EndpointChoice,
    prompt: str,
    reply: TextIO,
    request: ResumeRequest | None = None,
    allowed: list[str] | None = None,
    redo: str | None = None,
    show_parts: frozenset[str] = frozenset(),
    team: str | None = None,
    attachments: list[Attachment] | None = None,
    mode: tuple[str | None, bool] = (None, False),
) -> int:
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
    # a server that fails to start, disk full, a lock that outlasts the run: said on stderr, the turn goes on
    built.agent.watch_notices(lambda notice: say(sys.stderr, notice))
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
        runner = built.agent.runner  # -p starts in --mode, else the config's (ask: tools that ask are denied)
        if (refused := start_mode(runner.permissions, mode[0], settings.tools.mode, unsandboxed=mode[1])) is not None:
            say(sys.stderr, refused)
            return 2
        for name in sorted(set(allowed or []) - set(built.agent.registry.names())):
            say(sys.stderr, f"--allow {name}: there is no tool called {name} (see `tui-agent plugins`)")
        agent = built.agent
        if redo is None:  # `-p "/name args"`: the command's prompt
            try:
                prompt, said = await prompt_to_send(agent, prompt)
            except UserError as error:
                say(sys.stderr, error.user_message)
                return 2
            if said:
                say(sys.stderr, said)
        turn = {"retry": agent.retry, "continue": agent.continue_reply}.get(
            redo or "", lambda: agent.send(prompt, attachments or [])
        )
        team = team or (agent.team if redo is None else None)  # a resumed team session goes on with its team
        if team:
            turn = partial(agent.run_team, team, prompt)
        try:
            return await print_turn(agent, prompt, reply, sys.stderr, turn(), show_parts=show_parts)
        except (NothingToRedoError, TeamError) as error:
            say(sys.stderr, str(error))
            return 1
    finally:
        await built.close(lock_wait=settings.history_lock_wait, on_wait=lambda said: say(sys.stderr, said))
