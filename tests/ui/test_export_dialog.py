""" "Export session" asks where first: a path (default `<data dir>/exports/<title>-<date>.md`) and Markdown or
JSON; the folder is created, the file is private (0600), nothing lands in the current directory unasked."""

from __future__ import annotations

import json
import os
import stat
from datetime import date
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.ui.helpers import SIZE, make_app, showing, under_the_pointer, wait_until
from tests.ui.test_palette import notices, run_command
from tui_agent import paths
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.session_dialogs import ExportScreen


def listing(folder: Path) -> list[str]:
    return sorted(file.name for file in folder.iterdir())


def today() -> str:
    return date.today().isoformat()


async def open_dialog(pilot: Pilot[None], title: str = "Trip to Oslo") -> ExportScreen:
    app = pilot.app
    assert isinstance(app, TuiAgentApp) and isinstance(app.engine_slot.ready, ScriptedBackend)
    session = app.engine_slot.ready.add_session(title)
    await app.engine_slot.ready.open_session(session.id)
    await run_command(pilot, "Export session")
    await wait_until(pilot, lambda: showing(app, ExportScreen), "the export dialog")
    dialog = app.screen
    assert isinstance(dialog, ExportScreen)
    buttons = [dialog.query_one("#json"), dialog.query_one("#export")]
    await wait_until(pilot, lambda: all(under_the_pointer(pilot, b) for b in buttons), "laid out (to click)")
    return dialog


async def test_export_asks_where_and_writes_markdown_to_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    app, _ = make_app(session_title="Trip to Oslo")  # what a real backend says of the open session
    previous = os.umask(0o022)
    try:
        async with app.run_test(size=SIZE) as pilot:
            dialog = await open_dialog(pilot)
            expected = paths.data_dir() / "exports" / f"trip-to-oslo-{today()}.md"
            assert dialog.query_one("#export-path", Input).value == str(expected)
            assert not expected.parent.exists()  # nothing written before the person says so
            await pilot.press("enter")
            await wait_until(pilot, lambda: any("Exported to" in n for n in notices(app)), "export notice")
            await wait_until(pilot, lambda: showing(app, ChatScreen), "the dialog closed")
    finally:
        os.umask(previous)
    assert "Trip to Oslo" in expected.read_text(encoding="utf-8")
    assert stat.S_IMODE(expected.stat().st_mode) == 0o600
    assert listing(work) == []  # not the current directory


async def test_json_can_be_chosen_and_a_typed_path_gets_its_folder(tmp_path: Path) -> None:
    app, _ = make_app(session_title="Trip to Oslo")  # what a real backend says of the open session
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_dialog(pilot)
        await pilot.click("#json")
        field = dialog.query_one("#export-path", Input)
        await wait_until(pilot, lambda: field.value.endswith(f"trip-to-oslo-{today()}.json"), lambda: field.value)
        field.value = str(tmp_path / "new" / "folder" / "oslo.json")
        await pilot.click("#export")
        target = tmp_path / "new" / "folder" / "oslo.json"
        await wait_until(pilot, target.exists, "the JSON export")
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert exported["session"]["title"] == "Trip to Oslo"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


async def test_escape_cancels_and_a_second_default_does_not_overwrite_the_first() -> None:
    app, _ = make_app(session_title="Trip to Oslo")  # what a real backend says of the open session
    async with app.run_test(size=SIZE) as pilot:
        await open_dialog(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: showing(app, ChatScreen), "dialog closed")
        assert not (paths.data_dir() / "exports").exists()
        for _ in range(2):
            await run_command(pilot, "Export session")
            await wait_until(pilot, lambda: showing(app, ExportScreen), "the export dialog")
            await pilot.press("enter")
            await wait_until(pilot, lambda: showing(app, ChatScreen), "dialog closed")
        folder = paths.data_dir() / "exports"
        await wait_until(pilot, lambda: len(list(folder.glob("*.md"))) == 2, "two exports")
    assert listing(folder) == [f"trip-to-oslo-{today()}-2.md", f"trip-to-oslo-{today()}.md"]


async def test_nothing_to_export_says_so_without_a_dialog() -> None:
    app, _ = make_app(session_title="Trip to Oslo")  # what a real backend says of the open session
    async with app.run_test(size=SIZE) as pilot:
        await run_command(pilot, "Export session")
        await wait_until(pilot, lambda: any("Nothing to export" in n for n in notices(app)), "the notice")
        assert isinstance(app.screen, ChatScreen)
