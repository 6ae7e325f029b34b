"""Provides `run_builtin`: the built-in `/` commands (`tui_agent.commands.catalogue.BUILTINS`), each one of the
palette's actions, with what was typed after the name where it means something (`/model NAME`, `/agent NAME`,
`/team NAME`, `/mode NAME`: straight to it; without one, the same picker the palette opens).

The app runs them when the chat screen asks (`BuiltinCommandWanted`); failures end in a notice, as the palette's do.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.command import SimpleCommand

from tui_agent.commands.catalogue import Catalogue, SlashCommand
from tui_agent.errors import user_message
from tui_agent.sanitize import sanitize
from tui_agent.ui import commands as palette
from tui_agent.ui.agent_commands import edit_system_prompt, show_memory_files, switch_agent, use_agent
from tui_agent.ui.memory_editing import open_memory_file
from tui_agent.ui.mode_words import SAID, describe_mode

if TYPE_CHECKING:
    from textual.theme import Theme

    from tui_agent.ui.commands import PaletteApp
    from tui_agent.ui.hosts import TeamChoice, Workers

    class BuiltinsApp(PaletteApp, TeamChoice, Workers, Protocol):
        """What the built-in commands use of the app (`TuiAgentApp`): the palette's commands and what the ones
        they run use (picking a model, team or theme, copying, the editor)."""

        theme: str

        @property
        def available_themes(self) -> dict[str, Theme]: ...

        def register_every_theme(self) -> None: ...

        def copy_to_clipboard(self, text: str) -> None: ...

        async def action_quit(self) -> None: ...


def run_builtin(app: BuiltinsApp, name: str, arguments: str) -> None:
    """Run built-in command `name` (`arguments`: what was typed after it)."""
    action = ACTIONS.get(name)
    if action is None:  # a name BUILTINS lists and nobody mapped: a test keeps this from happening
        app.notify(f"/{name} is not available here.", severity="warning")
        return
    result = action(app, arguments.strip())
    if result is not None:
        app.run_worker(result, group="slash", exit_on_error=False, description=f"/{name}")


def _model(app: BuiltinsApp, name: str) -> Any:
    if not name:
        return app.action_switch_model()
    return _use_model(app, name)


async def _use_model(app: BuiltinsApp, name: str) -> None:
    try:
        backend = await app.engine()
    except Exception as error:
        app.notify(f"Could not switch the model: {user_message(error)}", severity="error")
        return
    palette.use_model(app, backend, name)


def _agent(app: BuiltinsApp, name: str) -> Any:
    return _use_agent(app, name) if name else switch_agent(app)


async def _use_agent(app: BuiltinsApp, name: str) -> None:
    try:
        backend = await app.engine()
    except Exception as error:
        app.notify(f"Could not switch the agent: {user_message(error)}", severity="error")
        return
    await use_agent(app, backend, name)


def _team(app: BuiltinsApp, name: str) -> Any:
    if not name:
        return app.action_run_team()
    palette.use_team(app, None if name in ("none", palette.NO_TEAM) else name)
    return None


def _mode(app: BuiltinsApp, name: str) -> None:
    """`/mode NAME` switches to it; `/mode` steps to the next mode (Shift+Tab)."""
    screen = palette.chat_screen(app)
    if screen is None:
        return
    if not name:
        screen.action_cycle_mode()
        return
    wanted = name.lower().replace("_", "-")
    backend = screen.backend
    if wanted not in SAID:
        app.notify(f"There is no mode {name!r}: {', '.join(SAID)}.", severity="warning", markup=False)
    elif backend is None:
        app.notify("The permission mode can change once the engine has started.")
    elif (why := backend.permissions.switch(cast("Any", wanted))) is not None:  # a name of SAID: a `Mode`
        app.notify(f"Still {backend.permissions.mode}: {why}", severity="warning", markup=False)
    else:
        screen.status_bar.set_mode(backend.permissions.mode)
        app.notify(describe_mode(wanted), title="Permission mode")


def _prompt_widget() -> type:
    """The prompt's widget class, which `/rewind` selects the newest of."""
    from tui_agent.ui.widgets.messages import UserMessage  # deferred: loaded with the first message

    return UserMessage


def _commands(app: BuiltinsApp) -> None:
    """Every command in a second palette; choosing one puts `/name ` in the prompt box."""
    screen = palette.chat_screen(app)
    backend = screen.backend if screen is not None else None
    commands = Catalogue(backend.slash_commands() if backend is not None else ()).all()
    app.search_commands(
        [SimpleCommand(command.label, partial(_type_command, app, command), _help(command)) for command in commands],
        placeholder="/ commands…",
    )


def _help(command: SlashCommand) -> str:
    where = f" · {command.where}" if command.where else ""
    return sanitize(f"{command.description} · {command.source}{where}")


def _type_command(app: BuiltinsApp, command: SlashCommand) -> None:
    screen = palette.chat_screen(app)
    if screen is not None:
        box = screen.prompt_input
        box.load_text(f"/{command.name} ")
        box.move_cursor(box.document.end)
        box.focus()


Action = Callable[["BuiltinsApp", str], Any]
"""Runs a command with what was typed after it; a coroutine it returns is run in a worker."""
ACTIONS: dict[str, Action] = {
    "new": lambda app, _: app.action_new_session(),
    "clear": lambda app, _: app.action_new_session(),
    "sessions": lambda app, _: app.action_sessions(),
    "model": _model,
    "agent": _agent,
    "team": _team,
    "mode": _mode,
    "plan": lambda app, _: _mode(app, "plan"),
    "compact": lambda app, _: palette.compact(app),
    "retry": lambda app, _: palette.redo(app, True),
    "continue": lambda app, _: palette.redo(app, False),
    "rewind": lambda app, _: palette.on_message(app, "rewind", _prompt_widget()),
    "undo": lambda app, _: palette.undo_rewind(app),
    "copy": lambda app, _: app.action_copy_last_reply(),
    "export": lambda app, _: app.action_export_session(),
    "memory": lambda app, _: open_memory_file(app),
    "memory-files": lambda app, _: show_memory_files(app),
    "system-prompt": lambda app, _: edit_system_prompt(app),
    "theme": lambda app, _: app.action_pick_theme(),
    "mcp": lambda app, _: app.action_mcp_servers(),
    "commands": lambda app, _: _commands(app),
    "help": lambda app, _: app.action_help(),
    "quit": lambda app, _: app.action_quit(),
}
"""Each built-in command's palette action, by name."""
