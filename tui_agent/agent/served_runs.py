"""Provides `ServedAgents`: the configured agents and teams as models of `tui-agent serve` (`agent:NAME`,
`team:NAME`), each request run inside tui-agent with the agent's tools and stored in history.

A request is answered by a chat built for it (`build_agent`, as `-p` builds one: the config file's endpoint and
tools, the agent's profile), closed when the reply ends. What the client sends is a whole conversation: its last
user message is the prompt. When the rest is a conversation this server answered (the client sends back the
reply it got, and asks again), the run resumes that stored session, so history holds one session per
conversation; otherwise a new session starts, the earlier messages (and the client's system messages) put before
the prompt for the agent to read. The run starts in the config's permission mode (`[tools] mode`, as `-p`
does); tools that would ask are denied (nobody is there to ask), unless `serve --allow` names them, which the
runner lets run. The reply's text streams as it comes (several responses of one
turn as paragraphs, each team member's under its name); reasoning and one line per finished tool call (as `-p`
writes them on stderr) stream as reasoning, which clients show apart or not at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Any

from tui_agent.agent.endpoint import choose_endpoint
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    SubAgentEvent,
    TeamStopped,
    ToolCallUpdated,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from tui_agent.agent.headless import tool_summary
from tui_agent.agent.resume import ResumeFailedError, ResumeRequest, apply_resume
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings
from tui_agent.offline.agent_route import Done, ModelRefused, Piece, Said, Started
from tui_agent.status import TurnEndReason
from tui_agent.tool_call import Decision
from tui_agent.tools.modes import start_mode

KINDS = ("agent:", "team:")
FINISH = {TurnEndReason.DONE: "stop", TurnEndReason.LENGTH: "length", TurnEndReason.BUDGET: "length"}
REMEMBERED = 1000
"""Conversations remembered for resuming (the oldest forgotten first: the client then starts a new session)."""
Transcript = list[tuple[str, str]]


class ServedAgents:
    """The agents and teams `serve` answers for (`agents`, `teams`: their names), built from `settings`."""

    def __init__(
        self,
        settings: Settings,
        agents: Sequence[str],
        teams: Sequence[str],
        allow: Sequence[str] = (),
        say: Callable[[str], None] = lambda _line: None,
    ) -> None:
        self.settings, self.allow, self.say = settings, frozenset(allow), say
        self._names = [*(f"agent:{name}" for name in sorted(agents)), *(f"team:{name}" for name in sorted(teams))]
        self._sessions: dict[str, str] = {}
        """The key of a conversation as the client has it (`_key`) -> the session that answered it."""

    def names(self) -> list[str]:
        return list(self._names)

    def claims(self, model: str) -> bool:
        return model.startswith(KINDS)

    async def run(self, model: str, body: dict[str, Any]) -> AsyncGenerator[Piece]:
        if model not in self._names:
            served = ", ".join(self._names) or "no agents"
            said = f"The model {model!r} does not exist: this server serves {served}."
            raise ModelRefused(404, said, "model_not_found")
        kind, name = model.split(":", 1)
        earlier, prompt, instructions = conversation_of(body.get("messages"))
        settings = self.settings.model_copy(update={"agent": name}) if kind == "agent" else self.settings
        try:
            built = await build_agent(settings, choose_endpoint(settings))
        except Exception as error:  # a broken config, an endpoint that cannot start: the client is told
            raise ModelRefused(503, f"The agent could not start: {error}", "agent_unavailable") from error
        try:
            if not built.agent.model:  # none named and the server did not say which
                said = " ".join(built.notices) or "The agent has no model to ask."
                raise ModelRefused(503, said, "agent_unavailable")
            session = self._sessions.pop(_key(earlier), None) if earlier else None
            if session is not None and not await _resumed(built, session):
                session = None
            asked = prompt if session is not None else with_earlier(earlier, instructions, prompt)
            built.agent.runner.preapproved = self.allow
            if (refused := start_mode(built.agent.runner.permissions, None, settings.tools.mode)) is not None:
                self.say(f"{model}: {refused}")  # the run stays in ask mode: tools that ask are denied
            turn = built.agent.run_team(name, asked) if kind == "team" else built.agent.send(asked)
            reply = Reply()
            try:
                async for piece in reply.pieces(turn, built):
                    if isinstance(piece, Done):  # the route reads no further: the run's end is seen to here
                        await _close(turn)  # what a turn does after its end (a team reads its stops) runs now
                        self._finished(model, built, [*earlier, ("user", prompt)], reply)
                    yield piece
            finally:
                await _close(turn)  # before history closes; also when the client hung up (the turn is cancelled)
                if reply.outcome == "not finished":
                    self.say(f"{model}: session {built.agent.current_session_id} (the client went away: cancelled)")
        finally:
            await built.close()

    def _finished(self, model: str, built: BuiltAgent, asked: Transcript, reply: Reply) -> None:
        """Remember the conversation as the client now has it (its next request resumes the session)."""
        session_id = built.agent.current_session_id
        if session_id is not None and reply.ended_well:
            self._remember(_key([*asked, ("assistant", reply.text.strip())]), session_id)
        self.say(f"{model}: session {session_id} ({reply.outcome})")

    def _remember(self, key: str, session_id: str) -> None:
        self._sessions[key] = session_id
        while len(self._sessions) > REMEMBERED:
            del self._sessions[next(iter(self._sessions))]


class Reply:
    """One run's events as the pieces the route writes, and what it said (to remember the conversation by)."""

    def __init__(self) -> None:
        self.text = ""
        self.outcome = "not finished"
        self.ended_well = False
        self._speaker: str | None = None
        self._new_message = False
        self._usage = (0, 0)

    async def pieces(self, turn: AsyncIterator[AgentEvent], built: BuiltAgent) -> AsyncGenerator[Piece]:
        started = False
        async for event in turn:
            if not started and isinstance(event, TurnStarted | AssistantMessageStarted | TurnFinished):
                started = True
                yield Started(built.agent.current_session_id or "")
            if isinstance(event, TurnFinished):
                self.outcome = event.reason.value + (f": {event.error}" if event.error else "")
                self.ended_well = event.reason in FINISH
                if not self.ended_well:
                    yield Done(*self._usage, error=event.error or f"the turn ended: {event.reason.value}")
                    return
                yield Done(*self._usage, finish_reason=FINISH[event.reason])
                return
            for piece in self._said(event):
                yield piece
        yield Done(*self._usage, error="The turn ended without finishing.")

    def _said(self, event: AgentEvent) -> list[Said]:
        if isinstance(event, SubAgentEvent):
            return self._sub_agent(event)
        if isinstance(event, ApprovalRequested):
            _deny(event)  # nobody to ask: `serve --allow TOOL` lets a tool run without asking
        elif isinstance(event, AssistantMessageStarted):
            self._new_message = True
            if event.agent and event.agent != self._speaker:  # a team member's reply, under its name
                self._speaker = event.agent
                return [self._content(f"**{event.agent}**\n\n", force_break=bool(self.text))]
        elif isinstance(event, AssistantTextDelta) and event.text:
            return [self._content(event.text)]
        elif isinstance(event, AssistantPartDelta) and event.text:
            return [Said(event.text, "reasoning")]
        elif isinstance(event, ToolCallUpdated) and event.call.status.is_final:
            return [Said(tool_summary(event) + "\n", "reasoning")]
        elif isinstance(event, TeamStopped):
            return [self._content(f"[stopped] {event.reason} (after {event.rounds} round(s))\n", force_break=True)]
        elif isinstance(event, UsageUpdated):
            self._usage = (event.prompt_tokens, event.completion_tokens)
        return []

    def _content(self, text: str, *, force_break: bool = False) -> Said:
        """`text` as content, on a new paragraph when it starts a new response after earlier text."""
        if (self._new_message or force_break) and self.text and not self.text.endswith("\n\n"):
            text = ("\n\n" if not self.text.endswith("\n") else "\n") + text
        self._new_message = False
        self.text += text
        return Said(text)

    def _sub_agent(self, event: SubAgentEvent) -> list[Said]:
        names, inner = [event.agent], event.event
        while isinstance(inner, SubAgentEvent):
            names.append(inner.agent)
            inner = inner.event
        if isinstance(inner, ApprovalRequested):
            _deny(inner)
        elif isinstance(inner, ToolCallUpdated) and inner.call.status.is_final:
            who = "".join(f"[{name}] " for name in names)
            return [Said(who + tool_summary(inner) + "\n", "reasoning")]
        return []


async def _close(stream: AsyncIterator[AgentEvent]) -> None:
    close = getattr(stream, "aclose", None)  # every turn's stream is a generator's
    if close is not None:
        await close()


def _deny(request: ApprovalRequested) -> None:
    if not request.answer.done():
        request.answer.set_result(Decision.DENY)


async def _resumed(built: BuiltAgent, session_id: str) -> bool:
    """Whether the session answering the conversation so far could be continued (it may have been deleted)."""
    try:
        await apply_resume(built.agent, ResumeRequest(session_id))
    except ResumeFailedError:
        return False
    return True


def conversation_of(messages: Any) -> tuple[Transcript, str, list[str]]:
    """The conversation before the last user message (user and assistant texts), that message's text (the prompt)
    and the system (or developer) messages' texts; `ModelRefused` when there is no user message to answer."""
    listed = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    last = max((n for n, m in enumerate(listed) if m.get("role") == "user"), default=None)
    if last is None or not text_of(listed[last].get("content")).strip():
        said = "An agent answers the last user message, and this request has none with text."
        raise ModelRefused(400, said, "invalid_value")
    said_before = [(str(m.get("role")), text_of(m.get("content")).strip()) for m in listed[:last]]
    earlier = [(role, text) for role, text in said_before if role in ("user", "assistant") and text]
    instructions = [text for role, text in said_before if role in ("system", "developer") and text]
    return earlier, text_of(listed[last].get("content")).strip(), instructions


def with_earlier(earlier: Transcript, instructions: list[str], prompt: str) -> str:
    """The prompt of a new session: what the client said before (its instructions, the conversation), then the
    message to answer."""
    if not earlier and not instructions:
        return prompt
    parts = [f"The client's instructions:\n\n{text}" for text in instructions]
    if earlier:
        parts.append("The conversation so far:\n\n" + "\n\n".join(f"[{role}] {text}" for role, text in earlier))
    return "\n\n".join([*parts, f"Answer this message:\n\n{prompt}"])


def text_of(content: Any) -> str:
    """A message content's text (a string, or the text parts of a list; images and files are not read)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type", "text") == "text")


def _key(transcript: Transcript) -> str:
    return hashlib.sha256(json.dumps(transcript, ensure_ascii=False).encode()).hexdigest()
