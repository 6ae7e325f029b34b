"""Docs folders (`[retrieval] folders`, `--docs DIR`): searched beside the working directory, cited so the
citation opens from anywhere, listed by `tui-agent index`, never indexed twice when one holds another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui_agent import paths
from tui_agent.boot import settings_from_args
from tui_agent.cli import build_parser, main
from tui_agent.retrieval import scope
from tui_agent.retrieval.index import PassageIndex


def two_folders(tmp_path: Path) -> tuple[Path, Path]:
    project, notes = tmp_path / "project", tmp_path / "notes"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def start():\n    return 'the app starts'\n")
    (notes / "ops").mkdir(parents=True)
    (notes / "ops" / "backups.md").write_text("# Backups\n\nThe backup job copies the database every night.\n")
    return project, notes


def test_docs_flag_adds_to_the_config_folders(tmp_path: Path) -> None:
    paths.config_file().write_text('[retrieval]\nfolders = ["~/notes"]\n')
    args = build_parser(["--docs", "a", "--docs", "b"]).parse_args(["--docs", "a", "--docs", "b"])
    settings, problems = settings_from_args(args)
    assert problems == []
    assert settings.retrieval.folders == [Path("~/notes"), Path("a"), Path("b")]
    assert scope.resolved(["~/x", "rel"], base=tmp_path) == [Path("~/x").expanduser().resolve(), tmp_path / "rel"]


def test_nested_and_repeated_folders_are_indexed_once(tmp_path: Path) -> None:
    project, notes = two_folders(tmp_path)
    assert scope.searched(project / "src", [project, notes, notes / "ops", notes]) == [project, notes]
    index = PassageIndex(tmp_path / "index.db", [project, project / "src", notes / "ops", notes])
    report = index.refresh()
    assert report.added == 2  # each file once, though two folders listed hold it
    hits = index.search("backup start", 10)
    assert sorted(hit.citation for hit in hits) == [f"{notes.resolve()}/ops/backups.md:1-3", "src/app.py:1-2"]
    assert index.counts(notes) == (1, 1) and index.counts() == (2, 2)
    index.close()


def test_the_index_command_lists_the_working_directory_and_the_docs_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, notes = two_folders(tmp_path)
    paths.config_file().write_text(f'[retrieval]\nfolders = ["{notes}", "{tmp_path / "gone"}"]\n')
    monkeypatch.chdir(project)
    assert main(["index", "--json"]) == 0
    captured = capsys.readouterr()
    facts: dict[str, Any] = json.loads(captured.out)
    assert facts["folders"] == [
        {"folder": str(project.resolve()), "files": 1, "passages": 1},
        {"folder": str(notes.resolve()), "files": 1, "passages": 1},
    ]
    assert "gone is not a folder" in captured.err
    assert main(["index"]) == 0
    shown = capsys.readouterr().out
    assert f"  {notes.resolve()}: 1 files, 1 passages" in shown
