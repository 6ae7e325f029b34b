"""Provides `SlashCommands`: the run's own `/` commands — the user's and the project's Markdown commands
(`tui_agent.commands.command_files`) and the MCP servers' prompts — and what one sends when it is typed.

An MCP prompt is `/server:prompt`; the words typed after it are its arguments in the order the server lists them
(the last one takes the rest), and it asks the server for the prompt's messages, which become the text sent (a
message of another role than the user's is labelled with it). A file's command of the same name wins.
The built-in commands are the app's (`tui_agent.commands.catalogue.BUILTINS`): they are not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui_agent.commands.catalogue import BUILTINS, SlashCommand, invocation
from tui_agent.commands.command_files import CommandFiles, Expansion
from tui_agent.commands.templates import split_arguments
from tui_agent.errors import UserError
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.mcp.specs import first_line

if TYPE_CHECKING:
    from tui_agent.agent.port import ChatPort

BUILTIN_NAMES = frozenset(command.name for command in BUILTINS)


class UnknownCommandError(UserError, LookupError):
    """No command of the run has that name (the app sends the prompt as text, and says so)."""


class SlashCommands:
    """The run's command files and MCP prompts, by name."""

    def __init__(self, files: CommandFiles | None = None, servers: McpServers | None = None) -> None:
        self.files = files or CommandFiles()
        self.servers = servers

    def listed(self) -> list[SlashCommand]:
        """The files' commands, then each ready MCP server's prompts."""
        commands = self.files.commands
        names = {command.name for command in commands}
        for server, prompt in self._prompts():
            name = f"{server}:{prompt.name}"
            if name not in names:
                commands.append(_prompt_command(name, server, prompt))
        return commands

    async def expand(self, name: str, arguments: str) -> Expansion:
        """What command `name` sends with `arguments` (what was typed after it) filled in. Raises
        `UnknownCommandError`, or a `UserError` with the sentence to show (a missing argument, a server's failure)."""
        file = self.files.find(name)
        if file is not None:
            return file.expand(arguments)
        found = await self._prompt(name)
        if found is None or self.servers is None:
            raise UnknownCommandError(f"There is no command /{name}.")
        server, prompt = found
        values = prompt_arguments(prompt, arguments)
        try:
            messages = await self.servers.servers[server].get_prompt(prompt.name, values)
        except Exception as error:  # McpCallError and the SDK's: the sentence is the message
            raise UserError(str(error)) from error
        return Expansion(name, prompt_text(messages))

    async def _prompt(self, name: str) -> tuple[str, Any] | None:
        """The MCP prompt `name` names, waiting for its server to be ready (bounded by its start-up timeout)."""
        server = name.split(":", 1)[0]
        if self.servers is not None and server in self.servers.servers:
            await self.servers.settled()
        return next(((s, p) for s, p in self._prompts() if f"{s}:{p.name}" == name), None)

    def _prompts(self) -> list[tuple[str, Any]]:
        if self.servers is None:
            return []
        return [(name, prompt) for name, server in self.servers.servers.items() for prompt in server.prompts]


def prompt_arguments(prompt: Any, typed: str) -> dict[str, str]:
    """The words typed after an MCP prompt's name, as its arguments by position (the last takes the rest);
    raises `UserError` naming the required ones missing."""
    names = [argument.name for argument in prompt.arguments or []]
    words = split_arguments(typed)
    if names and len(words) > len(names):
        words = [*words[: len(names) - 1], " ".join(words[len(names) - 1 :])]
    values = dict(zip(names, words, strict=False))
    missing = [a.name for a in prompt.arguments or [] if a.required and not values.get(a.name)]
    if missing:
        raise UserError(f"/{prompt.name} needs {', '.join(missing)} (type them after the name, in that order).")
    return values


def prompt_text(messages: list[tuple[str, str]]) -> str:
    """An MCP prompt's messages as the text sent: the user's as they are, others' labelled with their role."""
    parts = [text if role == "user" else f"[{role}]\n{text}" for role, text in messages]
    return "\n\n".join(part.strip() for part in parts if part.strip())


def _prompt_command(name: str, server: str, prompt: Any) -> SlashCommand:
    arguments = prompt.arguments or []
    hint = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in arguments)
    description = first_line(prompt.description) or f"{server}'s prompt {prompt.name}"
    return SlashCommand(name, description, "mcp", hint, bool(arguments), f"MCP server {server}")


async def prompt_to_send(backend: ChatPort, prompt: str) -> tuple[str, str | None]:
    """What `-p PROMPT` sends: the prompt, or the command it names filled in (switching to the agent and model the
    command names); and a notice for stderr (a `/word` that is no command is sent as text). Raises `UserError` for a
    built-in command (the app's) and for a command that cannot be filled in."""
    called = invocation(prompt)
    if called is None:
        return prompt, None
    if called.name in BUILTIN_NAMES:
        raise UserError(
            f"/{called.name} is one of the app's commands (run tui-agent without -p for it); "
            "-p runs your own and the project's commands, and MCP prompts"
        )
    try:
        expansion = await backend.expand_command(called.name, called.arguments)
    except UnknownCommandError:
        return prompt, f"/{called.name} is not a command: sent as text"
    said = []
    if expansion.agent and expansion.agent != backend.agent:
        await backend.switch_agent(expansion.agent)
        said.append(f"the {expansion.agent} agent")
    if expansion.model and expansion.model != backend.model:
        backend.switch_model(expansion.model)
        said.append(f"model {expansion.model}")
    return expansion.text, f"/{called.name} runs with {' and '.join(said)}" if said else None
