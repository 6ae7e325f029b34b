"""Provides `SlashPrompts`: what the chat screen does with a prompt that starts with `/`.

A built-in command's name asks the app to run its palette action (`BuiltinCommandWanted`); the run's own commands
(the user's and the project's Markdown commands, the MCP servers' prompts: `CommandsPort`) are filled in through
the port and the text is sent as a prompt, after switching to the agent or model the command names. A `/word` that
is no command is sent as it is, with a notice saying so (a path such as `/usr/bin` is no command's shape and is sent
without one). A command that cannot be filled in (a missing argument, a server's failure) is said, and what was
typed goes back into an empty prompt box, never lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tui_agent.errors import EngineUnavailableError, user_message
from tui_agent.ui.command_wanted import BuiltinCommandWanted
from tui_agent.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from tui_agent.agent.port import ChatBackend
    from tui_agent.agent.records import Attachment
    from tui_agent.commands.catalogue import Catalogue, Invocation
    from tui_agent.ui.hosts import Notices, Workers
    from tui_agent.ui.screens.chat_turns import Edits, TurnRunner
    from tui_agent.ui.screens.memory_note import NoteApp
    from tui_agent.ui.widgets.status_bar import StatusBar

    class SlashHost(Notices, Workers, Protocol):
        """What the `/` prompts use of the chat screen."""

        backend: ChatBackend | None

        @property
        def branches(self) -> Edits: ...

        @property
        def turns(self) -> TurnRunner: ...

        @property
        def prompt_input(self) -> PromptInput: ...

        @property
        def status_bar(self) -> StatusBar: ...

        async def connected(self) -> ChatBackend: ...

        @property
        def app(self) -> NoteApp: ...

        def post_message(self, message: BuiltinCommandWanted) -> bool: ...


def is_note(prompt: str) -> bool:
    """`# text` on one line, as Claude Code takes it: a note for the memory file (`## heading` and a pasted Markdown
    document are prompts)."""
    text = prompt.strip()
    return text.startswith("#") and not text.startswith("##") and "\n" not in text and bool(text[1:].strip())


class SlashPrompts:
    """The chat screen's `/` commands (the screen holds one, `slash`)."""

    def __init__(self, screen: SlashHost) -> None:
        self.screen = screen

    def catalogue(self) -> Catalogue:
        """Every command now: the built-ins, then the run's own once the engine is there."""
        from tui_agent.commands.catalogue import Catalogue  # deferred: with the first / typed, not the first frame

        backend = self.screen.backend
        return Catalogue(backend.slash_commands() if backend is not None else ())

    def submitted(self, event: PromptInput.Submitted) -> bool:
        """Run the command `event`'s prompt names, or offer its `# note` for the memory file; False when it is
        neither (it is sent as it is)."""
        if self.screen.branches.editing is not None:  # an edited prompt is sent as written
            return False
        if is_note(event.text) and not event.attachments:
            event.stop()
            # deferred: the memory file's code loads pydantic (the settings), with the first note
            from tui_agent.ui.screens.memory_note import offer_note

            offer_note(self.screen, self.screen.app, event.text)
            return True
        if not event.text.lstrip().startswith("/"):
            return False
        from tui_agent.commands.catalogue import BUILTINS, invocation  # deferred: with the first /, not the first frame

        called = invocation(event.text)
        if called is None:
            return False
        event.stop()
        if called.name in {command.name for command in BUILTINS}:
            if event.attachments:  # a built-in sends nothing: the files stay for the next prompt
                self.screen.prompt_input.set_attachments(event.attachments)
            self.screen.post_message(BuiltinCommandWanted(called.name, called.arguments))
        else:
            self.screen.run_worker(
                self._run(called, event), group="slash", exit_on_error=False, description=f"/{called.name}"
            )
        return True

    async def _run(self, called: Invocation, event: PromptInput.Submitted) -> None:
        try:
            backend = await self.screen.connected()
        except EngineUnavailableError:  # the app says why; the prompt is not lost
            self._give_back(event.text)
            return
        try:
            expansion = await backend.expand_command(called.name, called.arguments)
        except LookupError:  # no such command (`UnknownCommandError`): the prompt as typed
            self.screen.notify(
                f"/{called.name} is not a command (type / to see them): sent as text.", timeout=6, markup=False
            )
            self.screen.turns.submitted(event)
            return
        except Exception as error:  # a missing argument, a server's failure: said
            self._failed(called, event, error)
            return
        try:
            await self._answered_by(backend, expansion.agent, expansion.model)
        except Exception as error:  # a missing argument, a server's failure, a reply still running: said
            self._failed(called, event, error)
            return
        self._send(event.prompt_input, expansion.text, event.attachments)

    async def _answered_by(self, backend: ChatBackend, agent: str | None, model: str | None) -> None:
        """Switch to the agent and model a command names (kept for the next prompts, as a switch is), and say so."""
        said = []
        if agent and agent != backend.agent:
            await backend.switch_agent(agent)
            said.append(f"the {agent} agent")
        if model and model != backend.model:
            backend.switch_model(model)
            said.append(f"model {model}")
        if said:
            self.screen.status_bar.set_agent(backend.agent)
            self.screen.status_bar.show(model=backend.model, endpoint=backend.endpoint, title=backend.session_title)
            self.screen.notify(f"This command runs with {' and '.join(said)} (the next prompts too).", markup=False)

    def _failed(self, called: Invocation, event: PromptInput.Submitted, error: Exception) -> None:
        self.screen.notify(f"/{called.name}: {user_message(error)}", severity="error", timeout=10, markup=False)
        self._give_back(event.text)

    def _send(self, box: PromptInput, text: str, attachments: list[Attachment]) -> None:
        self.screen.turns.submitted(PromptInput.Submitted(box, text, attachments))

    def _give_back(self, text: str) -> None:
        box = self.screen.prompt_input
        if not box.text.strip():
            box.load_text(text)
            box.move_cursor(box.document.end)
