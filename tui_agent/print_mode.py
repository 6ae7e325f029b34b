"""Provides `run_print`: `tui-agent -p PROMPT` (and `--retry`/`--continue-reply`), one turn printed as plain text.

It builds the same agent as the app, at once (there is no first frame to wait for): what tools and
plugins write goes to stderr, the reply alone to stdout, approval questions are denied unless `--allow`
names the tool.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TextIO

from tui_agent.agent.agent import NothingToRedoError
from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint
from tui_agent.agent.events import AgentEvent
from tui_agent.agent.headless import print_turn, say
from tui_agent.agent.json_input import answer_prompts, stdin_lines
from tui_agent.agent.json_output import JsonPrinter, failure_json, print_json_turn, start_json
from tui_agent.agent.resume import ResumeFailedError, ResumeRequest, apply_resume
from tui_agent.agent.services import build_agent
from tui_agent.agent.slash_commands import prompt_to_send
from tui_agent.agent.team_error import TeamError
from tui_agent.agents.apply import unknown_agent
from tui_agent.boot import settings_from_args
from tui_agent.config import Settings
from tui_agent.errors import UserError
from tui_agent.history.attachments import Attachment, AttachmentError, load_attachment
from tui_agent.terminal import private_reply
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.modes import start_mode

STDIN_PROMPT = "-"


def run_print(args: argparse.Namespace) -> int:
    """Run one turn for `-p PROMPT` (`-p -` reads stdin), or `--retry`/`--continue-reply` of a session's last
    reply, and print the reply; returns the exit status."""
    redo = redo_of(args)
    if isinstance(redo, int):
        return redo
    output = Output(
        getattr(args, "output_format", None) or "text", getattr(args, "input_format", None) == "stream-json"
    )
    if (problem := output.problem(args.print, redo)) is not None:
        print(f"tui-agent: {problem}", file=sys.stderr)
        return 2
    prompt = sys.stdin.read() if args.print == STDIN_PROMPT else args.print
    if redo is None and not output.prompts_on_stdin and not prompt.strip() and not getattr(args, "attach", None):
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
    # what tools and plugins write goes to stderr, never into the reply; Ctrl+C ends the run with 130 (below)
    with private_reply() as reply, contextlib.suppress(KeyboardInterrupt):
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
                output,
                frozenset(getattr(args, "allow_sampling", None) or []),
            )
        )
    say(sys.stderr, "cancelled")  # Ctrl+C: the turn is stored as interrupted; no traceback
    return 130


class Output:
    """How `-p` writes (`--output-format`: text, json, stream-json) and whether prompts come on stdin as
    stream-json (`--input-format`); the JSON itself is `agent/json_output.py`'s."""

    def __init__(self, output_format: str = "text", prompts_on_stdin: bool = False) -> None:
        self.format = output_format
        self.prompts_on_stdin = prompts_on_stdin

    def problem(self, prompt: str, redo: str | None) -> str | None:
        """Why the flags do not fit together, or None."""
        if self.prompts_on_stdin and redo is not None:
            return "--input-format stream-json takes prompts, not --retry or --continue-reply"
        if self.prompts_on_stdin and self.format != "stream-json":
            return "--input-format stream-json needs --output-format stream-json (a result per prompt)"
        if self.prompts_on_stdin and prompt:
            return "--input-format stream-json reads the prompts from stdin: give -p no prompt"
        return None

    def fail(self, out: TextIO, message: str, status: int, *, said: bool = False) -> int:
        """A run that ends before its turn: said on stderr (unless `said` already), and as a `result` in JSON."""
        if not said:
            say(sys.stderr, message)
        if self.format != "text":
            JsonPrinter(out, stream=False).line(failure_json(message, status))
        return status

    async def turn(
        self, agent: Any, out: TextIO, turn: Callable[[str], AsyncIterator[AgentEvent]], prompt: str, team: str | None
    ) -> int:
        """Run `turn(prompt)` (or, with prompts on stdin, one per line) as JSON (`team`: the team it runs)."""
        printer = JsonPrinter(out, stream=self.format == "stream-json")
        printer.event(start_json(agent, team))
        if self.prompts_on_stdin:
            return await answer_prompts(agent, printer, sys.stderr, stdin_lines(sys.stdin), turn)
        return await print_json_turn(agent, printer, sys.stderr, turn(prompt))


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
    output: Output | None = None,
    sampling: frozenset[str] = frozenset(),
) -> int:
    output = output or Output()
    try:
        built = await build_agent(settings, choice)
    except Exception as error:
        return output.fail(reply, f"could not start: {error}", 1)
    for notice in built.notices:
        say(sys.stderr, notice)
    if not built.agent.model:  # none named and the server did not say which: a notice above says what to do
        await built.close()
        return output.fail(reply, " ".join(built.notices) or "no model to ask", 1, said=True)
    # a server that fails to start, disk full, a lock that outlasts the run: said on stderr, the turn goes on
    built.agent.watch_notices(lambda notice: say(sys.stderr, notice))
    try:
        try:
            _, resume_notice = await apply_resume(built.agent, request)
        except ResumeFailedError as error:
            return output.fail(reply, str(error), 1)
        if resume_notice:
            say(sys.stderr, resume_notice)
        # non-interactive: tools that ask are denied (print_turn answers them), unless --allow names them
        built.agent.runner.preapproved = frozenset(allowed or [])
        runner = built.agent.runner  # -p starts in --mode, else the config's (ask: tools that ask are denied)
        if (refused := start_mode(runner.permissions, mode[0], settings.tools.mode, unsandboxed=mode[1])) is not None:
            return output.fail(reply, refused, 2)
        allow_sampling(built.mcp_servers, sampling)
        for name in sorted(set(allowed or []) - set(built.agent.registry.names())):
            say(sys.stderr, f"--allow {name}: there is no tool called {name} (see `tui-agent plugins`)")
        agent = built.agent
        if redo is None:  # `-p "/name args"`: the command's prompt
            try:
                prompt, said = await prompt_to_send(agent, prompt)
            except UserError as error:
                return output.fail(reply, error.user_message, 2)
            if said:
                say(sys.stderr, said)
        redone = {"retry": agent.retry, "continue": agent.continue_reply}.get(redo or "")
        team = team or (agent.team if redo is None else None)  # a resumed team session goes on with its team

        def turn(text: str) -> AsyncIterator[AgentEvent]:
            if redone is not None:
                return redone()
            return agent.run_team(team, text) if team else agent.send(text, attachments or [])

        try:
            if output.format != "text":
                return await output.turn(agent, reply, turn, prompt, team)
            return await print_turn(agent, prompt, reply, sys.stderr, turn(prompt), show_parts=show_parts)
        except (NothingToRedoError, TeamError) as error:
            return output.fail(reply, str(error), 1)
    finally:
        await built.close(lock_wait=settings.history_lock_wait, on_wait=lambda said: say(sys.stderr, said))


def allow_sampling(servers: McpServers | None, allowed: frozenset[str]) -> None:
    """`--allow-sampling SERVER`: that server's sampling requests are answered unasked (others are denied, and
    said on stderr); a name that is no configured server is said."""
    if servers is not None:
        servers.sampling.allowed |= allowed
    for name in sorted(allowed - set(servers.servers if servers is not None else ())):
        say(sys.stderr, f"--allow-sampling {name}: there is no MCP server called {name} (see `tui-agent plugins`)")
