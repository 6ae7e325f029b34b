"""Provides `ExternalChatJob`: a turn answered by an external ACP agent instead of a model.

    ChatJob ──> converse    one prompt to the agent; its text, reasoning and tool calls shown and saved as they come

A profile with `acp = [...]` (`AgentProfile.acp`) is asked as any sub-agent or team member is: its turn is an
ordinary `Turn` (its session, its events wrapped for the caller, history), but its job sends the agent a prompt
(`tui_agent.acp_client`) where a model's turn would ask the model: the agent's message chunks are the reply's
text, its thoughts the reasoning part, its tool calls `ToolCall` values recorded and followed on the turn (it
runs them itself), its permission requests the turn's own approval question (`Turn.ask`: the dialog, or `-p`'s
policy), its reported tokens the turn's usage. Cancelling the job (Esc, the task tree) cancels the prompt (ACP's
`session/cancel`); an agent that fails ends the turn with its reason.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_agent.acp_client.host import ExternalAgentError
from tui_agent.agent.turn import Turn
from tui_agent.agent.turn_jobs import ChatJob
from tui_agent.agents.profiles import AgentProfile
from tui_agent.commander import HandlerCoroutine, as_handler
from tui_agent.llm.events import Usage
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools.output import cap_output

if TYPE_CHECKING:  # the SDK's schema takes a second or two to import: only a run with an external agent pays it
    from tui_agent.acp_client.connection import ExternalAgent

LIMITS = {"max_tokens": "token", "max_turn_requests": "request"}
"""ACP stop reasons that are a budget reached, and which."""


async def external_agent(profile: AgentProfile, folder: Path | None = None) -> ExternalAgent:
    """An external agent for `profile` (not started: its first prompt starts it), working in `folder` (the
    working directory by default)."""
    assert profile.acp is not None
    connection = await asyncio.to_thread(importlib.import_module, "tui_agent.acp_client.connection")
    agent: ExternalAgent = connection.ExternalAgent(profile.name, profile.acp, folder or Path.cwd())
    return agent


def external_model(profile: AgentProfile) -> str:
    """What history names an external agent's replies' model: `acp:` and its program (`acp:gemini`)."""
    assert profile.acp is not None
    return f"acp:{Path(profile.acp[0]).name}"


class ExternalChatJob(ChatJob):
    """One turn of an external agent: a prompt, closed as a model's turn is (`ChatJob`'s end callbacks)."""

    def __init__(self, turn: Turn, agent: ExternalAgent, profile: AgentProfile, title: str = "") -> None:
        super().__init__(turn, title)
        self.agent, self.profile = agent, profile

    @property
    def label(self) -> str:
        return self.turn.agent or super().label

    async def run(self) -> HandlerCoroutine:  # type: ignore[override]  # a handler instead of a ResponseJob
        return converse(self.turn, self.agent, self.profile.system_prompt)


class SessionAgents:
    """The external agent a session's own turns go to when its agent is one: one process and ACP session,
    kept from turn to turn (the agent remembers the conversation itself); ended when the session or its agent
    changes, and when the run ends."""

    def __init__(self) -> None:
        self._agent: tuple[str, str, ExternalAgent] | None = None
        """(session id, profile name, the agent) of the one running."""

    async def job(self, turn: Turn, profile: AgentProfile | None, title: str) -> ChatJob:
        """The job of `turn`: a model's, or `profile`'s external agent's when it names one."""
        if profile is None or profile.acp is None:
            await self.close()  # the session's agent is a model now
            return ChatJob(turn, title)
        if self._agent is None or self._agent[:2] != (turn.session_id, profile.name):
            await self.close()
            self._agent = (turn.session_id, profile.name, await external_agent(profile))
        return ExternalChatJob(turn, self._agent[2], profile, title)

    async def close(self) -> None:
        held, self._agent = self._agent, None
        if held is not None:
            await held[2].close()


@as_handler
async def converse(node: HandlerCoroutine, turn: Turn, agent: ExternalAgent, preface: str | None) -> None:
    """Send the agent its prompt and follow it to its stop; the turn ends when this handler does."""
    agent.message_id = turn.message_id
    try:
        stop = await agent.prompt(prompt_for(turn.conversation.messages, agent.prompts == 0, preface), TurnHost(turn))
    except ExternalAgentError as error:
        turn.fail(str(error))
        return
    except Exception as error:  # a bug must end the turn with a message, not hang it
        turn.fail(f"The {agent.name} agent failed: {error}")
        return
    if stop in LIMITS:
        turn.budget_note = f"Stopped: the {agent.name} agent reached its {LIMITS[stop]} limit."
    elif stop == "refusal":
        turn.fail(f"The {agent.name} agent refused to answer.")
    elif stop == "cancelled":
        turn.fail(f"The {agent.name} agent cancelled its turn.")


@dataclass
class TurnHost:
    """An external agent's updates, put on a turn the way a model's and a local tool's are."""

    turn: Turn

    def text(self, text: str) -> None:
        self.turn.show_text(text)

    def thought(self, text: str) -> None:
        self.turn.show_part("reasoning", text)

    def call(self, call: ToolCall) -> None:
        cap = self.turn.services.runner.output_cap  # a terminal's whole output: capped as our tools' results are
        if call.result is not None and len(call.result) > cap:
            call = call.replace(result=cap_output(call.result, cap))
        self.turn.follow_agent_call(call)

    async def ask(self, call: ToolCall) -> Decision:
        return await self.turn.ask(call, external=True)

    def usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.turn.add_usage(Usage(prompt_tokens, completion_tokens))


def prompt_for(messages: list[dict[str, Any]], fresh: bool, preface: str | None = None) -> str:
    """What an external agent is sent for a turn, from the turn's view of the conversation (OpenAI-shaped).

    A session that has had no prompt yet gets `preface` (its profile's system prompt) and everything said so
    far (its own earlier replies labelled as its own); after that, only what was said since its last reply.
    """
    talk = [message for message in messages if message.get("role") in ("user", "assistant") and _text(message)]
    own = [at for at, message in enumerate(talk) if message["role"] == "assistant"]
    if not fresh:
        return "\n\n".join(_text(message) for message in talk[own[-1] + 1 if own else 0 :])
    said = [f"(You said:)\n{_text(m)}" if m["role"] == "assistant" else _text(m) for m in talk]
    return "\n\n".join([*([preface.strip()] if preface and preface.strip() else []), *said])


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # a message of parts (images): its text parts
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict)).strip()
    return str(content or "").strip()
