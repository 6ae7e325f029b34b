"""The file picker's list and filter: git's list where there is a repository (so .gitignore holds, tracked files
first), a walk that skips hidden and heavy folders elsewhere, and a fuzzy filter that puts the best names first."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tui_agent.ui.file_index import FileIndex, best_matches


def listed(root: Path) -> FileIndex:
    index = FileIndex(root).start()
    assert index.done.wait(30)
    return index


def make(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")


def test_a_walk_skips_hidden_and_heavy_folders(tmp_path: Path) -> None:
    make(tmp_path, "src/app.py", ".git/config", ".venv/lib/x.py", "node_modules/a/index.js", "README.md", ".env")
    index = listed(tmp_path)
    assert index.source == "walk"
    assert sorted(index.files) == [".env", "README.md", "src/app.py"]


def test_in_a_repository_gitignore_holds_and_tracked_files_come_first(tmp_path: Path) -> None:
    make(tmp_path, "tracked.py", "new.py", "build.log", "out/x.txt")
    (tmp_path / ".gitignore").write_text("*.log\nout/\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "tracked.py"], check=True)
    index = listed(tmp_path)
    assert index.source == "git"
    assert index.files[0] == "tracked.py" and sorted(index.files[1:]) == [".gitignore", "new.py"]


def test_the_list_stops_at_its_limit(tmp_path: Path) -> None:
    make(tmp_path, *(f"d{i}/f{j}.txt" for i in range(5) for j in range(300)))
    index = FileIndex(tmp_path, limit=700).start()
    assert index.done.wait(30)
    assert len(index.files) == 700


def test_fuzzy_matches_best_names_first() -> None:
    files = ["src/notes_test.py", "docs/notes.md", "notes/old/readme.txt", "n/o/t/e/s.txt", "main.py"]
    best = ["docs/notes.md", "src/notes_test.py", "n/o/t/e/s.txt", "notes/old/readme.txt"]
    assert best_matches("notes", files) == best  # the name starts with it, the shorter path first
    assert best_matches("NTMD", files) == ["docs/notes.md"]  # the letters in order, case ignored
    assert best_matches("", files, count=2) == files[:2]
    assert best_matches("[(*", ["a[b(c*d", "abc"]) == ["a[b(c*d"]  # what regexes treat specially is plain
