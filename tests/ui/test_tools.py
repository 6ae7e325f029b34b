"""Pilot tests of tool panels and the approval modal, driven by a scripted backend."""

from __future__ import annotations

import json

from textual.content import Content

from tests.ui.helpers import call, chat, chat_idle, make_app, send, showing, under_the_pointer, wait_until
from tui_agent.agent.events import ToolStatus
from tui_agent.agents.skills import LOAD_TOOL, READ_TOOL
from tui_agent.testing.scripted import AskApproval, Gate, Script, reply_script
from tui_agent.tool_call import Decision
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.widgets.tool_panel import ToolPanel

STATUS_CLASSES = {f"-{status.value}" for status in ToolStatus}


def status_classes(panel: ToolPanel) -> set[str]:
    return set(panel.classes) & STATUS_CLASSES


async def test_panel_goes_through_every_status_with_a_distinct_look() -> None:
    gates = [Gate() for _ in range(4)]
    script: Script = [
        call("c1", ToolStatus.PENDING, arguments='{"loca'),
        gates[0],
        call("c1", ToolStatus.AWAITING_APPROVAL),
        gates[1],
        call("c1", ToolStatus.RUNNING, started=100.0),
        gates[2],
        call("c1", ToolStatus.DONE, started=100.0, finished=101.5, result="Sunny, 21 °C"),
        gates[3],
        call("c2", ToolStatus.FAILED, name="shell", started=100.0, finished=100.2, error="exit status 2"),
        call("c3", ToolStatus.DENIED, name="write_file"),
        call("c4", ToolStatus.INTERRUPTED, name="fetch", started=100.0, finished=102.0),
        call("c5", ToolStatus.DONE, name=LOAD_TOOL, arguments='{"name": "pdf-forms"}', result="Steps."),
        call("c6", ToolStatus.DONE, name=READ_TOOL, arguments='{"skill": "pdf-forms", "path": "ref.md"}'),
    ]
    app, _ = make_app([script])
    async with app.run_test() as pilot:
        await send(pilot, "weather?", wait=False)
        panels = chat(pilot).tool_panels
        seen = []
        for gate in gates:
            await wait_until(pilot, lambda: gate.reached)  # noqa: B023 (awaited here, in this iteration)
            panel = panels.panel(("m1", "c1"))
            assert panel is not None
            seen.append((status_classes(panel), panel.border_subtitle))
            gate.open()
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert [classes for classes, _ in seen] == [{"-pending"}, {"-awaiting_approval"}, {"-running"}, {"-done"}]
        assert [subtitle for _, subtitle in seen] == [
            "○ pending",
            "? awaiting approval",
            "◐ running · 3.2s",
            "✓ done · 1.5s",
        ]
        final = {p.call.call_id: status_classes(p) for p in panels.panels}
        assert final == {
            "c1": {"-done"},
            "c2": {"-failed"},
            "c3": {"-denied"},
            "c4": {"-interrupted"},
            "c5": {"-done"},
            "c6": {"-done"},
        }
        titles = [str(p.border_title) for p in panels.panels]
        assert titles[0] == "get_weather" and titles[-2:] == ["skill: pdf-forms", "skill file: pdf-forms/ref.md"]
        looks = {str(p.styles.border_top) for p in panels.panels}
        assert len(looks) == 4, "every final status has its own border"


DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-colour = 'red'\n+colour = 'green'\n size = 3\n"
LONG_TASK = "Find out " + "and then some more " * 20


def styles_over(content: Content, text: str) -> set[str]:
    """The styles of the spans covering the first `text` in `content`."""
    start = content.plain.index(text)
    return {str(span.style) for span in content.spans if span.start <= start and span.end >= start + len(text)}


async def test_arguments_read_as_a_form_and_results_are_highlighted_and_expand() -> None:
    result = "\n".join(f"line {n}" for n in range(30))
    arguments = json.dumps({"to_user": "Reading it now.", "path": "src/app.py", "task": LONG_TASK, "n": 3})
    script: Script = [  # the long one last: the column follows the newest, so it is the one in view
        call("c2", ToolStatus.DONE, name="get_data", arguments="{}", started=1.0, finished=2.0, result='{"t":21}'),
        call("c3", ToolStatus.DONE, name="edit_file", arguments='{"path": "app.py"}', result=DIFF),
        call("c1", ToolStatus.DONE, arguments=arguments, started=1.0, finished=2.0, result=result),
    ]
    app, _ = make_app([script])
    async with app.run_test(size=(160, 45)) as pilot:
        await send(pilot, "go")
        panel = chat(pilot).tool_panels.panel(("m1", "c1"))
        assert panel is not None
        collapsed = panel.render()
        assert isinstance(collapsed, Content)
        shown = collapsed.plain
        assert shown.startswith("path: src/app.py\ntask: Find out and then some more") and "\nn: 3\n" in shown
        assert "Reading it now" not in shown  # the chat says it; the panel does not repeat it
        assert "$text-accent" in styles_over(collapsed, "src/app.py")  # a path stands out
        assert LONG_TASK.strip() not in shown and "more …\n" in shown  # a long string is folded
        assert "line 7" in shown and "line 8" not in shown and "22 more lines" in shown
        data, diff = (chat(pilot).tool_panels.panel(("m1", key)) for key in ("c2", "c3"))
        assert data is not None and diff is not None
        drawn = data.render()
        assert isinstance(drawn, Content) and '{\n  "t": 21\n}' in drawn.plain  # JSON: pretty and highlighted
        assert "$text-warning" in styles_over(drawn, "21")
        drawn = diff.render()
        assert isinstance(drawn, Content)  # a unified diff in the theme's colours
        assert "$text-success" in styles_over(drawn, "+colour = 'green'")
        assert "$text-error" in styles_over(drawn, "-colour = 'red'")
        await wait_until(pilot, lambda: under_the_pointer(pilot, panel), "the panel laid out")
        await pilot.click(panel)
        await wait_until(pilot, lambda: "line 29" in str(panel.render()), "expanded by a click")
        assert LONG_TASK.strip() in str(panel.render())  # the arguments in full too
        panel.focus()  # the focus moves a moment later: wait before the key
        await wait_until(pilot, lambda: panel.has_focus, "the panel focused")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "line 29" not in str(panel.render()), "collapsed by Enter")


async def test_parallel_calls_run_together() -> None:
    gate = Gate()
    script: Script = [
        call("c1", ToolStatus.RUNNING, started=100.0),
        call("c2", ToolStatus.RUNNING, name="get_time", started=100.5),
        gate,
        call("c1", ToolStatus.DONE, started=100.0, finished=102.0, result="ok"),
        call("c2", ToolStatus.DONE, name="get_time", started=100.5, finished=101.0, result="noon"),
    ]
    app, _ = make_app([script])
    async with app.run_test() as pilot:
        await send(pilot, "both", wait=False)
        await wait_until(pilot, lambda: gate.reached)
        panels = chat(pilot).tool_panels.panels
        assert [(p.call.name, p.status) for p in panels] == [("get_weather", "running"), ("get_time", "running")]
        gate.open()
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert [p.status for p in panels] == [ToolStatus.DONE, ToolStatus.DONE]


def approval_script() -> list:  # type: ignore[type-arg]
    ask = call("c1", ToolStatus.AWAITING_APPROVAL, name="shell", arguments='{"command": "rm -rf [bold]/tmp/x"}')
    allowed = [
        call("c1", ToolStatus.DONE, name="shell", started=1.0, finished=2.0, result="removed"),
        *reply_script(["Done."], message_id="m2"),
    ]
    denied = [call("c1", ToolStatus.DENIED, name="shell"), *reply_script(["I did not run it."], message_id="m2")]
    return [AskApproval(ask, allowed, denied)]


async def test_approval_allow_once() -> None:
    app, backend = make_app([approval_script()])
    async with app.run_test() as pilot:
        await send(pilot, "clean up", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        assert "rm -rf [bold]/tmp/x" in app.export_screenshot().replace("&#160;", " ")
        await pilot.press("a")
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert backend.decisions == [Decision.ALLOW_ONCE]
        panel = chat(pilot).tool_panels.panel(("m1", "c1"))
        assert panel is not None and panel.status is ToolStatus.DONE


async def test_approval_always_by_button() -> None:
    app, backend = make_app([approval_script()])
    async with app.run_test() as pilot:
        await send(pilot, "clean up", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        button = app.screen.query_one("#allow_always")
        await wait_until(pilot, lambda: under_the_pointer(pilot, button), "the button laid out")
        await pilot.click("#allow_always")
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert backend.decisions == [Decision.ALLOW_ALWAYS]


async def test_approval_deny() -> None:
    app, backend = make_app([approval_script()])
    async with app.run_test() as pilot:
        await send(pilot, "clean up", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        await pilot.press("d")
        await wait_until(pilot, lambda: chat_idle(pilot))
        assert backend.decisions == [Decision.DENY]
        screen = chat(pilot)
        panel = screen.tool_panels.panel(("m1", "c1"))
        assert panel is not None and panel.status is ToolStatus.DENIED
        reply = screen.chat_log.assistant("m2")
        assert reply is not None and reply.text == "I did not run it."


async def test_escape_mid_tool_interrupts_running_calls() -> None:
    gate = Gate()
    app, backend = make_app(
        [
            [
                call("c1", ToolStatus.RUNNING, started=100.0),
                gate,
                call("c1", ToolStatus.DONE, started=100.0, finished=150.0, result="late"),
            ]
        ]
    )
    async with app.run_test() as pilot:
        await send(pilot, "slow tool", wait=False)
        await wait_until(pilot, lambda: gate.reached)
        await pilot.press("escape")
        await wait_until(pilot, lambda: backend.cancel_count == 1, "the turn stopped")
        screen = chat(pilot)
        panel = screen.tool_panels.panel(("m1", "c1"))
        assert panel is not None and panel.status is ToolStatus.INTERRUPTED
        assert not screen.busy and backend.cancel_count == 1
        await wait_until(pilot, lambda: screen.idle)
        assert panel.status is ToolStatus.INTERRUPTED and panel.call.result is None


async def test_a_panel_says_in_plain_words_when_a_hook_denied_a_call_or_changed_its_arguments() -> None:
    changed = '[arguments changed by a hook (`./check.sh`): {"location": "Lyon"}]\nLyon: cloudy'
    script: Script = [
        call("c1", ToolStatus.DENIED, error="A hook (guard) denied the call: no weather for Paris"),
        call("c2", ToolStatus.DONE, started=100.0, finished=100.5, result=changed),
        call("c3", ToolStatus.DENIED, name="write_file", error="denied by the user"),
    ]
    app, _ = make_app([script])
    async with app.run_test() as pilot:
        await send(pilot, "weather?")
        panels = {p.call.call_id: p for p in chat(pilot).tool_panels.panels}
        assert panels["c1"].border_subtitle == "⊘ denied by a hook (guard)"
        assert panels["c2"].border_subtitle == "✓ done · arguments changed by a hook (`./check.sh`) · 0.5s"
        assert panels["c3"].border_subtitle == "⊘ denied"  # the person's refusal: no hook named
