"""Provides `ChatState`: the session a chat is in and what its model is sent next.

It owns the current session (None until a new one's first prompt), its conversation (the active branch as the
model sees it), the team stops stored with it, the branch switched to since the last turn, and the run's
settings a turn is sent with (system prompt, budget, `TurnServices`). The agent's parts (`AgentChoice`,
`RedoTurns`, `ContextUpkeep`, `SessionActions`) share this one object instead of each other's attributes.
"""

from __future__ import annotations

from collections.abc import Mapping

from tui_agent.agent.conversation import Conversation
from tui_agent.agent.meter import estimate_tokens
from tui_agent.agent.turn import SessionTotals, TurnBudget, TurnServices
from tui_agent.agents.memory import with_memory
from tui_agent.errors import UserError
from tui_agent.history import attachment_rows
from tui_agent.history.models import Message, Session
from tui_agent.history.store import HistoryStore
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import Role

TITLE_LENGTH = 60


def title_from_prompt(prompt: str) -> str:
    """A session title from the first prompt: its first non-empty line, shortened on a word boundary."""
    line = next((part.strip() for part in prompt.splitlines() if part.strip()), "New session")
    if len(line) <= TITLE_LENGTH:
        return line
    return line[:TITLE_LENGTH].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


class NotInSessionError(UserError, LookupError):
    """A branch action named a message that is not in the current session (or of the wrong role)."""


class ChatState:
    """The current session, its conversation and the settings its turns are sent with."""

    def __init__(self, store: HistoryStore, services: TurnServices, system_prompt: str | None, budget: TurnBudget):
        self.store, self.services = store, services
        self.system_prompt = system_prompt
        """The system prompt a new session starts with (the agent's, or the config's)."""
        self.budget = budget
        self.session: Session | None = None
        self.conversation = Conversation(system_prompt)
        """What the model is sent next turn."""
        self.team_stops: Mapping[str, TeamStop] = {}
        """The current session's team stops, read when it is opened and after each team run."""
        self.switched: Session | None = None
        """A session whose branch was switched: the model's context is read from the new branch before the next
        prompt (switching back and forth costs no reading of the branch)."""

    @property
    def model(self) -> str:
        """The model the next request asks."""
        return self.services.client.model

    def switch_model(self, name: str) -> None:
        """Ask `name` from the next request on; the conversation (the context) is kept as it is."""
        self.services.client.model = name
        self.conversation.images_refused = False  # the new model may read the images the old one refused
        self.services.model = name  # the model recorded with each new reply

    def start_afresh(self) -> None:
        """No session: the next prompt creates one; what was counted for the old one is forgotten."""
        self.session, self.team_stops = None, {}
        self.conversation = Conversation(self.system_prompt)
        self.services.totals = SessionTotals()
        self.services.meter.reset()

    async def ensure_session(self, prompt: str, endpoint: str, agent: str) -> Session:
        """The current session, created (titled after `prompt`) when there is none yet; a fork's own first prompt
        names it (it was titled after its source until then)."""
        if self.session is not None and self.session.unnamed_fork:
            title = title_from_prompt(prompt)
            await self.store.rename_session(self.session.id, title)
            self.session.title = title
        if self.session is None:
            self.session = await self.store.create_session(
                title=title_from_prompt(prompt),
                model=self.model,
                endpoint=endpoint,
                system_prompt=self.system_prompt,
                agent=agent or None,
            )
        return self.session

    async def message_here(self, message_id: str, role: Role | None = None) -> tuple[Session, Message]:
        """The current session and its message `message_id` (of `role`, when given)."""
        session = self.session
        found = await self.store.siblings(message_id) if session is not None else None
        message = found.messages[found.index] if found is not None else None
        if session is None or message is None or message.session_id != session.id:
            raise NotInSessionError("That message is not in the current session.")
        if role is not None and message.role is not role:
            raise NotInSessionError(f"That message is not a {'prompt' if role is Role.USER else 'reply'}.")
        return session, message

    async def context_after_switch(self) -> None:
        """Before a prompt is added: the model's context follows a branch switched to since the last turn."""
        switched, self.switched = self.switched, None
        if switched is not None and switched is self.session:
            await self.reload_conversation(switched)

    async def reload_conversation(self, session: Session) -> None:
        """What the model sees, from the active branch (a replaced reply drops out)."""
        self.switched = None
        kept = await self.store.load_tail(session.id, await self.store.count_messages(session.id))
        refused = self.conversation.images_refused  # the same model: images stay left out (a retry after a 400)
        self.conversation = await self.conversation_of(kept, session)
        self.conversation.images_refused = refused
        sent = with_memory(self.conversation.request(), self.services.memory)  # the gauge counts the memory files
        self.services.meter.measure(kept, estimate_tokens(sent))

    async def conversation_of(self, stored: list[Message], session: Session) -> Conversation:
        """What the model sees of `stored`, prompts with their files and images (their bytes read back)."""
        data = await self.store.attachment_data(attachment_rows.stored_hashes(stored))
        restored = attachment_rows.restore(stored, data)
        return Conversation.from_history(stored, session.system_prompt, restored, payloads=data)

    async def carry_team_stop(self, session: Session, cut_off: str) -> None:
        """A continued reply (now the active leaf) goes on with `cut_off`: when that reply ended a team run, the
        run's stop line follows it onto its branch (the cut-off one keeps its own)."""
        stop = self.team_stops.get(cut_off)
        if stop is not None:
            await self.store.record_team_stop(session.id, stop.team, stop.reason, stop.rounds)
            self.team_stops = await self.store.team_stops(session.id)
