"""Provides `follow_team` and `choose_team`: where the app's prompts go (a team, or the session's agent) follows
the session's stored choice, as the agent does.

`app.team` is what the chat screen sends the next prompt to; the engine's `team` is the session's choice, stored
with it. The first time a chat screen meets the engine, a team the app was started with (`--team NAME`) becomes
the session's choice; from then on, each chat screen takes the session's (a resumed team session goes on with its
team; one that cannot run any more is said by the engine, and the session goes on with its agent). The status
line shows the team.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tui_agent.errors import user_message
from tui_agent.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from tui_agent.agent.port import AgentsPort
    from tui_agent.ui.hosts import Notices, ScreenStack, TeamChoice, Workers

    class TeamApp(TeamChoice, Notices, Workers, ScreenStack, Protocol):
        """What following the session's team uses of the app (`TuiAgentApp`)."""


RESTORED = "This session runs team {team}: your prompts go to it (Ctrl+P, Run a team: another, or none)."


def follow_team(app: TeamApp, backend: AgentsPort) -> None:
    """A chat screen met the engine: the app's team and the session's agree (the app's, the first time, when it
    was started with one), and the status line shows it."""
    if not app.team_followed and app.team:
        app.team_followed = True
        app.run_worker(choose_team(app, backend, app.team), group="team", exit_on_error=False)
        return
    app.team_followed, before = True, app.team
    app.team = backend.team or None
    if app.team and app.team != before:  # a session opened that runs a team (the same one was said already)
        app.notify(RESTORED.format(team=app.team))
    show_team(app)


async def choose_team(app: TeamApp, backend: AgentsPort, name: str | None) -> bool:
    """Send the next prompts to team `name` (None: the session's agent), stored with the session; a team that
    cannot run is said, and the prompts go where they went. True when the choice was made."""
    try:
        await backend.use_team(name)
    except Exception as error:  # a sentence a person can act on, never a crash
        app.notify(f"The team was not changed: {user_message(error)}", severity="error", markup=False)
        return False
    finally:
        app.team = backend.team or None
        show_team(app)
    return True


def show_team(app: TeamApp) -> None:
    """The chat screens' status lines show the team the prompts go to (none: the agent)."""
    for screen in app.screen_stack:
        for status_bar in screen.query(StatusBar):  # only a chat screen has one
            status_bar.set_team(app.team or "")
