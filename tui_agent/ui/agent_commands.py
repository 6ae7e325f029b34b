"""Provides the palette's agent commands: "Switch agent" (a second palette of the agents), "Edit system
prompt" (the current session's, in a modal) and "Memory files" (which AGENTS.md... the prompt carries).

Both go through the port (`switch_agent`, `set_system_prompt`), which stores the change with the session and
applies it from the next turn on. Failures (a reply still running, history read-only) end in a notification
sentence, never an exception.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol

from textual.command import SimpleCommand

from tui_agent.agent.port import ChatPort
from tui_agent.errors import user_message
from tui_agent.sanitize import sanitize
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.system_prompt import SystemPromptScreen

if TYPE_CHECKING:
    from tui_agent.ui.hosts import AppEngine, Modals, Notices, Palette, ScreenStack

    class AgentCommandsApp(AppEngine, Notices, Palette, Modals, ScreenStack, Protocol):
        """What the agent commands use of the app (`TuiAgentApp`)."""


async def switch_agent(app: AgentCommandsApp) -> None:
    """Offer every agent in a second palette; picking one runs it from the next turn of this session."""
    try:
        backend = await app.engine()
    except Exception as error:  # the engine could not be built: its sentence says why
        app.notify(f"Could not list the agents: {user_message(error)}", severity="error")
        return
    agents = backend.list_agents()
    if not agents:
        app.notify("There are no agents: add profile files to the agents folder (see `tui-agent agents`).")
        return
    commands = [
        SimpleCommand(
            agent.name,
            partial(use_agent, app, backend, agent.name),
            sanitize(agent.description) + (" (in use)" if agent.name == backend.agent else ""),
        )
        for agent in agents
    ]
    app.search_commands(commands, placeholder="Switch to agent…")


async def use_agent(app: AgentCommandsApp, backend: ChatPort, name: str) -> None:
    """Run agent `name` from the next turn on, stored with the session; the status bar shows it."""
    try:
        await backend.switch_agent(name)
    except Exception as error:  # a reply still running, history read-only...: a sentence, the app goes on
        app.notify(f"Could not switch to {name}: {user_message(error)}", severity="error")
        return
    show_agent(app, backend)
    app.notify(f"The next reply comes from the {name} agent; the conversation is kept.")


async def show_memory_files(app: AgentCommandsApp) -> None:
    """Say which memory files (AGENTS.md...) the system prompt carries, and which were refused and why."""
    try:
        backend = await app.engine()
    except Exception as error:
        app.notify(f"Could not list the memory files: {user_message(error)}", severity="error")
        return
    lines = backend.memory_files()
    refused = any(line.startswith("refused: ") for line in lines)
    app.notify(
        sanitize("\n".join(lines)),
        title="Memory files in the system prompt",
        severity="warning" if refused else "information",
        timeout=15,
        markup=False,  # paths may hold brackets
    )


async def edit_system_prompt(app: AgentCommandsApp) -> None:
    """Open the current session's system prompt in a modal; saving stores it and sends it from the next turn."""
    try:
        backend = await app.engine()
    except Exception as error:
        app.notify(f"Could not open the system prompt: {user_message(error)}", severity="error")
        return
    screen = SystemPromptScreen(backend.session_system_prompt, backend.agent)
    app.push_screen(screen, partial(_save_prompt, app, backend))


async def _save_prompt(app: AgentCommandsApp, backend: ChatPort, text: str | None) -> None:
    if text is None:  # cancelled, or nothing changed
        return
    try:
        await backend.set_system_prompt(text)
    except Exception as error:
        app.notify(f"The system prompt was not changed: {user_message(error)}", severity="error")
        return
    app.notify("Saved: the next reply is asked with this system prompt." if text.strip() else "No system prompt now.")


def show_agent(app: AgentCommandsApp, backend: ChatPort) -> None:
    """Show the session's agent and model in the chat screen's status bar."""
    screen = next((screen for screen in reversed(app.screen_stack) if isinstance(screen, ChatScreen)), None)
    if screen is not None:
        screen.status_bar.set_agent(backend.agent)
        screen.status_bar.show(model=backend.model, endpoint=backend.endpoint, title=backend.session_title)
