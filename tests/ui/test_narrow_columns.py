"""On a narrow screen the conversation keeps the width: below 60 columns the tool column and the task tree fold
away by themselves and come back as they were when the screen widens (at 40 columns they left the chat 8
characters); Ctrl+B still shows the column there. Below 110 columns the task tree, shown, takes the tool column's
place (at 80 columns the two left the conversation none)."""

from __future__ import annotations

from tests.ui.helpers import call, chat, chat_idle, make_app, send, task_tree, wait_until
from tui_agent.agent.events import ToolStatus
from tui_agent.testing.scripted import reply_script
from tui_agent.ui.screens.chat_columns import CROWDED, NARROW


async def test_the_side_columns_fold_away_below_sixty_columns_and_come_back() -> None:
    weather = [call("c1", ToolStatus.DONE, started=1.0, finished=2.0, result="Sunny"), *reply_script(["Sunny."])]
    app, _ = make_app([weather])
    async with app.run_test(size=(40, 24)) as pilot:
        screen = chat(pilot)
        await send(pilot, "What's the weather?")  # its first call came on a narrow screen: still folded
        await wait_until(pilot, lambda: chat_idle(pilot) and len(screen.tool_panels.panels) == 1, "the call")
        panels, log = screen.tool_panels, screen.chat_log
        assert not panels.display
        await wait_until(pilot, lambda: log.size.width >= 36, lambda: f"the conversation's width: {log.size}")

        await pilot.resize_terminal(120, 30)  # wide: the column is shown, the tree opened beside it
        await wait_until(pilot, lambda: panels.display, "the column back on a wide screen")
        tree = await task_tree(pilot)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: tree.display, "the task tree shown")

        await pilot.resize_terminal(NARROW - 1, 30)
        await wait_until(pilot, lambda: not panels.display and not tree.display, "both folded away")
        await wait_until(pilot, lambda: log.size.width >= NARROW - 5, lambda: f"the conversation's width: {log.size}")

        await pilot.resize_terminal(NARROW, 30)  # room for one: the tree, asked for, comes back in the column's place
        await wait_until(pilot, lambda: tree.display and not panels.display, "the tree back alone")
        assert app.focused is not tree  # a resize does not move the focus
        await wait_until(pilot, lambda: log.size.width >= 18, lambda: f"the conversation's width: {log.size}")

        await pilot.resize_terminal(80, 24)  # at 80 the two left the conversation no column at all
        await pilot.press("ctrl+t", "ctrl+t")  # hidden: the column comes back; shown: it makes room again
        await wait_until(pilot, lambda: tree.display and not panels.display, "the tree in the column's place")
        await wait_until(pilot, lambda: log.size.width >= 36, lambda: f"the conversation's width: {log.size}")
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: panels.display and not tree.display, "the column back with the tree hidden")
        await pilot.press("ctrl+t")

        await pilot.resize_terminal(CROWDED, 30)
        await wait_until(pilot, lambda: panels.display and tree.display, "both back as they were")

        await pilot.resize_terminal(40, 24)
        await wait_until(pilot, lambda: not panels.display, "folded again")
        await pilot.press("ctrl+b")  # asked for: shown on the narrow screen too
        await wait_until(pilot, lambda: panels.display, "shown by Ctrl+B")
