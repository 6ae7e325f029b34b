"""`-p --mode`: auto-edit runs an edit tool that ask (the default, nobody to answer) denies; commands still need
`--allow`; auto runs commands unasked inside the OS sandbox, and where there is none it is refused unless the
loudly named flag is given. In process, offline model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.cli import main
from tui_agent.sandbox import support

EDITOR = '''
from pathlib import Path

from tui_agent.tools import tool


@tool(effect="edit")
def write_note(text: str) -> str:
    """Write a note to note.txt in the working directory."""
    Path("note.txt").write_text(text)
    return "written"
'''


def test_p_mode_auto_edit_runs_edits_ask_denies_them_and_auto_needs_the_sandbox(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "editor.py").write_text(EDITOR)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def run(*flags: str, prompt: str = 'write_note "hello"') -> tuple[int, str]:
        status = main(["--offline", "--plugins", str(plugins), "-p", prompt, *flags])
        return status, capfd.readouterr().err

    status, said = run()
    assert status == 0 and "[tool] write_note(" in said and " denied: " in said, said
    assert not (work / "note.txt").exists()

    status, said = run("--mode", "auto-edit")
    assert status == 0 and (work / "note.txt").read_text() == "hello", said
    status, said = run("--mode", "auto-edit", prompt='run "touch by-shell"')
    assert status == 0 and " denied: " in said and not (work / "by-shell").exists(), said

    (work / "note.txt").unlink()
    if (problem := support().problem) is not None:  # no OS sandbox here: auto needs the loud flag
        status, said = run("--mode", "auto")
        assert status == 2 and "--dangerously-auto-without-sandbox" in said and problem in said, said
        assert not (work / "note.txt").exists()
        status, said = run("--mode", "auto", "--dangerously-auto-without-sandbox")
        assert status == 0 and (work / "note.txt").read_text() == "hello", said
        return
    status, said = run("--mode", "auto")
    assert status == 0 and (work / "note.txt").read_text() == "hello", said
    status, said = run("--mode", "auto", prompt='run "touch by-shell && touch ../outside"')
    assert status == 0 and (work / "by-shell").exists() and not (tmp_path / "outside").exists(), said
    assert "run_shell was blocked by the OS sandbox; a -p run does not run it again outside it" in said, said
    assert f"blocked by the sandbox: write to {tmp_path}/outside (outside" in said, said  # a relative path, named
    assert "needs approval" not in said and not (tmp_path / "outside").exists(), said  # never run outside
