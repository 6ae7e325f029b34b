"""The passage index on real files and a real SQLite file: ranking, citations, incremental updates, bad input."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui_agent.cli import main
from tui_agent.offline.intents import match_tools
from tui_agent.retrieval.index import MAX_FILE_BYTES, PassageIndex
from tui_agent.retrieval.passages import split

GUIDE = """# Install

Run pip install to get it.

# Backups

The backup job copies the database every night.
Restore from a backup with the restore command.

# Colours

Themes change the colours of the app.
"""

CODE = """import os


def rotate_logs(folder):
    return os.listdir(folder)


class Scheduler:
    pass
"""


def _shipped_docs_plugin() -> Any:
    """The shipped plugin, loaded from its file as the tool loader does (plugins/ is not a package)."""
    spec = importlib.util.spec_from_file_location("shipped_docs", Path(__file__).parents[3] / "plugins" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _corpus(root: Path) -> None:
    (root / "notes").mkdir()
    (root / "notes" / "guide.md").write_text(GUIDE)
    (root / "jobs.py").write_text(CODE)


def test_ranking_and_citations_point_at_the_right_lines(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    _corpus(root)
    index = PassageIndex(tmp_path / "index.db", [root])
    report = index.refresh()
    assert report.added == 2
    hits = index.search("how do I restore a backup")
    assert hits[0].citation == "notes/guide.md:5-8"
    assert "backup job" in hits[0].text
    code_hits = index.search("rotate logs")
    assert code_hits[0].citation == "jobs.py:4-5"
    assert index.search("   ") == []
    index.close()


def test_split_keeps_headings_and_definitions_apart() -> None:
    parts = split(GUIDE, markdown=True)
    assert [(p.first, p.last) for p in parts] == [(1, 3), (5, 8), (10, 12)]


def test_incremental_refresh_sees_changed_deleted_and_new_files(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    _corpus(root)
    index = PassageIndex(tmp_path / "index.db", [root])
    index.refresh()
    assert index.refresh().unchanged == 2
    (root / "jobs.py").write_text("def purge_cache():\n    pass\n")
    os.utime(root / "jobs.py", ns=(1, 1))
    (root / "notes" / "guide.md").unlink()
    (root / "new.md").write_text("# Telescope\n\nLenses and mirrors.\n")
    report = index.refresh()
    assert (report.added, report.changed, report.removed) == (1, 1, 1)
    assert index.search("backup") == []
    assert index.search("rotate") == []
    assert index.search("purge cache")[0].citation == "jobs.py:1-2"
    assert index.search("mirrors")[0].citation == "new.md:1-3"
    index.close()


def test_bad_inputs_are_counted_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "image.bin").write_bytes(b"\x89PNG\0\0\0binary")
    (root / "huge.log").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    (root / "latin.txt").write_bytes("café crème brûlée".encode("latin-1"))
    secret = root / "secret.md"
    secret.write_text("hidden words")
    secret.chmod(0)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main")
    index = PassageIndex(tmp_path / "index.db", [root])
    try:
        report = index.refresh()
    finally:
        secret.chmod(0o600)
    assert report.skipped_binary == 1
    assert report.skipped_huge == 1
    if os.geteuid() != 0:  # root reads anything
        assert len(report.unreadable) == 1
        assert "secret.md" in report.unreadable[0]
    assert index.search("caf")[0].path == "latin.txt"
    assert index.search("refs heads") == []
    index.close()


def test_two_processes_refreshing_at_once_leave_a_sound_index(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for number in range(300):
        (root / f"note{number}.md").write_text(f"# Note {number}\n\nword{number} shared topic\n")
    db = tmp_path / "index.db"
    script = (
        "import sys; from pathlib import Path; from tui_agent.retrieval.index import PassageIndex;"
        "i = PassageIndex(Path(sys.argv[1]), [Path(sys.argv[2])]); i.refresh(); i.close()"
    )
    runs = [subprocess.Popen([sys.executable, "-c", script, str(db), str(root)]) for _ in range(2)]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    index = PassageIndex(db, [root])
    assert index.refresh().unchanged == 300
    assert len(index.search("word7")) == 1
    assert len(index.search("shared topic", k=1000)) == 300
    index.close()


def test_search_docs_tool_cites_passages_of_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _corpus(tmp_path)
    (tmp_path / "image.bin").write_bytes(b"\0\0binary")
    monkeypatch.chdir(tmp_path)
    search_docs = _shipped_docs_plugin().search_docs
    result = search_docs("restore a backup", k=2)
    assert result.startswith("[notes/guide.md:5-8]\n# Backups")
    assert "(1 binary files skipped)" in result
    assert search_docs("zebra").startswith("No passage matches.")


def test_offline_phrase_asks_search_docs() -> None:
    schema = {
        "type": "function",
        "function": {
            "name": "search_docs",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "k": {"type": "integer"}},
                "required": ["query"],
            },
        },
    }
    calls = match_tools("What do the docs say about backups?", [schema])
    assert [(call.name, call.arguments) for call in calls] == [("search_docs", {"query": "backups"})]
    assert match_tools("what is the weather about", [schema]) == []


def test_one_index_file_answers_each_project_from_its_own_files(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder, text in ((ours, "The backup runs nightly."), (theirs, "The backup password is hunter2.")):
        folder.mkdir()
        (folder / "notes.md").write_text(f"# Backups\n\n{text}\n")
    db = tmp_path / "index.db"
    PassageIndex(db, [theirs]).refresh()
    index = PassageIndex(db, [ours])
    index.refresh()
    assert [hit.citation for hit in index.search("backup password")] == ["notes.md:1-3"]
    assert "hunter2" not in index.search("backup password")[0].text  # the other project's file is not an answer
    index.close()


def test_gitignore_files_leave_out_what_git_would(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (repo / "docs" / "private").mkdir(parents=True)
    (repo / "docs" / ".gitignore").write_text("private/\ndraft.md\n")
    (repo / "build").mkdir()
    files = {
        "docs/guide.md": "kept",
        "docs/draft.md": "ignored by docs/.gitignore",
        "docs/private/secret.md": "ignored folder",
        "docs/run.log": "ignored by the root",
        "docs/keep.log": "negated: kept",
        "build/out.md": "ignored folder",
    }
    for name, text in files.items():
        (repo / name).write_text(f"# Topic\n\nzebra {text}\n")

    def indexed(folder: Path) -> set[str]:
        index = PassageIndex(tmp_path / f"{folder.name}.db", [folder])
        index.refresh()
        found = {hit.path for hit in index.search("zebra", 20)}
        index.close()
        return found

    assert indexed(repo) == {"docs/guide.md", "docs/keep.log"}
    assert indexed(repo / "docs") == {"guide.md", "keep.log"}  # the repository's root .gitignore still counts


def test_the_index_command_builds_shows_and_rebuilds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    _corpus(root)

    def index(*options: str) -> dict[str, Any]:
        assert main(["index", str(root), "--json", *options]) == 0
        facts: dict[str, Any] = json.loads(capsys.readouterr().out)
        return facts

    built = index()
    assert (built["files"], built["refresh"]["added"]) == (2, 2) and built["passages"] >= 4
    assert index("--status")["refresh"] is None and index("--status")["files"] == 2
    rebuilt = index("--rebuild")
    assert (rebuilt["rebuilt"], rebuilt["refresh"]["added"], rebuilt["files"]) == (2, 2, 2)
    assert main(["index", str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err
