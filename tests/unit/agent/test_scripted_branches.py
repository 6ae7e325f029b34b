"""The scripted double plays the branch actions of the port as the agent does (UI tests drive the same screens
with it): an edit's turn says what it branches from, a regeneration starts by naming the old reply, and its
in-memory sessions page along the active branch."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.unit.agent.conftest import collect
from tui_agent.agent.events import ReplyReplaced, TurnStarted
from tui_agent.agent.port import SessionLibrary
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role
from tui_agent.testing.memory_sessions import MemorySessions
from tui_agent.testing.scripted import ScriptedBackend


def _message(id_: str, role: Role, parent: str | None) -> Message:
    now = datetime.now(UTC)
    return Message(id_, "", 0, role, id_, MessageStatus.COMPLETE, None, None, None, now, now, parent_id=parent)


async def test_edit_and_regenerate_are_played_with_what_they_branch_from() -> None:
    backend = ScriptedBackend()
    edited = await collect(backend.edit("user-1", "better question"))
    assert isinstance(edited[0], TurnStarted) and edited[0].branches_from == "user-1"
    assert backend.edits == [("user-1", "better question")]
    regenerated = await collect(backend.regenerate("reply-1", model="scripted-large"))
    assert regenerated[0] == ReplyReplaced("reply-1")
    assert backend.redos == ["regenerate reply-1 with scripted-large"]


async def test_memory_sessions_switch_branch_and_page_along_it() -> None:
    backend = ScriptedBackend()
    tree = [
        _message("q", Role.USER, None),
        _message("a", Role.ASSISTANT, "q"),
        _message("q2", Role.USER, None),
        _message("a2", Role.ASSISTANT, "q2"),
    ]
    session = backend.add_session("branches", tree)
    await backend.open_session(session.id)
    assert [m.id for m in await backend.load_history()] == ["q2", "a2"]  # the newest branch by default
    assert (await backend.siblings("q2")).index == 1
    assert await backend.switch_branch("q") == "a"
    assert [m.id for m in await backend.load_history()] == ["q", "a"]


async def test_memory_sessions_stand_alone_for_the_library() -> None:
    library: SessionLibrary = MemorySessions()  # a double of one concern: mypy checks it is a whole one
    assert isinstance(library, MemorySessions)
    session = library.add_session("kept", [_message("q", Role.USER, None)])
    assert [s.title for s in await library.list_sessions()] == ["kept"]
    assert (await library.open_session(session.id[:8])).id == session.id
    assert library.current_session_id == session.id
