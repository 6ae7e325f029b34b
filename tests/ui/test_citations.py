"""Citations in a reply (`path:12-30`, as search_docs labels passages) are links: a click opens the passage
viewer at those lines; `o` on a selected reply (or the palette's "Open a cited passage") opens its first citation
and `n` / `p` step through the others.
Only citations of files that exist are links (not "12:30", not "example.com:8080")."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TextArea

from tests.ui.helpers import chat, make_app, pressed, send, showing, wait_until
from tests.ui.test_palette import run_command
from tui_agent.testing.scripted import reply_script
from tui_agent.ui.citations import Citation, in_text
from tui_agent.ui.screens.passage import PassageScreen, read_text
from tui_agent.ui.widgets.markdown_view import MarkdownView

GUIDE = "# Install\n\nRun pip.\n\n# Backups\n\nThe backup job copies\nthe database every night.\n\n# End\n"
REPLY = (
    "The backup runs nightly [notes/guide.md:5-8], see also `jobs.py:2`.\n\n"
    "Not links: 12:30, example.com:8080, gone.md:1-2.\n"
)


def links(view: MarkdownView) -> list[tuple[int, int, str]]:
    """Where each clickable citation is drawn in `view` (x, y) and the action a click runs."""
    found = []
    for y in range(view.size.height):
        x = 0
        for segment in view.render_line(y):
            action = segment.style.meta.get("@click") if segment.style is not None else None
            if action and segment.text.strip():
                found.append((x, y, str(action)))
            x += segment.cell_length
    return found


async def test_a_cited_passage_opens_from_a_click_and_from_the_message_cursor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "guide.md").write_text(GUIDE)
    (tmp_path / "jobs.py").write_text("import os\ndef rotate():\n    pass\n")
    monkeypatch.chdir(tmp_path)
    app, _ = make_app([reply_script([REPLY])])
    async with app.run_test(size=(120, 36)) as pilot:
        await send(pilot, "what do the docs say about backups?")
        [reply] = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: bool(links(reply)), "the citations drawn as links")
        drawn = links(reply)
        actions = {action for _x, _y, action in drawn}
        assert actions == {"app.open_passage('notes/guide.md', 5, 8)", "app.open_passage('jobs.py', 2, 2)"}

        x, y, _ = next(link for link in drawn if "guide.md" in link[2])
        inside = reply.content_region.offset - reply.region.offset  # its padding: lines are drawn inside it
        await pilot.click(reply, offset=(x + inside.x, y + inside.y))
        await wait_until(pilot, lambda: showing(app, PassageScreen), "the viewer opened by the click")
        viewer = app.screen
        assert isinstance(viewer, PassageScreen)
        area = viewer.query_one(TextArea)
        await wait_until(pilot, lambda: area.text == GUIDE, "the file shown")
        assert area.selected_text == "# Backups\n\nThe backup job copies\nthe database every night."
        assert str(viewer.query_one("#passage-dialog").border_title) == "notes/guide.md:5-8"
        await pressed(pilot, "escape", lambda: not showing(app, PassageScreen), "the viewer closed")

        await pressed(pilot, "ctrl+up", lambda: chat(pilot).message_cursor.selected is reply, "the reply selected")
        await pressed(pilot, "o", lambda: showing(app, PassageScreen), "the viewer opened by o")
        viewer = app.screen
        assert isinstance(viewer, PassageScreen) and len(viewer.citations) == 2
        await pressed(pilot, "n", lambda: viewer.citation.path == "jobs.py", "the next citation")
        area = viewer.query_one(TextArea)
        await wait_until(pilot, lambda: area.selected_text == "def rotate():", "the jobs.py line selected")
        assert "(2 of 2)" in str(viewer.query_one("#passage-dialog").border_title)
        await pressed(pilot, "p", lambda: viewer.citation.path == "notes/guide.md", "back to the first")
        await pressed(pilot, "escape", lambda: not showing(app, PassageScreen), "the viewer closed again")
        await run_command(pilot, "Open a cited passage")  # the palette's way, on the newest reply
        await wait_until(pilot, lambda: showing(app, PassageScreen), "the viewer opened from the palette")


def test_citations_of_files_that_cannot_be_shown_say_why(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("one\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "folder.md").mkdir()
    assert in_text("[a.md:1] a.md:1 ~/nowhere.md:3 a.md:0 a.md:5-2 folder.md:1", tmp_path) == [Citation("a.md", 1, 1)]
    assert read_text(tmp_path / "blob.bin")[1] == f"{tmp_path / 'blob.bin'} cannot be shown: it is a binary file"
    assert "cannot be shown: it is a folder" in str(read_text(tmp_path / "folder.md")[1])
    assert "cannot be shown" in str(read_text(tmp_path / "gone.md")[1])
