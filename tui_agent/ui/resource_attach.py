"""Provides `attach_resource`: an MCP resource chosen in the @-picker, read from its server and attached like a
file; a template's parameters are asked first, one field each (the form a server's question uses).

Reading runs in a worker: the prompt stays usable meanwhile, and a resource that cannot be read (the server
stopped, the URI is unknown) is said in a notification by its URI; nothing is attached then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from tui_agent.errors import user_message

if TYPE_CHECKING:  # the records load with the first @, not before the first frame
    from tui_agent.agent.records import Answer, Attachment, ResourcePick


class McpResources(Protocol):
    """What the prompt needs of the run's MCP servers (`McpServers`): their resources, and one read."""

    def resource_picks(self) -> list[ResourcePick]: ...

    async def resource_attachments(self, server: str, uri: str, max_bytes: int) -> list[Attachment]: ...


def attach_resource(
    app: App[Any], servers: McpResources, pick: ResourcePick, max_bytes: int, add: Callable[[Attachment], None]
) -> None:
    """Read `pick` (asking its template's parameters first) and `add` what it gave; Esc on the form attaches
    nothing."""
    if not pick.is_template:
        _read(app, servers, pick.server, pick.uri, max_bytes, add)
        return
    # deferred: the form and the records load with the first template chosen
    from tui_agent.agent.records import Field, Question, filled_uri
    from tui_agent.ui.screens.elicitation import ElicitationScreen  # deferred: with the first template chosen

    fields = tuple(Field(name, name, "string", True) for name in pick.parameters)
    question = Question(pick.server, f"Fill in {pick.uri} to attach that resource.", fields)

    def answered(answer: Answer | None) -> None:
        if answer is not None and answer.action == "accept" and answer.content is not None:
            values = {name: str(value) for name, value in answer.content.items() if value is not None}
            _read(app, servers, pick.server, filled_uri(pick.uri, values), max_bytes, add)

    app.push_screen(ElicitationScreen(question), callback=answered)


def _read(
    app: App[Any], servers: McpResources, server: str, uri: str, max_bytes: int, add: Callable[[Attachment], None]
) -> None:
    async def read() -> None:
        try:
            found = await servers.resource_attachments(server, uri, max_bytes)
        except Exception as error:  # the server's refusal, a crash, a timeout: said, nothing attached
            app.notify(f"Could not attach {uri}: {user_message(error)}", severity="error", timeout=8, markup=False)
            return
        for attachment in found:
            add(attachment)

    app.run_worker(read(), group="attach-resource", exit_on_error=False)
