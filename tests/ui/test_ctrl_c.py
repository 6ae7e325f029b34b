"""Ctrl+C as terminal users expect it: copy the selection if there is one, else stop the running reply, else
(on an idle prompt) a second press within two seconds quits. Selecting text in a reply copies that text."""

from __future__ import annotations

from textual.geometry import Offset
from textual.selection import Selection

from tests.ui.helpers import SIZE, call, chat, chat_idle, make_app, send, showing, under_the_pointer, wait_until
from tui_agent.agent.events import ToolStatus
from tui_agent.config import Settings
from tui_agent.testing.scripted import AskApproval, Gate, ScriptedBackend, reply_script
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.textual_private import notifications

REPLY = "# Weather\n\nIt is **sunny** in Paris today.\n\n- warm\n- dry\n"


class Clock:
    """A clock the test moves by hand (no real waiting)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def notices(app: TuiAgentApp) -> list[str]:
    return [notification.message for notification in notifications(app)]


async def test_ctrl_c_copies_the_text_selected_in_a_reply() -> None:
    app, _ = make_app([reply_script([REPLY])])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "weather?")
        (reply,) = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: under_the_pointer(pilot, reply), "the reply laid out")
        reply.text_select_all()
        await wait_until(pilot, lambda: bool(chat(pilot).get_selected_text()), "the reply selected")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: "It is sunny in Paris today." in app.clipboard, lambda: repr(app.clipboard))
        assert "AssistantMessage" not in app.clipboard and "**" not in app.clipboard
        assert app.is_running


async def test_a_mouse_drag_over_a_reply_copies_what_it_covers() -> None:
    app, _ = make_app([reply_script(["It is sunny in Paris today."])])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "weather?")
        (reply,) = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: under_the_pointer(pilot, reply, (reply.gutter.left + 8, 0)), "laid out")
        await pilot.mouse_down(reply, offset=(reply.gutter.left, 0))
        await pilot.hover(reply, offset=(reply.gutter.left + 8, 0))
        await pilot.mouse_up(reply, offset=(reply.gutter.left + 8, 0))
        selected = chat(pilot).get_selected_text
        # The cell under the pointer counts, as in a Static.
        await wait_until(pilot, lambda: selected() == "It is sun", lambda: repr(selected()))
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.clipboard == "It is sun", lambda: repr(app.clipboard))


async def test_selection_across_the_prompt_and_a_reply_copies_only_text() -> None:
    app, _ = make_app([reply_script([REPLY])])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "weather?")
        screen = chat(pilot)
        (reply,) = screen.chat_log.assistant_messages
        (user,) = screen.chat_log.entries[:1]
        screen.selections = {user: Selection(None, None), reply: Selection(Offset(0, 0), Offset(9, 2))}
        await wait_until(pilot, lambda: bool(screen.get_selected_text()), "the selection made")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.clipboard.startswith("weather?\n"), lambda: repr(app.clipboard))
        assert "Weather" in app.clipboard and "AssistantMessage" not in app.clipboard


async def test_ctrl_c_copies_the_prompt_selection() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        prompt = chat(pilot).prompt_input
        prompt.insert("keep this text")
        prompt.select_all()
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.clipboard == "keep this text", lambda: repr(app.clipboard))
        assert app.is_running and prompt.text == "keep this text"


async def test_ctrl_c_stops_the_running_reply() -> None:
    gate = Gate()
    backend = ScriptedBackend([[*reply_script(["Half"]), gate]])
    app = TuiAgentApp(backend, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: chat_idle(pilot), "reply stopped")
        assert backend.cancel_count == 1
        assert app.is_running


async def test_ctrl_c_twice_on_an_idle_prompt_quits_and_once_only_says_how() -> None:
    clock = Clock()
    backend = ScriptedBackend()
    app = TuiAgentApp(backend, clock=clock, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: any("Ctrl+C again to quit" in notice for notice in notices(app)), "told")
        assert app.is_running
        clock.now += 2.5  # too late: this press only warns again
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        clock.now += 1.0
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running or backend.closed, "the app quit")
    assert backend.closed


async def test_ctrl_c_is_overridable_by_its_action_name() -> None:
    gate = Gate()
    backend = ScriptedBackend([[*reply_script(["Half"]), gate]])
    app = TuiAgentApp(backend, cursor_blink=False, settings=Settings(keys={"interrupt": "f9"}))
    async with app.run_test(size=SIZE) as pilot:
        assert not [n for n in notifications(app) if "[keys]" in n.message]  # a known name, no clash
        await send(pilot, "go", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-reply")
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert backend.cancel_count == 0  # ctrl+c is Textual's again
        await pilot.press("f9")
        await wait_until(pilot, lambda: chat_idle(pilot), "reply stopped")
        assert backend.cancel_count == 1


async def test_ctrl_c_in_the_approval_dialog_stops_the_turn() -> None:
    ask = call("c1", ToolStatus.AWAITING_APPROVAL, name="run_shell", arguments='{"command": "ls"}')
    app, backend = make_app([[AskApproval(ask)]])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "list files", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "the approval dialog")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen) and chat(pilot).idle, "turn stopped")
        assert backend.cancel_count == 1 and backend.decisions == [] and app.is_running
