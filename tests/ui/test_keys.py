"""Key bindings: the `[keys]` table overrides them (by action name), unknown names are reported once, and F1
lists every binding with the key in force."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Static

import tui_agent.ui
from tests.ui.helpers import FIXED_NOW, SIZE, chat_idle, send, showing, task_tree, wait_until
from tui_agent.config import Settings
from tui_agent.testing.scripted import Gate, ScriptedBackend, reply_script
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.keys import key_rows
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.help import HelpScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.textual_private import Toast, notifications


def app_with(keys: dict[str, str], backend: ScriptedBackend | None = None) -> TuiAgentApp:
    return TuiAgentApp(
        backend or ScriptedBackend(), clock=lambda: FIXED_NOW, cursor_blink=False, settings=Settings(keys=keys)
    )


def help_text(app: TuiAgentApp) -> str:
    return "\n".join(str(static.render()) for static in app.screen.query(Static))


async def test_sessions_key_moves_to_the_configured_one() -> None:
    app = app_with({"sessions": "ctrl+o"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)  # the old key no longer opens it
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "session screen")


async def test_app_level_keys_can_be_moved_too() -> None:
    app = app_with({"help": "f2", "toggle_task_tree": "f7"})
    async with app.run_test(size=SIZE) as pilot:
        tree = await task_tree(pilot)
        shown = tree.display
        await pilot.press("f7")
        await wait_until(pilot, lambda: tree.display is not shown, "the tree toggled by f7")
        await pilot.press("f2")
        await wait_until(pilot, lambda: showing(app, HelpScreen), "help open")


async def test_cancel_key_override_stops_the_reply() -> None:
    gate = Gate()
    backend = ScriptedBackend([[*reply_script(["Half"]), gate, *reply_script([" never"], message_id="m2")]])
    app = app_with({"cancel_turn": "f2"}, backend)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go", wait=False)
        await wait_until(pilot, lambda: gate.reached, "mid-turn")
        await pilot.press("f2")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn stopped")
        assert backend.cancel_count == 1


async def test_unknown_action_names_are_reported_in_one_notification() -> None:
    app = app_with({"sessions": "ctrl+o", "no_such_action": "f5", "launch_rockets": "f6"})
    async with app.run_test(size=SIZE) as pilot:
        messages = [n.message for n in notifications(app) if "[keys]" in n.message]
        assert len(messages) == 1
        assert "'launch_rockets'" in messages[0] and "'no_such_action'" in messages[0]
        assert "'sessions'" not in messages[0]
        await send(pilot, "still works")
        assert backend_prompts(app) == ["still works"]


def backend_prompts(app: TuiAgentApp) -> list[str]:
    assert isinstance(app.engine_slot.ready, ScriptedBackend)
    return app.engine_slot.ready.prompts


async def test_help_lists_every_part_with_the_keys_in_force_and_closes_on_escape() -> None:
    app = app_with({"sessions": "ctrl+o", "toggle_task_tree": "f7"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: showing(app, HelpScreen), "help open")
        text = help_text(app)
        titles = ("Everywhere", "Chat screen", "Prompt", "Tool panel", "Task tree", "Approval dialog", "Session screen")
        assert all(title in text for title in titles)
        assert "ctrl+o" in text and "f7" in text and "[keys]" in text
        rows = {row.action: row for row in key_rows(ChatScreen, app.key_overrides)}
        assert rows["sessions"].keys == "ctrl+o" and rows["cancel_turn"].keys == "escape"
        rows = {row.action: row for row in key_rows(type(app), app.key_overrides)}
        assert {"help", "command_palette", "quit", "toggle_tool_panel"} <= set(rows)
        assert rows["toggle_task_tree"].keys == "f7"
        await pilot.press("escape")
        await wait_until(pilot, lambda: showing(app, ChatScreen), "help closed")
        await pilot.press("f1")
        await wait_until(pilot, lambda: showing(app, HelpScreen), "help open again")
        await pilot.press("f1")
        await wait_until(pilot, lambda: showing(app, ChatScreen), "help closed by F1")


async def test_an_override_that_takes_a_used_key_is_reported() -> None:
    app = app_with({"sessions": "escape"})
    async with app.run_test(size=SIZE) as pilot:
        (message,) = [n.message for n in notifications(app) if "[keys]" in n.message]
        assert "escape was 'cancel_turn' in chat screen; 'sessions' takes it" in message
        await pilot.press("escape")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "escape now opens sessions")


async def test_the_keys_notice_shows_its_brackets_literally() -> None:

    app = app_with({"no_such_action": "f5"})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)), "the notice shown")
        (toast,) = app.screen.query(Toast)
        assert "The [keys] table names no key binding called 'no_such_action'" in str(toast.render())


def ui_classes() -> list[type[DOMNode]]:
    """Every app, screen and widget class tui-agent's UI package defines."""
    modules = [
        importlib.import_module(info.name) for info in pkgutil.walk_packages(tui_agent.ui.__path__, "tui_agent.ui.")
    ]
    return [
        cls
        for module in modules
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, DOMNode) and cls.__module__ == module.__name__
    ]


def test_every_binding_has_an_id_of_its_own() -> None:
    """Textual's keymap reaches a binding only through its id; one id per binding, so an override moves one."""
    classes = ui_classes()
    assert len(classes) > 20
    owners: dict[str, tuple[str, str]] = {}
    for cls in classes:
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", [])):
            assert binding.id, f"{cls.__name__}: {binding.key} -> {binding.action} has no id"
            owner = owners.setdefault(binding.id, (cls.__qualname__, binding.action))
            assert owner == (cls.__qualname__, binding.action), f"{binding.id!r} names two bindings"


async def test_a_dialog_binding_f1_does_not_list_is_not_overridable() -> None:
    app = app_with({"mcp.restart": "f5"})
    async with app.run_test(size=SIZE):
        (message,) = [n.message for n in notifications(app) if "[keys]" in n.message]
        assert "'mcp.restart'" in message and app.key_overrides == {}
