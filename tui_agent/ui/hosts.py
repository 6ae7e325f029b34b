"""Provides the narrow interfaces (`Protocol`s) by which the UI's lower modules name what they use of the screen
or app above them, so that none imports its owner (`tests/unit/test_ui_imports.py`): each is one concern, and a
module combines the few it uses into its own `...Host` or `...App`, beside its code. mypy checks the real classes
against them where they are handed down: the chat screen hands itself to its controllers (and `LaterWidgets`
mounts the cursor and the hover bar on it), the app itself to its commands.

Type names only, imported under `TYPE_CHECKING` (the `...Host`s are made there too): no class is made at run
time, so the first frame pays nothing for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from textual.app import App
    from textual.command import CommandListItem
    from textual.css.query import DOMQuery
    from textual.notifications import SeverityLevel
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.timer import Timer
    from textual.widget import AwaitMount, Widget
    from textual.worker import Worker

    from tui_agent.agent.port import ChatBackend
    from tui_agent.ui.engine import EngineSlot
    from tui_agent.ui.widgets.chat_log import ChatLog
    from tui_agent.ui.widgets.prompt import PromptInput
    from tui_agent.ui.widgets.queued import QueuedPrompts
    from tui_agent.ui.widgets.status_bar import StatusBar
    from tui_agent.ui.widgets.tool_panel import ToolPanels

    Result = TypeVar("Result")
    Found = TypeVar("Found", bound=Widget)


# -- what Textual gives every screen and the app (the few members the UI's lower modules use) ----------------
class Notices(Protocol):
    """Says something in a notification."""

    def notify(
        self,
        message: str,
        *,
        title: str = ...,
        severity: SeverityLevel = ...,
        timeout: float | None = ...,
        markup: bool = ...,
    ) -> None: ...


class Workers(Protocol):
    """Runs a coroutine in a worker it owns (cancelled with it)."""

    def run_worker(
        self,
        work: Awaitable[Result],
        *,
        group: str = ...,
        description: str = ...,
        exit_on_error: bool = ...,
        exclusive: bool = ...,
    ) -> Worker[Result]: ...


class ScreenNode(Notices, Workers, Protocol):
    """What a chat screen's controller uses of the Textual screen it works for, beside its widgets."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def is_attached(self) -> bool: ...

    def call_after_refresh(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> bool: ...

    def set_timer(
        self, delay: float, callback: Callable[[], object] | None = ..., *, name: str | None = ...
    ) -> Timer: ...

    def query(self, selector: type[Found]) -> DOMQuery[Found]: ...

    def mount(self, *widgets: Widget, before: Widget | None = ...) -> AwaitMount: ...


class ScreenStack(Protocol):
    """The app's screens, bottom to top (the chat screen is under whatever is open on it)."""

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...


class Modals(Protocol):
    """Opens a screen over the others; `callback` gets what it is dismissed with."""

    def push_screen(
        self, screen: Screen[Result], callback: ScreenResultCallbackType[Result] | None = ...
    ) -> AwaitMount: ...


class Palette(Protocol):
    """Offers a list of commands in a second command palette."""

    def search_commands(self, commands: Sequence[CommandListItem], placeholder: str = ...) -> AwaitMount: ...


# -- what tui-agent's chat screen has --------------------------------------------------------------------------
class ChatWidgets(Protocol):
    """The chat screen's widgets that its controllers write to."""

    @property
    def chat_log(self) -> ChatLog: ...

    @property
    def tool_panels(self) -> ToolPanels: ...

    @property
    def status_bar(self) -> StatusBar: ...

    @property
    def prompt_input(self) -> PromptInput: ...

    @property
    def queued(self) -> QueuedPrompts: ...


class ChatEngine(Protocol):
    """The chat screen's way to the engine: the app's slot, and its backend once this screen is plugged into it."""

    @property
    def engine(self) -> EngineSlot: ...

    @property
    def backend(self) -> ChatBackend | None: ...

    async def connected(self) -> ChatBackend: ...

    def show_status(self) -> None:
        """The status line shows the engine's model, endpoint, title, agent and meter (boot's until then)."""


class ChatIdle(Protocol):
    """Whether the chat screen may start something new."""

    @property
    def idle(self) -> bool:
        """No turn is running or still draining its closing events, and no prompt waits to be sent."""

    @property
    def retired(self) -> bool:
        """Emptied for good under a fresh chat screen: nothing is shown there any more."""


# -- what tui-agent's app has ----------------------------------------------------------------------------------
class AppEngine(Protocol):
    """The app's engine, awaited (`TuiAgentApp.engine`)."""

    async def engine(self) -> ChatBackend: ...


class TeamChoice(Protocol):
    """Where the app's prompts go (`TuiAgentApp.team`; `tui_agent.ui.team_choice`)."""

    team: str | None
    team_followed: bool


class KeyMap(Protocol):
    """The `[keys]` overrides in force (binding id -> keys)."""

    @property
    def key_overrides(self) -> dict[str, str]: ...
