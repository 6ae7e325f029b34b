"""The task tree (Ctrl+T) during real turns: offline model over HTTP, real agent and commander, real SQLite.

It shows the turn and its tool calls in the user's words with their state and elapsed time (`i`: the engine's
jobs and handlers instead), cancels the subtree of a selected running item, and gives the prompt its focus back
when hidden.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, chat, make_app, send, task_tree, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.events import AssistantMessageStarted, ToolCallUpdated
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, ToolStatus
from tui_agent.testing.scripted import Gate, Script, ScriptedBackend
from tui_agent.testing.scripted_tree import ScriptedTree
from tui_agent.tool_call import ToolCall
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import AssistantMessage
from tui_agent.ui.widgets.task_tree import TaskTree

PLUGINS = Path(__file__).parents[1] / "unit" / "agent" / "plugins"
SLOW_TOOL = {"replies": [{"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "seconds": 30}}]}]}
TWO_SLOW_TOOLS = {
    "replies": [
        {
            "tool_calls": [
                {"name": "slow_echo", "arguments": {"text": "stuck", "seconds": 30}},
                {"name": "slow_echo", "arguments": {"text": "quick enough", "seconds": 2.0}},
            ]
        },
        {"text": "One of the two came back."},
    ]
}
ELAPSED = re.compile(r"\d+\.\ds$|\d+m\d\ds$")
MakeApp = Callable[..., TuiAgentApp]


@pytest.fixture
async def real_app(tmp_path: Path) -> AsyncIterator[MakeApp]:
    """`real_app(scenario=None, **settings)`: the app on a real agent with the real clock."""
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any] | None = None, **values: Any) -> TuiAgentApp:
        settings = Settings(db=tmp_path / "history.db", **values)
        choice = EndpointChoice(None, "offline")
        if scenario is not None:
            server = BackgroundServer(scenario)
            servers.append(server)
            choice = EndpointChoice(server.start(), "scripted", "test-key")
        return TuiAgentApp(
            lambda: build_agent(settings, choice),
            model=choice.model,
            endpoint=choice.label,
            clock=time.monotonic,
            cursor_blink=False,
        )

    yield make
    for server in servers:
        server.stop()


def shown_lines(tree: TaskTree) -> list[str]:
    """What the panel shows, one node per line, in tree order (depth first)."""
    lines: list[str] = []
    stack = list(reversed(tree.root.children))
    while stack:
        node = stack.pop()
        lines.append(str(node.label))  # a Text's str is its plain text
        stack.extend(reversed(node.children))
    return lines


def line_for(tree: TaskTree, name: str) -> str:
    """The line of the item called `name` (the user's view: its title; the internals view: the engine's name)."""
    return next(line for line in shown_lines(tree) if line.split("  ")[0].split(" · ")[0].endswith(f" {name}"))


async def show_internals(pilot: Pilot[None], tree: TaskTree) -> None:
    await pilot.press("i")
    await wait_until(pilot, lambda: tree.internals and len(shown_lines(tree)) == len(tree.items), "the internals")


async def select(pilot: Pilot[None], tree: TaskTree, name: str) -> None:
    """Move the cursor down to the (first) item called `name` (its title or its engine name), as a person would."""
    for _ in range(len(tree.items) + 1):
        item = tree.selected_item()
        if item is not None and name in (item.name, item.title):
            return
        await pilot.press("down")  # handled a moment after `press` returns, maybe: one key per move
        await wait_until(pilot, lambda item=item: tree.selected_item() is not item, f"the cursor moved down to {name}")  # type: ignore[misc]
    raise AssertionError(f"no node called {name!r} to select")


async def test_ctrl_t_shows_the_turn_live_until_everything_completed(real_app: MakeApp) -> None:
    app = real_app()
    async with app.run_test(size=(160, 45)) as pilot:
        tree = await task_tree(pilot)
        assert not tree.display
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: tree.display and tree.has_focus, "the tree shown, focused")
        chat(pilot).prompt_input.focus()
        await send(pilot, "weather in Paris")
        names = [item.name for item in tree.items.values()]
        assert names[:5] == ["ChatJob", "ResponseJob", "respond", "show_reply", "run_tools"]
        assert "get_current_weather" in names and names.count("ResponseJob") == 2
        tool = next(item for item in tree.items.values() if item.kind == "tool")
        assert tool.parent is not None and tree.items[tool.parent].name == "run_tools"
        # In the user's words: the turn and its call, nothing of the engine (drawn live, while shown).
        turn, call = shown_lines(tree)
        assert re.fullmatch(r"✓ turn 1 · 1 tool · done \d+\.\ds", turn), turn
        # The call's name folded to the tree's width before its argument, so that what it came to stays in view.
        assert re.fullmatch(r"✓ get_current_…\(Paris\) · done \d+\.\ds", call), call
        assert [str(node.label) for node in tree.root.children] == [turn]  # the call is under the turn
        tree.focus()
        await show_internals(pilot, tree)  # the engine's jobs and handlers, for people debugging their own
        lines = shown_lines(tree)
        for line in lines:
            assert line.startswith("✓ "), line
            assert ELAPSED.search(line), f"no elapsed time in {line!r}"
        assert line_for(tree, "ChatJob") == lines[0] and lines[0].startswith("✓ ChatJob · turn 1  ")
        assert "i your words" in str(tree.border_subtitle)
        await pilot.press("i")
        await wait_until(pilot, lambda: shown_lines(tree) == [turn, call], "the user's words again")


@pytest.mark.parametrize("key", ["x", "delete"])
async def test_cancelling_a_running_node_stops_its_subtree_and_says_so(
    real_app: MakeApp, tmp_path: Path, key: str
) -> None:
    app = real_app(SLOW_TOOL, plugin_dirs=[PLUGINS])
    async with app.run_test(size=(160, 45)) as pilot:
        await send(pilot, "echo slowly", wait=False)
        screen = chat(pilot)
        await wait_until(
            pilot,
            lambda: any(p.status is ToolStatus.RUNNING for p in screen.tool_panels.panels),
            "the slow tool running",
        )
        await pilot.press("ctrl+t")
        tree = await task_tree(pilot)
        await wait_until(pilot, lambda: tree.has_focus, "the tree focused")
        assert line_for(tree, "turn 1").startswith("◐ turn 1 · running 1 tool ")
        await show_internals(pilot, tree)
        assert line_for(tree, "run_tools").startswith("◐ ") and line_for(tree, "slow_echo").startswith("◐ ")
        await select(pilot, tree, "run_tools")
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: not tree.display, "hidden")
        await pilot.press("ctrl+t")  # shown again: the selection is kept
        await wait_until(pilot, lambda: tree.display and tree.has_focus, "shown, focused")
        await wait_until(  # the cursor is put back after the frame that lays the lines out
            pilot, lambda: (item := tree.selected_item()) is not None and item.name == "run_tools", "run_tools selected"
        )
        await pilot.press(key)
        await wait_until(pilot, lambda: screen.idle, "the turn ended")
        assert any("Cancelled run_tools" in n.message for n in notifications(app))
        assert line_for(tree, "run_tools").startswith("⊘ ") and line_for(tree, "slow_echo").startswith("⊘ ")
        assert line_for(tree, "ChatJob").startswith("✓ ")  # the rest of the turn ended normally
        (panel,) = screen.tool_panels.panels
        assert panel.status is ToolStatus.INTERRUPTED
        # Still responsive: the next turn runs and replaces the tree.
        screen.prompt_input.focus()
        await send(pilot, "weather in Paris")
        assert all(line.startswith("✓ ") for line in shown_lines(tree))
        assert "slow_echo" not in [item.name for item in tree.items.values()]
    store = await HistoryStore.open(tmp_path / "history.db")
    try:
        (session,) = await store.list_recent()
        messages = await store.load_tail(session.id, 100)
    finally:
        await store.close()
    assert MessageStatus.STREAMING not in [m.status for m in messages]
    assert [c.status for c in messages[1].tool_calls] == [ToolStatus.INTERRUPTED]


async def test_cancel_key_on_an_ended_node_explains_instead(real_app: MakeApp) -> None:
    app = real_app(SLOW_TOOL, plugin_dirs=[PLUGINS])
    async with app.run_test(size=(160, 45)) as pilot:
        await send(pilot, "echo slowly", wait=False)
        screen = chat(pilot)
        await wait_until(
            pilot,
            lambda: any(p.status is ToolStatus.RUNNING for p in screen.tool_panels.panels),
            "the slow tool running",
        )
        await pilot.press("ctrl+t")
        tree = await task_tree(pilot)
        await wait_until(pilot, lambda: tree.has_focus, "the tree focused")
        await show_internals(pilot, tree)
        await select(pilot, tree, "show_reply")
        await pilot.press("x")
        await wait_until(
            pilot, lambda: any("show_reply has already ended" in n.message for n in notifications(app)), "explained"
        )
        assert not screen.idle and line_for(tree, "slow_echo").startswith("◐ ")  # nothing was cancelled
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.idle, "Esc ended the turn")
        assert line_for(tree, "ChatJob").startswith("⊘ ")


async def test_cancelling_one_tool_node_interrupts_that_call_and_the_reply_goes_on(real_app: MakeApp) -> None:
    app = real_app(TWO_SLOW_TOOLS, plugin_dirs=[PLUGINS])
    async with app.run_test(size=(160, 45)) as pilot:
        await send(pilot, "echo two things slowly", wait=False)
        screen = chat(pilot)
        await wait_until(
            pilot,
            lambda: [p.status for p in screen.tool_panels.panels] == [ToolStatus.RUNNING] * 2,
            "both slow tools running",
        )
        await pilot.press("ctrl+t")
        tree = await task_tree(pilot)
        await select(pilot, tree, "slow_echo(stuck, 30)")  # the one that would take 30 s, by its headline
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.idle, "the turn ended")
        assert any("Interrupted slow_echo(stuck, 30)" in n.message for n in notifications(app))
        stuck, quick = screen.tool_panels.panels
        assert (stuck.status, quick.status) == (ToolStatus.INTERRUPTED, ToolStatus.DONE)
        tools = [line for line in shown_lines(tree) if " slow_echo" in line]
        assert [ELAPSED.sub("", line).split(" · ")[-1] for line in tools] == ["interrupted ", "done "]
        assert [line[:2] for line in tools] == ["⊘ ", "✓ "]
        assert (
            line_for(tree, "turn 1").startswith("✓ turn 1 · 2 tools · done ")
            and [i.name for i in tree.items.values()].count("ResponseJob") == 2
        )  # the model was asked again
        replies = [entry.text for entry in screen.chat_log.query(AssistantMessage)]
        assert "One of the two came back." in replies[-1]


async def test_a_hidden_tree_draws_nothing_and_hiding_gives_the_prompt_its_focus() -> None:
    gate = Gate()
    script: Script = [gate]
    app, backend = make_app([script])
    backend.tree = ScriptedTree(clock=lambda: FIXED_NOW - 3.2)
    async with app.run_test() as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-turn")
        tree = await task_tree(pilot)
        assert [item.name for item in tree.items.values()] == [
            "ChatJob",
            "ResponseJob",
            "respond",
            "show_reply",
            "run_tools",
        ]
        assert not tree.root.children  # the model follows the turn, the widget stays empty while hidden
        await pilot.press("ctrl+t")
        await wait_until(
            pilot,
            lambda: shown_lines(tree) == ["◐ turn 1 · replying 3.2s"] and tree.has_focus,
            lambda: f"the tree drawn, focused ({shown_lines(tree)}, {tree.has_focus})",
        )

        def hints() -> list[str]:
            return [n.message for n in notifications(app) if "to cancel it" in n.message]

        await wait_until(pilot, lambda: bool(hints()), "the hint said (after the frame that shows the tree)")
        (hint,) = hints()
        assert "del or x" in hint and "i shows the engine's jobs" in hint  # the keys in force, said once
        assert str(tree.border_subtitle) == "del or x cancel · i internals"  # and kept under the tree
        await pilot.press("ctrl+t")
        await wait_until(
            pilot, lambda: not tree.display and screen.prompt_input.has_focus, "hidden, the prompt focused"
        )
        gate.open()
        await wait_until(pilot, lambda: screen.idle, "turn finished")
        assert not tree.root.children
        assert all(item.glyph == "✓" for item in tree.items.values())
        await pilot.press("ctrl+t")
        await wait_until(
            pilot,
            lambda: shown_lines(tree) == ["✓ turn 1 · done 0.0s"],
            lambda: f"the ended turn drawn ({shown_lines(tree)})",
        )
        await pilot.pause()
        assert len(hints()) == 1


async def test_typing_with_the_tree_focused_goes_to_the_prompt_and_x_still_cancels() -> None:
    gate = Gate()
    app, backend = make_app([[gate]])
    backend.tree = ScriptedTree(clock=lambda: FIXED_NOW - 1.0)
    async with app.run_test() as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-turn")
        tree = await task_tree(pilot)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: tree.has_focus, "the tree focused")
        # Nothing in the tree answers to "w": the next prompt begins, and the keys typed with it follow it there
        # (the space and the x too) before the focus has moved.
        for key, character in [("w", "w"), ("h", "h"), ("y", "y"), ("space", " "), ("x", "x"), ("question_mark", "?")]:
            app.post_message(events.Key(key, character))  # all at once, as a terminal sends a typed burst
        await wait_until(pilot, lambda: screen.prompt_input.text == "why x?", lambda: repr(screen.prompt_input.text))
        assert screen.prompt_input.has_focus and screen.prompt_input.text == "why x?"
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: not tree.display, "hidden")
        await pilot.press("ctrl+t")  # shown again: the tree has the keys again
        await wait_until(pilot, lambda: tree.display and tree.has_focus, "shown, focused")
        tree.select_node(tree.root.children[0])
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.idle, "the turn cancelled from the tree")
        assert screen.prompt_input.text == "why x?"
        gate.open()


async def test_a_55_node_turn_repaints_only_the_rows_that_changed_and_ticks_only_rows_in_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call ending repaints its row and the turn's (which counts the calls), not every row under the turn; the
    elapsed times tick on the rows in view, and a row scrolled into view shows its time as of then."""
    now = [FIXED_NOW]
    calls = [ToolCall(f"c{n}", "read_file", arguments={"path": f"f{n}.py"}, message_id="m1") for n in range(50)]
    running = [ToolCallUpdated(call.replace(status=ToolStatus.RUNNING, started_at=FIXED_NOW)) for call in calls]
    gate = Gate()
    backend = ScriptedBackend([[AssistantMessageStarted("m1"), *running, gate]])
    app = TuiAgentApp(backend, clock=lambda: now[0], cursor_blink=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await send(pilot, "go", wait=False)
        await wait_until(pilot, lambda: gate.reached, "the 50 calls running")
        tree = await task_tree(pilot)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: len(shown_lines(tree)) == 51, lambda: f"51 rows ({len(shown_lines(tree))})")
        await pilot.pause()
        height = tree.scrollable_content_region.height
        assert 0 < height < 51  # some rows below the view
        drawn: list[int] = []
        render_line = tree.render_line

        def counted(y: int) -> Any:
            drawn.append(y)
            return render_line(y)

        monkeypatch.setattr(tree, "render_line", counted)

        drawn.clear()
        done = ToolCallUpdated(
            calls[3].replace(status=ToolStatus.DONE, started_at=FIXED_NOW, finished_at=FIXED_NOW + 0.2)
        )
        backend.tree.follow(done)  # its node ends (the turn's row: "running 49 tools")
        tree.follow_call(done.call)  # and the call's status comes, as from the turn's stream
        await wait_until(pilot, lambda: "49 tools" in shown_lines(tree)[0], "the turn's row counts 49")
        await wait_until(pilot, lambda: "done" in row_with(tree, "f3.py"), "the call's row says done")
        await wait_until(pilot, lambda: bool(drawn), "a frame")
        row = next(node.line for node in tree.root.children[0].children if "f3.py" in str(node.label))
        assert set(drawn) <= {0, row}, f"rows repainted: {sorted(set(drawn))}"

        last = tree.root.children[0].children[-1]
        assert last.line >= height and str(last.label).endswith("0.0s")  # out of view, as drawn
        now[0] += 2.0
        await wait_until(pilot, lambda: row_with(tree, "f0.py").endswith("2.0s"), "a row in view ticked")
        await pilot.pause(0.6)  # a tick more
        assert str(last.label).endswith("0.0s")  # a row out of view is not drawn again for its time
        tree.scroll_end(animate=False)
        await wait_until(pilot, lambda: str(last.label).endswith("2.0s"), "the row scrolled into view, as of now")

        # The screen lays out at every chunk of a streaming reply: the tree's scrollbar is drawn again only when
        # what it shows changed (a row more), not at each layout.
        bar = tree.vertical_scrollbar
        bar_refreshed: list[int] = []
        refresh_bar = bar.refresh

        def bar_counted(*regions: Any, **options: Any) -> Any:
            bar_refreshed.append(len(regions))
            return refresh_bar(*regions, **options)

        monkeypatch.setattr(bar, "refresh", bar_counted)
        for _ in range(3):
            chat(pilot).refresh(layout=True)
            await pilot.pause()
        assert not bar_refreshed, "the scrollbar drawn again by layouts that changed nothing of it"
        more = ToolCall("c50", "read_file", arguments={"path": "f50.py"}, message_id="m1")
        backend.tree.follow(ToolCallUpdated(more.replace(status=ToolStatus.RUNNING, started_at=FIXED_NOW)))
        await wait_until(pilot, lambda: len(shown_lines(tree)) == 52, "a row more")
        await wait_until(pilot, lambda: bar.window_virtual_size == 52 and bool(bar_refreshed), "the bar follows")
        gate.open()


def row_with(tree: TaskTree, text: str) -> str:
    return next(line for line in shown_lines(tree) if text in line)
