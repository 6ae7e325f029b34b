"""Provides `run_subagent`: one `ask_<agent>` call — a sub-agent's own turn, run as a subtree of the call's node.

The sub-agent gets its own session (a child of its caller's, linked to the reply that made the call), its own
conversation (its system prompt, then the task), its own tools and budgets, and a `ChatJob` put under the
call's commander node: cancelling that node cancels this sub-agent only, Esc (the caller's whole turn) cancels
it with everything else. Every event of its turn reaches the caller's stream wrapped in `SubAgentEvent`; its
token usage is added to the caller's session totals as it comes. Its last reply is the call's result; a
sub-agent that fails makes the call fail with its reason, one cancelled makes it interrupted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui_agent.agent.chat_state import title_from_prompt
from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import AgentEvent, SubAgentEvent, TurnEndReason, TurnFinished, TurnStarted, UsageUpdated
from tui_agent.agent.external_turn import ExternalChatJob, external_agent, external_model
from tui_agent.agent.turn import Turn, TurnBudget, TurnServices, running_call
from tui_agent.agent.turn_jobs import ChatJob
from tui_agent.agents.profiles import AgentProfile
from tui_agent.commander.events import NodeState
from tui_agent.commander.node import current_node
from tui_agent.tool_call import CallKey, ToolCall
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.model_client import ModelClient


@dataclass(frozen=True)
class SubAgent:
    """What an asked agent runs with: its profile set up over the run's settings, and its tools."""

    name: str
    system_prompt: str | None
    budget: TurnBudget
    temperature: float | None
    client: ModelClient | None
    """Its own endpoint or model's client; None: the caller's (same endpoint, same model)."""
    equip: Callable[[ToolRunner], None]
    """Gives a runner this agent's tools (its delegate tools included) and policy."""
    memory: str = ""
    """The memory files' block its requests carry ("" when its profile opts out)."""
    external: AgentProfile | None = None
    """Its profile, when that names an external ACP agent (`acp`) that answers instead of a model."""


class SubAgentFailedError(ValueError):
    """The sub-agent's turn ended in an error: the call fails with this sentence (a `ValueError`, so the runner
    gives the model the sentence alone)."""


@dataclass
class _Relay:
    """Passes the sub-agent's events to its caller's stream, wrapped, and rolls its token usage up."""

    caller: Turn
    call: CallKey
    agent: str
    session_id: str
    turn_id: str
    finished: TurnFinished | None = None
    _used: tuple[int, int] = field(default=(0, 0))

    def deliver(self, event: AgentEvent) -> None:
        self.caller.relay(SubAgentEvent(self.call, self.agent, self.session_id, event, turn_id=self.caller.id))
        if event.turn_id != self.turn_id:
            return
        if isinstance(event, UsageUpdated):  # the sub-agent's session totals: add what is new to the caller's
            before, self._used = self._used, (event.prompt_tokens, event.completion_tokens)
            self.caller.add_sub_usage(self._used[0] - before[0], self._used[1] - before[1])
        elif isinstance(event, TurnFinished):
            self.finished = event


async def run_subagent(sub: SubAgent, task: str) -> str:
    """Run agent `sub` on `task` for the call running in this task; returns its answer."""
    caller, call = running_call.get()
    node = current_node.get()
    if node is None:
        raise SubAgentFailedError(f"The {sub.name} can only be asked from inside a turn.")
    child, relay = await _start(caller, call, sub, task)
    profile, external = sub.external, None
    job = ChatJob(child, sub.name)
    if profile is not None:
        external = await external_agent(profile)
        job = ExternalChatJob(child, external, profile, sub.name)
    try:
        await node.put_job(job)
        state = await job.wait()
    finally:
        if external is not None:  # its process lives for this one call
            await external.close()
    if state is NodeState.CANCELLED:  # its own node was cancelled (the task tree): the call is interrupted
        node.cancel()
        await asyncio.sleep(0)
    return _answer(sub.name, child, relay.finished)


async def _start(caller: Turn, call: ToolCall, sub: SubAgent, task: str) -> tuple[Turn, _Relay]:
    """Store the sub-agent's session and task, and make its turn (not started yet)."""
    services, store = caller.services, caller.services.store
    client = sub.client or services.client
    model, system_prompt = client.model, sub.system_prompt
    if sub.external is not None:  # its own model, and only its profile's prompt (not the config's default)
        model, system_prompt = external_model(sub.external), sub.external.system_prompt
    session = await store.create_sub_session(
        title_from_prompt(task), caller.session_id, call.message_id, sub.name, model=model, system_prompt=system_prompt
    )
    user, reply = await store.begin_turn(session.id, task, model=model)
    runner = services.runner.with_policy(None)  # `-p --allow TOOL` holds for the sub-agents too
    sub.equip(runner)
    child_services = TurnServices(
        client,
        runner,
        store,
        model,
        missing_key_message=services.missing_key_message,
        temperature=sub.temperature,
        memory=sub.memory,
        telemetry=services.telemetry,  # its model and tool calls are traced under the call that asked it
    )
    conversation = Conversation(sub.system_prompt)
    conversation.add_user(task)
    turn_id = f"{caller.id}/{sub.name}:{call.call_id}"
    relay = _Relay(caller, call.key, sub.name, session.id, turn_id)
    child = Turn(child_services, session.id, conversation, sub.budget, relay.deliver, turn_id)
    child.runs = sub.name  # hooks are told the sub-agent's name
    relay.deliver(TurnStarted(session.id, user.id, task, turn_id=turn_id))
    child.attach_message(reply.id)
    return child, relay


def _answer(agent: str, child: Turn, finished: TurnFinished | None) -> str:
    """The call's result: the sub-agent's last reply (with the note of a budget or a cut-off), or its failure."""
    reason = finished.reason if finished is not None else TurnEndReason.ERROR
    if reason is TurnEndReason.ERROR:
        why = finished.error if finished is not None and finished.error else "it ended without a reason"
        raise SubAgentFailedError(f"The {agent} failed: {why}")
    text = last_reply(child.conversation).strip() or f"(The {agent} gave no answer.)"
    note = finished.error if finished is not None else None
    return f"{text}\n\n({note})" if note and reason is not TurnEndReason.DONE else text


def last_reply(conversation: Conversation) -> str:
    """The text of the conversation's last assistant message (the sub-agent's answer)."""
    for message in reversed(conversation.messages):
        if message.get("role") == "assistant":
            return str(message.get("content") or "")
    return ""
