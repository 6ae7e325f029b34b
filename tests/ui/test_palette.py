"""The command palette (Ctrl+P): every command does its thing, driven the way a person does (type, Enter).

Switching model runs once against the real offline server over HTTP: its `/v1/models` is listed and the next
chat request names the new model, with the earlier conversation still in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Static

from tests.ui.helpers import SIZE, app_on_real_agent, chat, make_app, send, showing, task_tree, wait_until
from tui_agent import paths
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.testing.scripted import ScriptedBackend, reply_script
from tui_agent.ui import app as app_module
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.keys import key_rows
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.help import HelpScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.tool_panel import ToolPanels

OUR_COMMANDS = [
    "New session",
    "Sessions",
    "Switch model",
    "Switch agent",
    "Edit system prompt",
    "Memory files",
    "Edit memory file",
    "Theme",
    "Run a team",
    "Pause the team",
    "Export session",
    "Toggle tool panel",
    "Toggle task tree",
    "Retry last reply",
    "Continue reply",
    "Compact conversation",
    "Permission mode",
    "Copy last reply",
    "Select a message",
    "Edit a prompt",
    "Regenerate a reply",
    "Regenerate with another model",
    "Copy message",
    "Copy code block",
    "Open a cited passage",
    "Fork from message",
    "Rewind to here",
    "Previous branch",
    "Next branch",
    "Undo the last rewind",
    "Show config path",
    "MCP servers",
    "Help",
]


async def run_command(pilot: Pilot[None], text: str) -> None:
    """Open the palette if it is not open, type `text`, wait for it to be the highlighted match, press Enter."""
    app = pilot.app
    if not CommandPalette.is_open(app):  # type: ignore[arg-type]  # Textual wants App[object]; App is invariant
        await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: showing(app, CommandPalette), "palette open")  # a second palette too
    palette = app.screen
    palette.query_one(CommandInput).value = text
    commands = palette.query_one(CommandList)

    def highlighted() -> str:
        option = commands.highlighted_option
        return str(option.prompt).split("\n")[0] if option is not None else ""

    field = palette.query_one(CommandInput)
    await wait_until(
        pilot,
        lambda: highlighted().startswith(text),
        lambda: f"{text!r} highlighted (shows {highlighted()!r} of {commands.option_count}, typed {field.value!r})",
    )
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.screen is not palette, "palette closed")
    await pilot.pause()


async def picker(pilot: Pilot[None]) -> None:
    """Wait for the second palette a command opens (from its callback, a moment after the first one closed: a
    command typed before went to a palette opened anew)."""
    await wait_until(pilot, lambda: showing(pilot.app, CommandPalette), "the picker open")


def notices(app: TuiAgentApp) -> list[str]:
    return [notification.message for notification in notifications(app)]


async def test_palette_offers_our_commands_once_each() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE):
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert titles[: len(OUR_COMMANDS)] == OUR_COMMANDS
        assert titles.count("Theme") == 1 and "Quit" in titles  # Textual's theme command is replaced, not doubled


async def test_the_palette_names_the_keys_in_force() -> None:
    keys = {"retry_reply": "f3", "help": "f2", "sessions": "ctrl+o,f4"}
    app = TuiAgentApp(ScriptedBackend(), cursor_blink=False, settings=Settings(keys=keys))
    async with app.run_test(size=SIZE):
        helps = {command.title: command.help for command in app.get_system_commands(app.screen)}
        assert helps["Retry last reply"].endswith(" · f3") and helps["Help"].endswith(" · f2")
        assert helps["Continue reply"].endswith(" · ctrl+g") and helps["Sessions"].endswith(" · ctrl+o or f4")
        assert helps["Toggle tool panel"].endswith(" · ctrl+b") and helps["Toggle task tree"].endswith(" · ctrl+t")


async def test_toggle_tool_panel_and_task_tree() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        panels, tree = app.screen.query_one(ToolPanels), await task_tree(pilot)
        panels_shown, tree_shown = panels.display, tree.display
        await run_command(pilot, "Toggle tool panel")
        assert panels.display is not panels_shown
        await run_command(pilot, "Toggle task tree")
        assert tree.display is not tree_shown


async def test_sessions_and_help_open_their_screens() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Sessions")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "session screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionsScreen), "back to chat")
        await run_command(pilot, "Help")
        assert isinstance(app.screen, HelpScreen)


async def test_new_session_clears_the_conversation() -> None:
    app, backend = make_app([reply_script(["First answer."])])
    session = backend.add_session("Earlier")
    async with app.run_test(size=SIZE) as pilot:
        await backend.open_session(session.id)
        await send(pilot, "hello")
        assert chat(pilot).chat_log.assistant_messages
        await run_command(pilot, "New session")
        await wait_until(pilot, lambda: not chat(pilot).chat_log.assistant_messages, "empty chat")
        assert backend.current_session_id is None


async def test_copy_last_reply_puts_the_markdown_on_the_clipboard() -> None:
    app, _ = make_app([reply_script(["**Bold** answer ", "in two parts."]), reply_script(["Newest."], message_id="m2")])
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Copy last reply")
        assert any("no reply to copy" in n for n in notices(app))
        await send(pilot, "one")
        await send(pilot, "two")
        await run_command(pilot, "Copy last reply")
        assert app.clipboard == "Newest."
        assert any("Copied the last reply" in n for n in notices(app))


async def test_show_config_path_names_the_file() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Show config path")
        assert any(str(paths.config_file()) in n and "does not exist yet" in n for n in notices(app))


async def test_theme_is_switched_and_saved_keeping_the_file_comments() -> None:
    config = paths.config_file()
    config.write_text('# my settings\nmodel = "m1"  # the usual one\n')
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Theme")
        await picker(pilot)
        await run_command(pilot, "paper")
        assert app.theme == "paper"
        await pilot.press("ctrl+p")
        await run_command(pilot, "Theme")  # the second palette says which one is in use
        await picker(pilot)
        palette = app.screen
        await run_command(pilot, "nord")
        assert palette is not app.screen and app.theme == "nord"
    text = config.read_text()
    assert text.startswith('# my settings\nmodel = "m1"  # the usual one\n')
    assert 'theme = "nord"' in text


async def test_the_theme_picker_lists_every_theme_file_even_before_the_first_frame_s_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The theme files are read after the first frame; on a slow machine the picker may be opened before."""
    monkeypatch.setattr(app_module, "ENGINE_START_DELAY", 600.0)  # the first frame's work does not come
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Theme")
        await picker(pilot)
        await run_command(pilot, "forest")  # a shipped theme file's
        assert app.theme == "forest"


async def test_theme_not_saved_when_the_file_is_broken_says_so() -> None:
    config = paths.config_file()
    config.write_text("model = \n")
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Theme")
        await picker(pilot)
        await run_command(pilot, "forest")
        assert app.theme == "forest"
        assert any("not saved" in n and "line 1" in n for n in notices(app))
    assert config.read_text() == "model = \n"


async def test_switch_model_on_the_scripted_backend_updates_the_status_bar() -> None:
    app, backend = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Switch model")
        await picker(pilot)
        await run_command(pilot, "scripted-large")
        assert backend.model == "scripted-large"
        assert chat(pilot).status_bar.model == "scripted-large"


async def test_switch_model_against_the_offline_server_keeps_the_conversation(tmp_path: Path) -> None:
    server = BackgroundServer({"models": ["offline", "offline-large"]})
    server.start()
    settings = Settings(db=tmp_path / "history.db")
    choice = EndpointChoice(server.base_url, "offline", "test-key")
    try:
        app, _ = app_on_real_agent(settings, choice)
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "Remember the word pelican.")
            await run_command(pilot, "Switch model")
            await picker(pilot)
            palette = app.screen
            shown = [
                str(palette.query_one(CommandList).get_option_at_index(i).prompt).split("\n")[0]
                for i in range(palette.query_one(CommandList).option_count)
            ]
            assert shown == ["offline", "offline-large"]
            await run_command(pilot, "offline-large")
            assert chat(pilot).status_bar.model == "offline-large"
            await send(pilot, "Which word?")
        chats = [r.body for r in server.requests if r.body is not None]
        assert [body["model"] for body in chats] == ["offline", "offline-large"]
        sent = [message.get("content") for message in chats[1]["messages"]]
        assert "Remember the word pelican." in sent and "Which word?" in sent
        assert any(r.method == "GET" and r.path.endswith("/models") for r in server.requests)
    finally:
        server.stop()


async def test_switch_model_failure_is_a_sentence() -> None:
    app, backend = make_app()
    backend.models = []
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Switch model")
        assert any("lists no models" in n for n in notices(app))
        assert backend.model == "scripted-model"


async def test_mcp_servers_without_any_configured_says_how_to_add_one() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "MCP servers")
        assert any("[mcp_servers.NAME]" in notification.message for notification in notifications(app))


async def test_run_a_team_sends_the_next_prompts_to_it_until_no_team_is_picked() -> None:
    app, backend = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Run a team")
        await picker(pilot)
        await run_command(pilot, "writer-critic")
        await send(pilot, "Write about tea")
        assert backend.teams_run == [("writer-critic", "Write about tea")]
        await run_command(pilot, "Run a team")
        await picker(pilot)
        await run_command(pilot, "(no team)")
        await send(pilot, "hello")
        assert backend.teams_run == [("writer-critic", "Write about tea")] and backend.prompts[-1] == "hello"


PALETTE_OF_BINDING = {
    "new_session": "New session",
    "sessions": "Sessions",
    "toggle_tool_panel": "Toggle tool panel",
    "toggle_task_tree": "Toggle task tree",
    "retry_reply": "Retry last reply",
    "continue_reply": "Continue reply",
    "compact": "Compact conversation",
    "cycle_mode": "Permission mode",
    "select_message": "Select a message",
    "help": "Help",
    "quit": "Quit",
}
"""The palette command that does what each app or chat-screen binding does."""
NOT_IN_THE_PALETTE = {"interrupt", "command_palette", "cancel_turn", "focus_tools", "page_up", "page_down"}
"""Bindings for moments the palette cannot be open in (a reply running, the focus, scrolling) or the palette."""


async def test_the_palette_and_f1_name_the_same_keys_for_every_command_with_one() -> None:
    app = TuiAgentApp(
        ScriptedBackend(), cursor_blink=False, settings=Settings(keys={"compact": "f8", "new_session": "ctrl+o"})
    )
    async with app.run_test(size=SIZE) as pilot:
        helps = {command.title: command.help for command in app.get_system_commands(app.screen)}
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "F1 open")
        rows = [row for owner in (type(app), ChatScreen) for row in key_rows(owner, app.key_overrides)]
        assert {row.action for row in rows} == set(PALETTE_OF_BINDING) | NOT_IN_THE_PALETTE  # each one decided
        for row in rows:
            if row.action in PALETTE_OF_BINDING:
                help_text = helps[PALETTE_OF_BINDING[row.action]]
                assert all(key in help_text for key in row.keys.split()), (row, help_text)
        assert helps["Compact conversation"].endswith(" · f8") and helps["New session"].endswith(" · ctrl+o")
        assert helps["Quit"].endswith(" · ctrl+q")
        shown = "\n".join(str(static.render()) for static in app.screen.query(Static))
        assert "f8                  Compact the conversation" in shown and "ctrl+o              New session" in shown
