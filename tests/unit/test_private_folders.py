"""Every folder tui-agent makes is yours alone (0700) whatever the umask, each level of it; one of its own that an
older version made looser is made private; a folder you chose that already exists is left as it is."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_agent import paths
from tui_agent.tools.journal import ImportJournal
from tui_agent.tools.loader import file_source


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o002, 0o000])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def test_each_missing_level_is_made_private(tmp_path: Path, umask: int) -> None:
    made = paths.private_folder(tmp_path / "a" / "b" / "c")
    assert made.is_dir()
    assert [mode(tmp_path / part) for part in ("a", "a/b", "a/b/c")] == [0o700, 0o700, 0o700]
    assert mode(tmp_path) == 0o700  # it existed: untouched (pytest makes it 0700)


def test_a_folder_of_ours_made_looser_is_tightened_one_you_chose_is_not(tmp_path: Path) -> None:
    chosen, ours = tmp_path / "exports-here", tmp_path / "mcp"
    for folder in (chosen, ours):
        folder.mkdir()
        folder.chmod(0o755)
    paths.private_folder(chosen)
    paths.private_folder(ours, ours=True)
    assert (mode(chosen), mode(ours)) == (0o755, 0o700)


def test_the_data_and_config_folders_and_the_import_journal_are_private(isolated_home: Path, umask: int) -> None:
    data = paths.data_dir()
    (data / "plugin-imports").mkdir(mode=0o755)
    (data / "plugin-imports").chmod(0o755)  # as an older version left it
    plugin = isolated_home / "p.py"
    plugin.write_text("")
    journal = ImportJournal(data)
    slot = journal.slot()
    assert slot is not None
    slot.begin(file_source(plugin))
    assert mode(slot.marker) & 0o077 == 0  # names what you import: yours alone
    slot.end()
    slot.close()
    assert {mode(folder) for folder in (isolated_home, data, paths.config_dir(), data / "plugin-imports")} == {0o700}
