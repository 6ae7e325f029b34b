"""The edit tools (plugins/edit.py), called through the runner as the model would, and their refusals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tests.unit.tools.helpers import shipped
from tui_agent.config import ToolsSettings
from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools.edit_preview import preview
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    return shipped()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret\n")
    (root / "escape.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (root / "linked").symlink_to(tmp_path / "outside")
    monkeypatch.chdir(root)
    return root


async def call(registry: ToolRegistry, name: str, **arguments: Any) -> ToolCall:
    runner = ToolRunner(registry)
    runner.preapproved = frozenset({"write_file", "edit_file", "apply_patch"})
    [result] = await runner.run([ToolCall("c", name, arguments=arguments)], lambda state: None)
    return result


async def test_write_then_edit_reports_the_changes(registry: ToolRegistry, workdir: Path) -> None:
    spec = registry.get("edit_file")
    assert spec is not None and spec.effect == "edit" and registry.approval_for("edit_file") == "ask"
    created = await call(registry, "write_file", path="pkg/hello.py", content="print('hi')\n")
    assert created.status == ToolStatus.DONE and "created pkg/hello.py (+1 −0)" in created.outcome
    assert created.file_changes == (FileChange("pkg/hello.py", None, b"print('hi')\n"),)
    umask = os.umask(0o022)
    os.umask(umask)
    assert (workdir / "pkg" / "hello.py").stat().st_mode & 0o777 == 0o666 & ~umask  # not the temp file's 0600
    edited = await call(registry, "edit_file", path="pkg/hello.py", edits=[{"old": "hi", "new": "hello"}])
    assert edited.status == ToolStatus.DONE, edited.outcome
    assert edited.file_changes == (FileChange("pkg/hello.py", b"print('hi')\n", b"print('hello')\n"),)
    assert (workdir / "pkg" / "hello.py").read_text() == "print('hello')\n"
    assert not [name for name in os.listdir(workdir / "pkg") if name.endswith(".tui-agent-tmp")]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside/new.txt", "outside the working directory"),
        ("/etc/passwd", "outside the working directory"),
        ("escape.txt", "outside the working directory"),
        ("linked/new.txt", "outside the working directory"),
        ("src/../../outside/secret.txt", "outside the working directory"),
        (".git/config", "inside a .git folder"),
        ("src/../.git/hooks/pre-commit", "inside a .git folder"),
    ],
)
async def test_no_way_out(registry: ToolRegistry, workdir: Path, tmp_path: Path, path: str, reason: str) -> None:
    for name, arguments in (
        ("write_file", {"content": "pwned\n"}),
        ("edit_file", {"edits": [{"old": "secret", "new": "pwned"}]}),
    ):
        result = await call(registry, name, path=path, **arguments)
        assert result.status == ToolStatus.FAILED and reason in result.outcome, (name, result.outcome)
    assert (tmp_path / "outside" / "secret.txt").read_text() == "secret\n"
    assert not (tmp_path / "outside" / "new.txt").exists() and not (workdir / ".git" / "config").exists()


async def test_a_hard_link_is_refused(registry: ToolRegistry, workdir: Path, tmp_path: Path) -> None:
    os.link(tmp_path / "outside" / "secret.txt", workdir / "key.txt")
    result = await call(registry, "write_file", path="key.txt", content="pwned\n")
    assert result.status == ToolStatus.FAILED and "hard links" in result.outcome
    assert (tmp_path / "outside" / "secret.txt").read_text() == "secret\n"


async def test_what_the_file_was_is_kept(registry: ToolRegistry, workdir: Path) -> None:
    crlf = workdir / "crlf.txt"
    crlf.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    crlf.chmod(0o751)
    assert (await call(registry, "edit_file", path="crlf.txt", edits=[{"old": "two", "new": "2\nmore"}])).outcome
    assert crlf.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\nmore\r\n" and crlf.stat().st_mode & 0o7777 == 0o751
    bare = workdir / "bare.txt"
    bare.write_bytes(b"no newline")
    await call(registry, "write_file", path="bare.txt", content="still none\n")
    assert bare.read_bytes() == b"still none"
    lf = workdir / "lf.txt"
    lf.write_bytes(b"a\nb\n")
    await call(registry, "write_file", path="lf.txt", content="x\r\ny")
    assert lf.read_bytes() == b"x\ny\n"


async def test_refusals_say_why(registry: ToolRegistry, workdir: Path) -> None:
    (workdir / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    (workdir / "blob.bin").write_bytes(b"\0\1\2")
    (workdir / "big.txt").write_bytes(b"x" * (2 * 1024 * 1024 + 1))
    (workdir / "twice.py").write_text("x = 1\ny = 2\nx = 1\n")
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("edit_file", {"path": "latin1.txt", "edits": [{"old": "caf", "new": "c"}]}, "is not UTF-8 text"),
        ("write_file", {"path": "blob.bin", "content": "text"}, "binary"),
        ("write_file", {"path": "big.txt", "content": "small"}, "over the edit tools' cap"),
        ("edit_file", {"path": "missing.py", "edits": [{"old": "a", "new": "b"}]}, "does not exist"),
        ("write_file", {"path": "src", "content": "x"}, "is a directory"),
        (
            "edit_file",
            {"path": "twice.py", "edits": [{"old": "y = 2", "new": "y = 3"}, {"old": "x = 1", "new": "x = 9"}]},
            "edit 2 of 2: `old` matches 2 times in twice.py (lines 1, 3)",
        ),
        (
            "edit_file",
            {"path": "twice.py", "edits": [{"old": "y = 22", "new": "y = 3"}]},
            "the edit: `old` was not found in twice.py; it must match the file exactly (spaces and indentation "
            "too). The nearest lines:\n    1: x = 1\n    2: y = 2\n    3: x = 1",
        ),
    ]
    for name, arguments, reason in cases:
        result = await call(registry, name, **arguments)
        assert result.status == ToolStatus.FAILED and reason in result.outcome, (arguments, result.outcome)
    assert (workdir / "twice.py").read_text() == "x = 1\ny = 2\nx = 1\n"  # a failed edit writes nothing


def test_preview_computes_without_writing(workdir: Path) -> None:
    (workdir / "a.txt").write_text("old\n")
    assert preview("edit_file", {"path": "a.txt", "edits": [{"old": "old", "new": "new"}]}) == (
        FileChange("a.txt", b"old\n", b"new\n"),
    )
    assert preview("write_file", {"path": "b.txt", "content": "b"}) == (FileChange("b.txt", None, b"b"),)
    assert preview("read_file", {"path": "a.txt"}) == ()
    assert (workdir / "a.txt").read_text() == "old\n" and not (workdir / "b.txt").exists()
    with pytest.raises(ValueError, match="outside the working directory"):
        preview("write_file", {"path": "../x", "content": ""})


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tui_agent.tools.edits import plan_write, write_atomically
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    for number in range(1_000_000):
        write_atomically(plan_write("target.txt", str(number % 2) * 1_500_000))
    """
)


def test_a_kill_leaves_the_old_file_or_the_new_one(workdir: Path) -> None:
    target = workdir / "target.txt"
    target.write_text("0" * 1_500_000)
    for _ in range(3):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER], cwd=workdir, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": "."}
        )
        assert writer.stdout is not None and writer.stdout.readline() == b"ready\n"
        deadline = time.monotonic() + 60
        while target.read_bytes()[:1] != b"1" and time.monotonic() < deadline:  # killed in the loop, not before it
            time.sleep(0.001)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        assert target.read_text() in ("0" * 1_500_000, "1" * 1_500_000)


def test_the_size_cap_comes_from_config(workdir: Path) -> None:
    (workdir / "mid.txt").write_text("x" * 5000)
    try:
        ToolRegistry(ToolsSettings(edit_max_bytes=4096))
        with pytest.raises(ValueError, match="over the edit tools' cap of 4096 bytes"):
            preview("write_file", {"path": "mid.txt", "content": "small"})
    finally:
        ToolRegistry()  # back to the default for the other tests
    assert preview("write_file", {"path": "mid.txt", "content": "small"})


PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# New
+text
*** Update File: src/app.py
@@ def main():
 def main():
-    print('hi')
+    print('hello')
*** Delete File: old.txt
*** End Patch
"""


async def test_apply_patch_changes_several_files_or_none(registry: ToolRegistry, workdir: Path) -> None:
    (workdir / "src" / "app.py").write_text("def main():\n    print('hi')\n")
    (workdir / "old.txt").write_text("bye\n")
    broken = PATCH.replace("print('hi')", "print('nope')")
    failed = await call(registry, "apply_patch", patch=broken)
    assert failed.status == ToolStatus.FAILED and "`old` was not found in src/app.py" in failed.outcome
    assert (workdir / "old.txt").exists() and not (workdir / "docs").exists()  # nothing written
    assert len(preview("apply_patch", {"patch": PATCH})) == 3 and (workdir / "old.txt").exists()
    done = await call(registry, "apply_patch", patch=PATCH)
    assert done.status == ToolStatus.DONE, done.outcome
    assert "docs/new.md +2 −0, src/app.py +1 −1, old.txt +0 −1" in done.outcome
    assert (workdir / "docs" / "new.md").read_text() == "# New\ntext\n"
    assert (workdir / "src" / "app.py").read_text() == "def main():\n    print('hello')\n"
    assert not (workdir / "old.txt").exists()
    assert [change.after is None for change in done.file_changes] == [False, False, True]
    for bad, reason in (
        ("*** Add File: x.txt\n+x", "starts with '*** Begin Patch'"),
        ("*** Begin Patch\n*** Add File: ../x.txt\n+x\n*** End Patch", "outside the working directory"),
        ("*** Begin Patch\n*** Delete File: .git/HEAD\n*** End Patch", "inside a .git folder"),
        ("*** Begin Patch\n*** Add File: src/app.py\n+x\n*** End Patch", "already exists"),
    ):
        result = await call(registry, "apply_patch", patch=bad)
        assert result.status == ToolStatus.FAILED and reason in result.outcome, (bad, result.outcome)
