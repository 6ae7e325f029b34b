"""Provides the command palette's commands (Ctrl+P) and the app actions behind the ones that are new here:
switch model, pick a theme (saved to the config file), retry or continue the last reply, copy the last
reply, show the config file's path.

Each command is also an app action (`app.action_switch_model` ...), so keys and other screens reach the same
code. Failures end in a notification sentence, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Protocol, cast

from textual.app import SystemCommand
from textual.command import SimpleCommand
from textual.dom import DOMNode
from textual.theme import BUILTIN_THEMES

from tui_agent import paths
from tui_agent.agent.port import ChatPort
from tui_agent.config import ConfigFileError
from tui_agent.config_write import set_config_value
from tui_agent.errors import user_message
from tui_agent.ui.agent_commands import edit_system_prompt, show_memory_files, switch_agent
from tui_agent.ui.keys import keys_of
from tui_agent.ui.memory_editing import open_memory_file
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.team_choice import choose_team
from tui_agent.ui.widgets.message_cursor import MessageCursor
from tui_agent.ui.widgets.messages import AssistantMessage, UserMessage

if TYPE_CHECKING:
    from textual.theme import Theme

    from tui_agent.ui.agent_commands import AgentCommandsApp
    from tui_agent.ui.hosts import AppEngine, KeyMap, Notices, Palette, ScreenStack
    from tui_agent.ui.memory_editing import MemoryApp
    from tui_agent.ui.team_choice import TeamApp

    class ModelApp(AppEngine, Notices, Palette, ScreenStack, Protocol):
        """What switching the model uses of the app (`TuiAgentApp`)."""

    class ThemeApp(Notices, Palette, Protocol):
        """What picking a theme uses of the app."""

        theme: str

        @property
        def available_themes(self) -> dict[str, Theme]: ...

        def register_every_theme(self) -> None: ...

    class CopyApp(Notices, ScreenStack, Protocol):
        """What copying the last reply uses of the app."""

        def copy_to_clipboard(self, text: str) -> None: ...

    class AppActions(Protocol):
        """The app's actions the palette offers (`TuiAgentApp.action_*`: keys and other screens reach them too)."""

        def action_new_session(self) -> None: ...

        def action_sessions(self) -> None: ...

        async def action_switch_model(self) -> None: ...

        def action_pick_theme(self) -> None: ...

        async def action_run_team(self) -> None: ...

        def action_export_session(self) -> None: ...

        def action_toggle_tool_panel(self) -> None: ...

        def action_toggle_task_tree(self) -> None: ...

        def action_copy_last_reply(self) -> None: ...

        def action_show_config_path(self) -> None: ...

        def action_mcp_servers(self) -> None: ...

        def action_help(self) -> None: ...

    class TeamPickerApp(TeamApp, AppEngine, Palette, Protocol):
        """What picking a team uses of the app."""

    class MessageCommandsApp(KeyMap, ScreenStack, Protocol):
        """What the message cursor's commands use of the app: the keys in force, and the chat screen."""

    class PaletteApp(AppActions, AgentCommandsApp, MessageCommandsApp, MemoryApp, Protocol):
        """What the palette's commands use of the app (`TuiAgentApp`): its actions, and what the commands they run
        use (the agent commands, the message cursor's, the memory file's editor)."""


REPLACED_TEXTUAL_COMMANDS = {"Theme"}
"""Textual's own commands that ours replace ("Theme" does not save the choice)."""


def palette_commands(app: PaletteApp, textual_commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """tui-agent's commands first, then Textual's (quit, keys, screenshot...) minus the ones we replace. A
    command that also has a key says which, as the `[keys]` table has it now."""
    chat, everywhere = ChatScreen, cast("type[DOMNode]", type(app))  # a Textual app: its bindings hold everywhere
    yield SystemCommand(
        "New session", keyed(app, "Start a new, empty conversation", chat, "new_session"), app.action_new_session
    )
    yield SystemCommand(
        "Sessions",
        keyed(app, "List, search, open, rename, fork or delete sessions", chat, "sessions"),
        app.action_sessions,
    )
    yield SystemCommand(
        "Switch model", "Pick one of the endpoint's models; the conversation is kept", app.action_switch_model
    )
    yield SystemCommand(
        "Switch agent", "Run another agent (prompt, tools, model) from the next turn on", partial(switch_agent, app)
    )
    yield SystemCommand(
        "Edit system prompt", "Change this session's system prompt (stored with it)", partial(edit_system_prompt, app)
    )
    yield SystemCommand(
        "Memory files", "Which AGENTS.md files the system prompt carries", partial(show_memory_files, app)
    )
    yield SystemCommand(
        "Edit memory file", "Open the nearest AGENTS.md in $EDITOR (/memory)", partial(open_memory_file, app)
    )
    yield SystemCommand("Theme", "Change the theme (saved in the config file)", app.action_pick_theme)
    yield SystemCommand(
        "Run a team", "Send the next prompts to a team of agents (writer + critic...)", app.action_run_team
    )
    yield SystemCommand(
        "Pause the team", keyed(app, "Speak between a team's members while it works", chat, "pause_team"),
        partial(pause_team_now, app),
    )  # fmt: skip
    yield SystemCommand(
        "Export session",
        "Write the current session to a file (Markdown or JSON); asks where",
        app.action_export_session,
    )
    yield SystemCommand(
        "Toggle tool panel",
        keyed(app, "Show or hide the tool calls on the right", everywhere, "toggle_tool_panel"),
        app.action_toggle_tool_panel,
    )
    yield SystemCommand(
        "Toggle task tree",
        keyed(app, "Show or hide the current turn's task tree", everywhere, "toggle_task_tree"),
        app.action_toggle_task_tree,
    )
    yield SystemCommand(
        "Retry last reply",
        keyed(app, "Ask again; the old reply is kept, dimmed", chat, "retry_reply"),
        partial(redo, app, True),
    )
    yield SystemCommand(
        "Continue reply",
        keyed(app, "Have the model go on with a cut-off reply", chat, "continue_reply"),
        partial(redo, app, False),
    )
    yield SystemCommand(
        "Compact conversation",
        keyed(
            app,
            "Summarise the older turns into one message the model gets instead; they stay here, collapsed",
            chat,
            "compact",
        ),
        partial(compact, app),
    )
    yield SystemCommand(
        "Permission mode",
        keyed(
            app,
            "Cycle ask / auto-edit / auto / plan / read-only: what tools may run without asking",
            chat,
            "cycle_mode",
        ),
        partial(cycle_mode, app),
    )
    yield SystemCommand("Copy last reply", "Copy the latest answer to the clipboard", app.action_copy_last_reply)
    yield from message_commands(app)
    yield SystemCommand(
        "Undo the last rewind", "Put the files back as they were before the last rewind", partial(undo_rewind, app)
    )
    yield SystemCommand("Show config path", "Where the config file is", app.action_show_config_path)
    yield SystemCommand(
        "MCP servers", "Their state and tools; restart one, show its log, turn it on or off", app.action_mcp_servers
    )
    yield SystemCommand("Help", keyed(app, "Every key binding", everywhere, "help"), app.action_help)
    yield from textual_keyed(app, textual_commands)


def textual_keyed(app: KeyMap, commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's commands minus the ones we replace; the one F1 lists a key for (Quit) names it as ours do."""
    for command in commands:
        if command.title == "Quit":
            yield command._replace(help=keyed(app, command.help, cast("type[DOMNode]", type(app)), "quit"))
        elif command.title not in REPLACED_TEXTUAL_COMMANDS:
            yield command


def keyed(app: KeyMap, help_text: str, owner: type[DOMNode], binding_id: str) -> str:
    """`help_text` and the key(s) binding `binding_id` of `owner` has now: "Every key binding · f1"."""
    keys = keys_of(owner, binding_id, app.key_overrides)
    return f"{help_text} · {' or '.join(keys.split())}" if keys else help_text


def chat_screen(app: ScreenStack) -> ChatScreen | None:
    """The chat screen under whatever is open on top of it."""
    return next((screen for screen in reversed(app.screen_stack) if isinstance(screen, ChatScreen)), None)


def redo(app: ScreenStack, retry: bool) -> None:
    """Retry or continue the last reply, as Ctrl+R / Ctrl+G on the chat screen do."""
    screen = chat_screen(app)
    if screen is not None:
        screen.action_retry_reply() if retry else screen.action_continue_reply()


def cycle_mode(app: ScreenStack) -> None:
    """Step to the next permission mode, as Shift+Tab on the chat screen does."""
    screen = chat_screen(app)
    if screen is not None:
        screen.action_cycle_mode()


def undo_rewind(app: ScreenStack) -> None:
    """Take the last rewind of the files back (asked first)."""
    screen = chat_screen(app)
    if screen is not None:
        screen.run_worker(screen.rewinds.undo(), group="branch-action", exit_on_error=False, description="undo")


def pause_team_now(app: ScreenStack) -> None:
    """Pause the team working now after its current member, for the person's message."""
    screen = chat_screen(app)
    if screen is not None:
        screen.action_pause_team()


def compact(app: ScreenStack) -> None:
    """Compact the conversation, as the chat screen does before a turn when the context is full."""
    screen = chat_screen(app)
    if screen is not None:
        screen.action_compact()


def message_commands(app: MessageCommandsApp) -> Iterator[SystemCommand]:
    """The message cursor's actions: on the selected message, else on the newest one they apply to."""

    select = keys_of(ChatScreen, "select_message", app.key_overrides)
    yield SystemCommand("Select a message", f"Walk the conversation with the keys ({select})", partial(on_message, app))
    for title, help_text, binding, action, kind in (
        ("Edit a prompt", "Send a new version of it; the old branch is kept", "edit_message", "edit", UserMessage),
        ("Regenerate a reply", "A new version of it; the old one is kept", "regenerate_message", "regenerate", None),
        ("Regenerate with another model", "Pick the model for a new version", "regenerate_with_model", None, None),
        ("Copy message", "The selected (or newest) message as Markdown", "copy_message", "copy_message", None),
        ("Copy code block", "The selected code block of a reply", "copy_code", "copy_code", AssistantMessage),
        ("Open a cited passage", "A file a reply cites, at those lines", "open_citation", None, AssistantMessage),
        ("Fork from message", "A new session with the conversation up to it", "fork_here", "fork", None),
        ("Rewind to here", "The conversation and the files back to a message", "rewind_here", "rewind", None),
        ("Previous branch", "The previous version of the selected message", "previous_branch", "branch", None),
        ("Next branch", "The next version of the selected message", "next_branch", "branch", None),
    ):
        keys = keys_of(MessageCursor, binding, app.key_overrides)
        run = partial(on_message, app, action or binding, kind, -1 if binding == "previous_branch" else 1)
        yield SystemCommand(title, f"{help_text} ({keys} on a selected message)", run)


def on_message(app: ScreenStack, action: str | None = None, kind: type | None = None, step: int = 1) -> None:
    """Select a message (`action` None), or do `action` on the selected or newest one (of `kind`)."""
    screen = chat_screen(app)
    if screen is None:
        return
    cursor = screen.message_cursor
    if action is None:
        cursor.enter()
    else:
        cursor.run(action, kind, step)


# -- switch model -------------------------------------------------------------------------------------
async def switch_model(app: ModelApp) -> None:
    """Ask the endpoint for its models and offer them in a second palette."""
    try:
        backend = await app.engine()
        models = await backend.list_models()
    except Exception as error:  # the client's errors carry a sentence a person can act on
        app.notify(f"Could not list the models: {user_message(error)}", severity="error")
        return
    if not models:
        app.notify("The endpoint lists no models.", severity="warning")
        return
    current = backend.model
    commands = [
        SimpleCommand(name, partial(use_model, app, backend, name), "in use" if name == current else None)
        for name in sorted(models)
    ]
    app.search_commands(commands, placeholder="Switch to model…")


def use_model(app: ModelApp, backend: ChatPort, name: str) -> None:
    """Make `name` the model for the next request and show it in the status bar."""
    backend.switch_model(name)
    screen = chat_screen(app)
    if screen is not None:
        screen.status_bar.show(model=backend.model, endpoint=backend.endpoint, title=backend.session_title)
    app.notify(f"The next reply comes from {name}; the conversation is kept.")


# -- teams --------------------------------------------------------------------------------------------
NO_TEAM = "(no team)"


async def pick_team(app: TeamPickerApp) -> None:
    """Offer the teams (and going back to one agent) in a second palette."""
    try:
        teams = await (await app.engine()).list_teams()
    except Exception as error:  # a sentence a person can act on, never a crash
        app.notify(f"Could not list the teams: {user_message(error)}", severity="error")
        return
    commands = [
        SimpleCommand(name, partial(use_team, app, name), "in use" if name == app.team else description or None)
        for name, description in teams
    ]
    commands.append(SimpleCommand(NO_TEAM, partial(use_team, app, None), "Prompts go to the session's agent"))
    app.search_commands(commands, placeholder="Run a team…")


def use_team(app: TeamPickerApp, name: str | None) -> None:
    """Send the next prompts to team `name` (None: to the session's own agent), stored with the session."""
    app.run_worker(_use_team(app, name), group="team", exit_on_error=False)


async def _use_team(app: TeamPickerApp, name: str | None) -> None:

    if not await choose_team(app, await app.engine(), name):
        return
    if name is None:
        app.notify("Your next prompts go to the session's agent.")
    else:
        app.notify(f"Your next prompts go to team {name}; it stops when it is done or out of rounds.")


# -- themes -------------------------------------------------------------------------------------------
def pick_theme(app: ThemeApp) -> None:
    """Offer every theme (shipped, yours, Textual's) in a second palette."""
    app.register_every_theme()
    commands = []
    for name, theme in sorted(app.available_themes.items()):
        origin = "Textual" if name in BUILTIN_THEMES else "tui-agent"
        marker = ", in use" if name == app.theme else ""
        help_text = f"{'dark' if theme.dark else 'light'} · {origin}{marker}"
        commands.append(SimpleCommand(name, partial(use_theme, app, name), help_text))
    app.search_commands(commands, placeholder="Theme…")


def use_theme(app: ThemeApp, name: str) -> None:
    """Switch to theme `name` and save it as `theme` in the config file."""
    app.theme = name
    path = paths.config_file()
    try:
        set_config_value(path, "theme", name)
    except ConfigFileError as error:
        app.notify(f"Theme {name} is on for now, but it was not saved: {error}", severity="warning", timeout=10)
        return
    app.notify(f"Theme {name}, saved in {path}.")


# -- copy, config path --------------------------------------------------------------------------------
def last_reply(app: ScreenStack) -> str | None:
    """The markdown of the newest assistant message that has text, if any."""
    screen = chat_screen(app)
    messages = screen.chat_log.assistant_messages if screen is not None else []
    return next((message.text for message in reversed(messages) if message.text.strip()), None)


def copy_last_reply(app: CopyApp) -> None:
    """Put the last reply's markdown on the clipboard and say so."""
    text = last_reply(app)
    if text is None:
        app.notify("There is no reply to copy yet.", severity="warning")
        return
    app.copy_to_clipboard(text)
    app.notify(f"Copied the last reply ({len(text):,} characters).")


def show_config_path(app: Notices) -> None:
    """Say where the config file is (and whether it exists yet)."""
    path = paths.config_file()
    state = "" if path.exists() else " (it does not exist yet; create it to change the defaults)"
    app.notify(f"Config file: {path}{state}", timeout=15)
