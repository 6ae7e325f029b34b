"""Slash commands in the app, on the real stack (the engine over the offline model's HTTP): the `/` menu (built-ins
and the project's commands, filtered as typed; Up/Down, Tab, Enter, Esc), a project command filled in and sent, an
unknown `/word` sent as text with a notice, a built-in run (`/mode plan`), `# note` added to AGENTS.md after a yes and
told to the model at the next request, and `/memory` opening it in `$EDITOR` when the app can suspend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.helpers import chat_ready, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, real_stack
from tests.ui.test_palette import notices
from tui_agent.commands.catalogue import BUILTINS
from tui_agent.ui.screens.memory_note import AddNoteScreen
from tui_agent.ui.slash_builtins import ACTIONS
from tui_agent.ui.widgets.command_menu import CommandMenu

SIZE = (120, 40)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    with real_stack(tmp_path, "Noted.") as running:
        yield running


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder: a git repository with one command of the project's."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    command = root / ".tui-agent" / "commands" / "review.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\ndescription: Review a file\narguments: [file]\n---\nReview $file: $ARGUMENTS.")
    command.chmod(0o644)
    monkeypatch.chdir(root)
    return root


def last_prompt(stack: RealStack) -> str:
    return str(stack.chat_requests()[-1]["messages"][-1]["content"])


async def test_the_menu_runs_commands_and_a_note_reaches_the_memory_file(
    stack: RealStack, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: screen.backend is not None, "the engine")
        menu, box = screen.query_one(CommandMenu), screen.prompt_input

        await pilot.press("slash")
        await wait_until(pilot, lambda: menu.is_open, "the menu open on /")
        assert [command.name for command in menu.matches][:3] == ["new", "clear", "sessions"]
        assert "review" in [command.name for command in menu.matches]
        await pilot.press("r", "e")
        await wait_until(pilot, lambda: menu.matches[0].name == "retry", lambda: str([c.name for c in menu.matches]))
        assert [command.name for command in menu.matches][:3] == ["retry", "rewind", "review"]
        await pilot.press("down", "up", "down", "down", "enter")  # takes an argument: completed, the cursor left for it
        await wait_until(pilot, lambda: box.text == "/review " and not menu.is_open, lambda: box.text)
        await send(pilot, "app.py")
        assert last_prompt(stack) == "Review app.py: app.py."

        await pilot.press("slash", "c", "o", "p")
        await wait_until(pilot, lambda: menu.is_open and menu.matches[0].name == "copy", "the menu on /cop")
        await pilot.click(CommandMenu, offset=(3, 1))  # a click on a command runs it, as Enter does
        await wait_until(pilot, lambda: any("Copied the last reply" in n for n in notices(app)), "copied")
        await wait_until(pilot, lambda: not box.text, "the box emptied")

        await send(pilot, "/nope at all")
        assert last_prompt(stack) == "/nope at all"
        assert any("/nope is not a command" in notice for notice in notices(app))

        await pilot.press("slash", "m", "o", "d")
        await wait_until(pilot, lambda: menu.is_open, "the menu open on /mod")
        await pilot.press("escape")  # closes the menu only: the prompt keeps what was typed
        await wait_until(pilot, lambda: not menu.is_open, "the menu closed")
        assert box.text == "/mod"
        await pilot.press("e", "space", "p", "l", "a", "n", "enter")
        await wait_until(
            pilot, lambda: screen.backend is not None and screen.backend.permissions.mode == "plan", "plan"
        )
        assert screen.status_bar.mode == "plan"

        box.insert("# Answer in French")
        await pilot.press("enter")
        await wait_until(pilot, lambda: showing(app, AddNoteScreen), "the question")
        await pilot.press("y")
        memory = repo / "AGENTS.md"
        await wait_until(pilot, lambda: memory.exists() and "French" in memory.read_text(), "the note written")
        assert memory.read_text() == "- Answer in French\n"
        await wait_until(pilot, lambda: any("Added to" in notice for notice in notices(app)), "the note read again")
        await send(pilot, "Bonjour")
        system = stack.chat_requests()[-1]["messages"][0]
        assert system["role"] == "system" and "- Answer in French" in system["content"]
        assert not box.text  # nothing typed was left behind

        box.insert("# Not this one")
        await pilot.press("enter")
        await wait_until(pilot, lambda: showing(app, AddNoteScreen), "the question again")
        await pilot.press("n")
        await wait_until(pilot, lambda: box.text == "# Not this one", "the note given back")
        assert "Not this one" not in memory.read_text()

        box.load_text("")
        await send(pilot, "/memory-files", wait=False)
        await wait_until(pilot, lambda: any("no memory files" in n or "AGENTS.md" in n for n in notices(app)), "listed")
        await pilot.press("up")  # an earlier command shown: the menu stays shut, Up walks on
        await wait_until(pilot, lambda: box.text == "/memory-files", "the command recalled")
        assert not menu.is_open
        await pilot.press("up")
        await wait_until(pilot, lambda: box.text == "# Not this one", lambda: box.text)
        box.load_text("")

        box.load_text("/memory")  # the menu open: Enter runs the highlighted /memory
        await wait_until(pilot, lambda: menu.is_open and menu.matches[0].name == "memory", "the menu on /memory")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Set $EDITOR" in n for n in notices(app)), "no editor said")
        monkeypatch.setenv("EDITOR", "true")
        await send(pilot, "/memory ", wait=False)  # no terminal of its own here: said, the app goes on
        await wait_until(pilot, lambda: any("Could not open" in n for n in notices(app)), "no suspending said")
        assert memory.read_text() == "- Answer in French\n" and not box.text


def test_every_built_in_command_is_one_of_the_apps_actions() -> None:
    assert set(ACTIONS) == {command.name for command in BUILTINS}
