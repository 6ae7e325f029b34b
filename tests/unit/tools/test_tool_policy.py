"""An agent's tool policy in the runner: only its tools are offered or run, and its approval overrides apply
over the tools' own, but never over a tool the config denies."""

from __future__ import annotations

from tui_agent.agents.profiles import AgentProfile
from tui_agent.config import ToolsSettings
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools import tool
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@tool(approval="never")
def read_notes(topic: str) -> str:
    """Read the notes on a topic."""
    return f"notes on {topic}"


@tool(approval="ask")
def write_notes(text: str) -> str:
    """Write notes (asks first)."""
    return f"wrote {text}"


async def never_asked(call: ToolCall) -> Decision:
    raise AssertionError(f"{call.name} was put to the user")


async def run(runner: ToolRunner, name: str, **arguments: str) -> ToolCall:
    (done,) = await runner.run([ToolCall("c1", name, arguments=arguments)], lambda call: None, never_asked)
    return done


def registry(settings: ToolsSettings | None = None) -> ToolRegistry:
    return ToolRegistry.from_functions([read_notes, write_notes], settings)


async def test_only_the_agents_tools_are_offered_and_another_one_called_is_refused() -> None:
    runner = ToolRunner(registry(), policy=AgentProfile(name="reader", tools=["read_*"]))

    assert [schema["function"]["name"] for schema in runner.offered_tools()] == ["read_notes"]
    refused = await run(runner, "write_notes", text="x")
    assert refused.status is ToolStatus.FAILED
    assert refused.error == "no tool named write_notes (available tools: read_notes)"
    assert (await run(runner, "read_notes", topic="owls")).result == "notes on owls"


async def test_without_a_policy_every_tool_is_offered() -> None:
    assert len(ToolRunner(registry()).offered_tools()) == 2


async def test_the_agents_approval_overrides_the_tools_own() -> None:
    trusting = ToolRunner(registry(), policy=AgentProfile(name="w", approval={"write_*": "never"}))
    careful = ToolRunner(registry(), policy=AgentProfile(name="c", approval={"read_notes": "deny"}))

    assert (await run(trusting, "write_notes", text="x")).result == "wrote x"  # runs without asking
    assert (await run(careful, "read_notes", topic="owls")).status is ToolStatus.DENIED


async def test_a_tool_the_config_denies_stays_denied_whatever_the_agent_says() -> None:
    settings = ToolsSettings(approval={"write_notes": "deny"})
    runner = ToolRunner(registry(settings), policy=AgentProfile(name="w", approval={"write_notes": "never"}))

    assert (await run(runner, "write_notes", text="x")).status is ToolStatus.DENIED


async def test_a_runner_for_a_sub_agent_shares_the_tools_with_its_own_policy() -> None:
    runner = ToolRunner(registry())
    reader = runner.with_policy(AgentProfile(name="reader", tools=["read_notes"]))

    assert reader.registry is runner.registry and len(reader.offered_tools()) == 1 and runner.policy is None
