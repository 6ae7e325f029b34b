"""The import journal: markers while plugins import, leftovers of dead runs probed, crashers recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.tools.helpers import FAST_IMPORT
from tui_agent.config import ToolsSettings
from tui_agent.tools.journal import CRASHED, ImportJournal, fingerprint
from tui_agent.tools.loader import file_source
from tui_agent.tools.registry import ToolRegistry

HEALTHY = "from tui_agent.tools import tool\n\n@tool\ndef healthy_tool() -> str:\n    '''Fine.'''\n    return 'x'\n"


def load(folder: Path, journal: ImportJournal, timeout: float = FAST_IMPORT) -> ToolRegistry:
    return ToolRegistry.from_plugins(
        [folder],
        ToolsSettings(import_timeout=timeout),
        include_user_dir=False,
        include_entry_points=False,
        include_shipped=False,
        journal=journal,
    )


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def leave_marker(journal: ImportJournal, pid: int, location: Path) -> Path:
    journal.markers.mkdir(parents=True, exist_ok=True)
    marker = journal.markers / f"{pid}-x.json"
    marker.write_text(json.dumps({"pid": pid, "location": str(location)}))
    return marker


def test_markers_exist_only_while_importing(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "healthy.py").write_text(HEALTHY)
    (folder / "hangs.py").write_text("import time\ntime.sleep(60)\n")
    journal = ImportJournal(tmp_path / "data")
    registry = load(folder, journal, timeout=0.5)
    assert registry.names() == ["healthy_tool"]
    assert list(journal.markers.iterdir()) == []  # the hung import, given up, is not left to be blamed


def test_a_marker_of_a_dead_run_naming_a_healthy_plugin_is_probed_and_cleared(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "healthy.py").write_text(HEALTHY)
    journal = ImportJournal(tmp_path / "data")
    marker = leave_marker(journal, dead_pid(), folder / "healthy.py")
    registry = load(folder, journal)
    assert registry.names() == ["healthy_tool"] and registry.problems == []
    assert not marker.exists() and not journal.crashes.exists()


def test_a_marker_of_a_dead_run_naming_a_crasher_records_it(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "crash.py").write_text("import os\nos._exit(3)\n")
    journal = ImportJournal(tmp_path / "data")
    leave_marker(journal, dead_pid(), folder / "crash.py")
    registry = load(folder, journal)  # were it imported here, this test process would end
    assert [(problem.file, problem.message) for problem in registry.problems] == [(str(folder / "crash.py"), CRASHED)]
    assert list(json.loads(journal.crashes.read_text())) == [str(folder / "crash.py")]


def test_a_marker_of_a_running_process_is_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "crash.py").write_text("import os\nos._exit(3)\n")
    journal = ImportJournal(tmp_path / "data")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        marker = leave_marker(journal, other.pid, folder / "crash.py")
        (folder / "crash.py").write_text(HEALTHY)  # so that loading it here is harmless
        registry = load(folder, journal)
        assert registry.names() == ["healthy_tool"] and marker.exists()  # another tui-agent, importing now
    finally:
        other.kill()
        other.wait()


def test_the_fingerprint_of_a_package_follows_its_modules(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "part.py").write_text("x = 1\n")
    before = fingerprint(file_source(package))
    (package / "part.py").write_text("x = 22\n")
    assert fingerprint(file_source(package)) != before


def test_an_entry_point_that_ended_a_run_is_skipped_until_its_package_version_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ep_crash.py").write_text("import os\nos._exit(3)\n")
    dist = tmp_path / "ep_crash_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-crash-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tui_agent.plugins]\ncrash = ep_crash\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    journal = ImportJournal(tmp_path / "data")
    journal.markers.mkdir(parents=True)
    pid = dead_pid()
    (journal.markers / f"{pid}-x.json").write_text(json.dumps({"pid": pid, "location": "ep-crash-pkg: ep_crash"}))

    def load_entry_points() -> ToolRegistry:
        return ToolRegistry.from_plugins(
            (),
            ToolsSettings(import_timeout=FAST_IMPORT),
            include_user_dir=False,
            include_shipped=False,
            journal=journal,
        )

    assert [(p.file, p.message) for p in load_entry_points().problems] == [("ep-crash-pkg: ep_crash", CRASHED)]
    assert json.loads(journal.crashes.read_text()) == {"ep-crash-pkg: ep_crash": "version 1.0"}
    (tmp_path / "ep_crash.py").write_text(HEALTHY)
    assert load_entry_points().problems != []  # same version: still skipped
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-crash-pkg\nVersion: 1.1\n")
    assert load_entry_points().names() == ["healthy_tool"]


def test_while_a_plugin_imports_its_thread_marker_names_it_and_empty_markers_of_dead_runs_go(tmp_path: Path) -> None:
    """Each importing thread keeps one marker, naming the plugin it imports now (`JournalSlot`); a dead run's
    marker left empty (its thread was between imports) is removed without probing anything."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    journal = ImportJournal(tmp_path / "data")
    seen = tmp_path / "seen.json"
    spy = (
        "import json, pathlib\n"
        f"markers = pathlib.Path({str(journal.markers)!r})\n"
        "notes = []\n"
        "for marker in markers.glob('*.json'):  # other threads' markers change meanwhile: read each once\n"
        "    try:\n"
        "        notes.append(json.loads(marker.read_text()))\n"
        "    except (OSError, ValueError):  # gone, or empty / being rewritten between two imports\n"
        "        pass\n"
        f"pathlib.Path({str(seen)!r}).write_text(json.dumps(notes))\n"
    )
    (folder / "spy.py").write_text(spy + HEALTHY)
    for number in range(5):
        (folder / f"more_{number}.py").write_text(HEALTHY.replace("healthy_tool", f"more_{number}"))
    journal.markers.mkdir(parents=True)
    empty = journal.markers / f"{dead_pid()}-3.json"
    empty.write_text("")
    registry = load(folder, journal)
    assert "healthy_tool" in registry.names() and registry.problems == []
    notes = json.loads(seen.read_text())
    assert {"pid": os.getpid(), "location": str(folder / "spy.py")} in notes
    assert all(note["pid"] == os.getpid() for note in notes)
    assert list(journal.markers.iterdir()) == []  # the empty leftover too, and every thread's own
