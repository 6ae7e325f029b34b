"""Hooks from plugin files, on the real stack (the offline model over HTTP, real SQLite, the plugin loader):
they can rewrite what an agent receives and what a tool returns; one that raises or hangs is said and skipped."""

from __future__ import annotations

from pathlib import Path

from tests.unit.agent.conftest import MakeAgent, collect
from tests.unit.llm.helpers import eventually
from tui_agent.agent.events import ToolCallUpdated, TurnEndReason, TurnFinished
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.tools.cli import describe, render
from tui_agent.tools.registry import ToolRegistry

REWRITING = """
from tui_agent.tools import hook, tool

seen = []


@hook("before_agent")
def shout(agent, text):
    return text + " (asked by the hook)"


@hook("after_tool")
async def stamp(name, arguments, result):
    return f"stamped: {result}"


@hook("after_agent")
def remember(agent, reply):
    seen.append((agent, reply))
"""

FAILING = """
import time

from tui_agent.tools import hook


@hook("before_agent")
def broken(agent, text):
    raise RuntimeError("the hook broke")


@hook("before_tool")
def slow(name, arguments):
    time.sleep(30)
"""


def plugin(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "hook-plugins"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(text)
    return folder


async def test_a_hook_rewrites_what_the_agent_receives_and_a_tool_result(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[plugin(tmp_path, "rewrite", REWRITING)])
    assert built.agent.registry.hooks.count() == 3, built.agent.registry.problems
    events = await collect(built.agent.send("What's the weather in Paris?"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    first = offline_server.requests[0].body or {}
    assert first["messages"][-1]["content"] == "What's the weather in Paris? (asked by the hook)"
    (call,) = {event.call.call_id: event.call for event in events if isinstance(event, ToolCallUpdated)}.values()
    assert call.result is not None and call.result.startswith("stamped: {")
    stored = await built.agent.store.load_tail(built.agent.current_session_id or "", 5)
    assert stored[0].content == "What's the weather in Paris?"  # what the person typed is kept as typed


async def test_a_hook_that_raises_or_hangs_is_reported_and_skipped(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[plugin(tmp_path, "failing", FAILING)])
    built.agent.registry.hooks.timeout = 0.3
    notices: list[str] = []
    built.agent.watch_notices(notices.append)
    events = await collect(built.agent.send("What's the weather in Paris?"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    first = offline_server.requests[0].body or {}
    assert first["messages"][-1]["content"] == "What's the weather in Paris?"  # unchanged
    assert any("broken" in notice and "RuntimeError: the hook broke" in notice for notice in notices), notices
    assert any("slow" in notice and "more than 0.3 s" in notice for notice in notices), notices
    calls = [event.call for event in events if isinstance(event, ToolCallUpdated) and event.call.status.is_final]
    assert calls and calls[-1].result is not None and "temperature" in calls[-1].result  # the tool still ran


def test_the_example_hook_plugin_loads_its_four_hooks_when_copied_and_is_not_loaded_where_it_ships(
    tmp_path: Path,
) -> None:
    example = Path(__file__).parents[3] / "plugins" / "examples" / "hooks.py"
    shipped = ToolRegistry.from_plugins([], include_user_dir=False, include_entry_points=False)
    assert shipped.hooks.count() == 0  # harmless by default: examples/ is not a plugin folder
    copied = ToolRegistry.from_plugins(
        [plugin(tmp_path, "hooks", example.read_text())], include_user_dir=False, include_entry_points=False
    )
    assert copied.hooks.count() == 4 and not copied.problems, copied.problems
    assert sorted(copied.hooks.by_kind) == ["after_agent", "after_tool", "before_agent", "before_tool"]
    listed = render(describe(copied))  # `tui-agent plugins` lists them
    assert "Hooks:\n- before_agent: brief_critic (" in listed and "- after_tool: stamp_slow_results (" in listed


TEAM_HOOK = """
from tui_agent.tools import hook

@hook("before_agent")
def brief(agent, text):
    return text + " [be brief]" if agent == "critic" else None
"""


async def test_a_before_agent_hook_sees_each_team_member_by_name(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url, plugin_dirs=[plugin(tmp_path, "team_hook", TEAM_HOOK)])
    events = await collect(built.agent.run_team("writer-critic", "Write a post about tea"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    last_inputs = [(request.body or {})["messages"][-1]["content"] for request in offline_server.requests]
    assert [text.endswith(" [be brief]") for text in last_inputs] == [False, True, False, True]


NAMING_HOOK = """
from pathlib import Path

from tui_agent.tools import hook


@hook("before_agent")
def name_it(agent, text):
    return f"{text} [to {agent}]"


@hook("after_agent")
def log_it(agent, reply):
    with Path(__file__).with_name("after_agent.log").open("a") as log:
        log.write(agent + "\\n")


@hook("before_tool")
def log_tool(name, arguments, **told):
    with Path(__file__).with_name("tools.log").open("a") as log:
        log.write(f"{told['agent']}:{name}\\n")
"""


async def test_hooks_are_told_the_sessions_agent_and_a_sub_agent_by_name(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    folder = plugin(tmp_path, "naming", NAMING_HOOK)
    built = await make_agent(offline_server.base_url, plugin_dirs=[folder], agent="researcher")
    events = await collect(built.agent.send("hello"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    assert (offline_server.requests[-1].body or {})["messages"][-1]["content"] == "hello [to researcher]"

    await built.agent.switch_agent("assistant")
    events = await collect(built.agent.send("ask the researcher what the weather is in Paris"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    firsts = [
        str(messages[-1]["content"])
        for request in offline_server.requests[1:]
        if (messages := (request.body or {})["messages"])[-1]["role"] == "user"
    ]
    assert [text.rsplit(" [to ", 1)[-1] for text in firsts] == ["assistant]", "researcher]"]
    log = folder / "after_agent.log"

    def told() -> list[str]:
        return log.read_text().split() if log.exists() else []

    # The hook runs in a thread as the turn ends, after its last event: waited for, not assumed.
    await eventually(lambda: len(told()) == 3, "three after_agent calls")
    assert told() == ["researcher", "researcher", "assistant"]  # the sub-agent's turn ends before its caller's
    # tool hooks are told whose call it is (`agent`, here through **kwargs): the caller's, then the sub-agent's
    assert (folder / "tools.log").read_text().split() == ["assistant:ask_researcher", "researcher:get_current_weather"]


GUARD = """
from pathlib import Path

from tui_agent.tools import Deny, hook

LOG = Path(__file__).with_name("guard.log")


def note(line):
    with LOG.open("a") as log:
        log.write(line + "\\n")


@hook("before_tool")
def guard(name, arguments, agent):
    note(f"before {agent} {arguments['location']}")
    if arguments["location"] == "Paris":
        raise PermissionError("no weather for Paris")
    if arguments["location"] == "Oslo":
        return Deny("Oslo is off limits")
    if arguments["location"] == "Rome":
        return {**arguments, "location": "Lyon"}
    return None


@hook("after_tool")
def watch(name, arguments, result, failed):
    note(f"after {arguments['location']} failed={failed}")
    return None
"""


async def test_a_before_tool_hook_denies_or_changes_a_call_and_after_tool_sees_failures(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    folder = plugin(tmp_path, "guard", GUARD)
    built = await make_agent(offline_server.base_url, plugin_dirs=[folder], agent="researcher")
    events = await collect(built.agent.send("What's the weather in Paris, Rome and Oslo?"))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    calls = {event.call.call_id: event.call for event in events if isinstance(event, ToolCallUpdated)}
    by_city = {str((call.arguments or {})["location"]): call for call in calls.values()}
    assert by_city["Paris"].status is ToolStatus.DENIED
    assert (by_city["Paris"].error or "").startswith("A hook (guard (")
    assert (by_city["Paris"].error or "").endswith("guard.py)) denied the call: no weather for Paris")
    assert by_city["Oslo"].status is ToolStatus.DENIED and "Oslo is off limits" in (by_city["Oslo"].error or "")
    rome = by_city["Rome"]  # the call as the model wrote it, run as the hook changed it (the panel shows the line)
    assert rome.status is ToolStatus.DONE and rome.result is not None
    assert rome.result.startswith("[arguments changed by a hook (guard (")
    assert 'guard.py)): {"location": "Lyon"' in rome.result.splitlines()[0]
    assert "Lyon" in rome.result.splitlines()[1]
    told = [m for m in (offline_server.requests[-1].body or {})["messages"] if m["role"] == "tool"]
    assert any("no weather for Paris" in m["content"] for m in told), told  # the model is told
    assert any(m["content"].startswith("[arguments changed by a hook") for m in told), told
    lines = sorted((folder / "guard.log").read_text().splitlines())
    assert lines == [
        "after Lyon failed=False",
        "after Oslo failed=True",
        "after Paris failed=True",
        "before researcher Oslo",
        "before researcher Paris",
        "before researcher Rome",
    ]
