"""Rewind: the files the conversation tree carries are brought back to a point of it, shown first (a plan),
with the person's own edits seen as conflicts and kept unless they say otherwise; a restore is recorded and
can be undone; another branch's files come with it. A real agent, the offline model over HTTP, a real SQLite
file and a plugin that really writes files in a real working directory."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.rewind import FileStep, plan_files, plan_undo, restore_files, rewind_point
from tui_agent.agent.services import BuiltAgent
from tui_agent.cli import main
from tui_agent.history.errors import HistoryError
from tui_agent.history.file_states import FileMove, Restored
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.payloads import FileChange
from tui_agent.status import Role
from tui_agent.tools.restore import _read_all, located, on_disk, write_back

PLUGINS = Path(__file__).parent / "file_plugins"


def scribe(path: str, text: str) -> dict[str, Any]:
    return {"name": "scribe", "arguments": {"path": path, "text": text}}


REPLIES: list[dict[str, Any]] = [
    {"tool_calls": [scribe("a.txt", "one\n")]},
    {"text": "Wrote a."},
    {"tool_calls": [scribe("a.txt", "two\n"), scribe("b.txt", "bee\n")]},
    {"text": "Changed a, wrote b."},
    {"tool_calls": [scribe("c.txt", "sea\n")]},  # the edited second prompt's branch
    {"text": "Wrote c."},
]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder the agent's tool writes in (the test runs in it)."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


async def two_turns(make_agent: MakeAgent, url: str, work: Path) -> tuple[BuiltAgent, list[Message]]:
    built = await make_agent(url, plugin_dirs=[PLUGINS])
    await collect(built.agent.send("write a"))
    await collect(built.agent.send("change a, write b"))
    assert (work / "a.txt").read_text() == "two\n" and (work / "b.txt").read_text() == "bee\n"
    return built, await built.agent.load_history(limit=100)


def by_file(steps: list[FileStep]) -> dict[str, str]:
    return {step.shown: step.action for step in steps}


@pytest.mark.parametrize("offline_server", [{"replies": REPLIES}], indirect=True)
async def test_rewind_restores_files_keeps_the_persons_edits_and_can_be_undone(
    make_agent: MakeAgent, offline_server: BackgroundServer, work: Path
) -> None:
    built, messages = await two_turns(make_agent, offline_server.base_url, work)
    agent = built.agent
    prompts = [m for m in messages if m.role is Role.USER]
    first_reply_end = [m for m in messages if m.role is Role.ASSISTANT][1]  # "Wrote a."

    # Rewinding to the second prompt: the files as they were after the first turn; the prompt comes back.
    rewind = await agent.plan_rewind(prompts[1].id)
    assert rewind.edit_prompt == prompts[1].id and rewind.prompt_text == "change a, write b"
    assert by_file(rewind.files.steps) == {"a.txt": "+1 −1", "b.txt": "delete"}
    assert (work / "a.txt").read_text() == "two\n"  # a plan writes nothing
    # A reply rewinds to the end of its turn: the same point, the next prompt's new version starts empty.
    from_reply = await agent.plan_rewind(first_reply_end.id)
    assert from_reply.edit_prompt == prompts[1].id and from_reply.prompt_text == ""
    assert by_file(from_reply.files.steps) == by_file(rewind.files.steps)

    # The person edits a.txt meanwhile: a conflict, kept unless they choose to overwrite it.
    (work / "a.txt").write_text("mine\n")
    plan = (await agent.plan_rewind(prompts[1].id)).files
    assert [step.shown for step in plan.conflicts] == ["a.txt"]
    outcome = await agent.restore_files(plan)
    assert outcome.kept == ["a.txt"] and outcome.restored == ["b.txt"]
    assert (work / "a.txt").read_text() == "mine\n" and not (work / "b.txt").exists()

    # Undo brings b back; overwriting the conflict then, and undoing that, gives the person's edit back.
    undo = await agent.plan_undo_restore()
    assert undo is not None and by_file(undo.steps) == {"b.txt": "create"}
    await agent.restore_files(undo)
    assert (work / "b.txt").read_text() == "bee\n"
    plan = (await agent.plan_rewind(prompts[0].id)).files
    assert by_file(plan.steps) == {"a.txt": "delete", "b.txt": "delete"} and len(plan.conflicts) == 1
    outcome = await agent.restore_files(plan, overwrite={"a.txt"})
    assert sorted(outcome.restored) == ["a.txt", "b.txt"] and not (work / "a.txt").exists()
    undo = await agent.plan_undo_restore()
    assert undo is not None
    await agent.restore_files(undo)
    assert (work / "a.txt").read_text() == "mine\n" and (work / "b.txt").read_text() == "bee\n"


@pytest.mark.parametrize("offline_server", [{"replies": REPLIES}], indirect=True)
async def test_a_branch_carries_its_own_files(
    make_agent: MakeAgent, offline_server: BackgroundServer, work: Path
) -> None:
    built, messages = await two_turns(make_agent, offline_server.base_url, work)
    agent = built.agent
    second = [m for m in messages if m.role is Role.USER][1]
    old_leaf = await agent.active_leaf()

    # Editing the second prompt: its files are brought back first, then the new branch writes its own.
    before = await agent.plan_files_before(second.id)
    await agent.restore_files(before)
    assert (work / "a.txt").read_text() == "one\n" and not (work / "b.txt").exists()
    await collect(agent.edit(second.id, "write c"))
    assert (work / "c.txt").read_text() == "sea\n"
    new_leaf = await agent.active_leaf()

    # Back to the old branch: its files come with it (c goes, a and b come back), and forth again.
    await agent.switch_branch(second.id)
    back = await agent.plan_branch_files(new_leaf)
    assert by_file(back.steps) == {"c.txt": "delete", "a.txt": "+1 −1", "b.txt": "create"}
    assert not back.conflicts
    await agent.restore_files(back)
    assert not (work / "c.txt").exists() and (work / "a.txt").read_text() == "two\n"
    forth = await agent.plan_branch_files(old_leaf)
    assert by_file(forth.steps) == {}  # the old branch is active: its files are on disk already
    assert await agent.active_leaf() == old_leaf


def test_a_recorded_path_never_leads_out_of_its_folder_or_into_git(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / ".git").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, work / "link")
    os.symlink(outside / "x.txt", work / "file-link")  # the file itself a symlink out
    os.symlink("inside.txt", work / "inner-link")
    escapes = ("../x.txt", "link/x.txt", ".git/config", str(outside / "x.txt"), ".", "a/..", "file-link", "a/../../x")
    for path in escapes:
        with pytest.raises(ValueError):
            located(str(work), path)
    folders: dict[str, str] = {}
    assert located(str(work), "inner-link", folders) == work.resolve() / "inside.txt"
    assert located(str(work), "pkg/../pkg/x.py", folders) == work.resolve() / "pkg" / "x.py"
    steps = [FileStep(FileMove(str(work), "link/x.txt", None, b"x"), None, None, "leads outside")]
    assert steps[0].action.startswith("cannot restore")
    os.mkfifo(work / "pipe")
    with pytest.raises(ValueError, match="FIFO"):
        on_disk(located(str(work), "pipe"))  # never opened for a blocking read


def test_a_write_back_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_bytes(b"old")
    target.chmod(0o750)
    write_back(target, b"new\r\n")
    assert target.read_bytes() == b"new\r\n" and (target.stat().st_mode & 0o777) == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["script.sh"]  # no temporary file left
    write_back(target, None)
    assert not target.exists()
    write_back(tmp_path / "new" / "deep.txt", b"x")  # its folder made again
    assert (tmp_path / "new" / "deep.txt").read_bytes() == b"x"
    with pytest.raises(NotADirectoryError):  # a file where its folder should be: refused, nothing made
        write_back(tmp_path / "new" / "deep.txt" / "under.txt", b"y")
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["deep.txt"]
    grown = tmp_path / "grown.txt"
    grown.write_bytes(b"0123456789" * 200_000)
    descriptor = os.open(grown, os.O_RDONLY)
    try:  # a file that grew after its size was read is read whole
        assert _read_all(descriptor, 3) == b"0123456789" * 200_000
    finally:
        os.close(descriptor)


def test_the_rewind_point_of_a_prompt_and_of_a_reply() -> None:
    def message(id_: str, parent: str | None, role: Role) -> Message:
        from datetime import UTC, datetime

        from tui_agent.status import MessageStatus

        now = datetime.now(UTC)
        return Message(id_, "s", 0, role, id_, MessageStatus.COMPLETE, None, None, None, now, now, parent_id=parent)

    tree = [
        message("u1", None, Role.USER),
        message("a1", "u1", Role.ASSISTANT),
        message("a1b", "a1", Role.ASSISTANT),  # the same turn, after a tool call
        message("u2", "a1b", Role.USER),
        message("a2", "u2", Role.ASSISTANT),
    ]
    assert rewind_point(tree, "a2", "u1") == (None, tree[0])
    assert rewind_point(tree, "a2", "a1") == ("a1b", tree[3])
    assert rewind_point(tree, "a2", "a2") == ("a2", None)
    with pytest.raises(LookupError):
        rewind_point(tree, "a1", "u2")  # not on the branch shown


@pytest.mark.parametrize("offline_server", [{"replies": REPLIES}], indirect=True)
async def test_the_rewind_command_does_the_same_for_scripts(
    make_agent: MakeAgent,
    offline_server: BackgroundServer,
    work: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    built, messages = await two_turns(make_agent, offline_server.base_url, work)
    session_id = built.agent.current_session_id
    assert session_id is not None
    await built.close()
    second = [m for m in messages if m.role is Role.USER][1].id[:8]
    monkeypatch.chdir(tmp_path)  # a script may run it from anywhere: the session knows its folder

    def rewind(*words: str) -> tuple[int, str]:
        capsys.readouterr()
        code = main(["--db", str(tmp_path / "history.db"), "rewind", session_id, *words])
        return code, capsys.readouterr().out

    (work / "a.txt").write_text("mine\n")
    code, out = await asyncio.to_thread(rewind, "--to", second, "--dry-run", "--diff")
    assert code == 0 and "a.txt  +1 −1  — changed outside tui-agent" in out and "b.txt  delete" in out
    assert "+one" in out and (work / "b.txt").exists()  # shown, nothing changed
    code, out = await asyncio.to_thread(rewind, "--to", second)
    assert code == 1 and "1 file restored, 1 kept as on disk (work/a.txt)" in out  # the person's edit kept
    assert not (work / "b.txt").exists() and (work / "a.txt").read_text() == "mine\n"
    code, out = await asyncio.to_thread(rewind, "--undo", "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["restored"] == ["work/b.txt"]
    assert (work / "b.txt").read_text() == "bee\n"
    code, _ = await asyncio.to_thread(rewind, "--to", "nope")
    assert code == 1


RESTORER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tui_agent.tools.restore import write_many
    files = [Path(f"f{i}.txt") for i in range(20)]
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    for number in range(1_000_000):
        write_many([(path, str(number % 2).encode() * 200_000) for path in files])
    """
)


def test_a_kill_during_a_restore_leaves_each_file_old_or_new(tmp_path: Path) -> None:
    files = [tmp_path / f"f{i}.txt" for i in range(20)]
    for path in files:
        path.write_bytes(b"0" * 200_000)
    root = Path(__file__).parents[3]
    for _ in range(3):
        writer = subprocess.Popen(
            [sys.executable, "-c", RESTORER],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        assert writer.stdout is not None and writer.stdout.readline() == b"ready\n"
        deadline = time.monotonic() + 60
        while files[-1].read_bytes()[:1] != b"1" and time.monotonic() < deadline:  # killed in the loop
            time.sleep(0.001)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        for path in files:
            assert path.read_bytes() in (b"0" * 200_000, b"1" * 200_000), path


class RecordFailsOnceStaged:
    """The real history store, except that recording a restore fails once the new contents are staged beside
    their files (as a full disk would fail it): the moment a restore must take back what it staged."""

    def __init__(self, store: HistoryStore, work: Path) -> None:
        self.store, self.work = store, work

    async def file_moves(self, session_id: str, start: str | None, end: str | None) -> list[FileMove]:
        return await self.store.file_moves(session_id, start, end)

    async def last_restore(self, session_id: str) -> tuple[str, list[Restored]] | None:
        return await self.store.last_restore(session_id)

    async def record_restore(
        self, session_id: str, restore_id: str, to_message: str | None, files: Sequence[Restored]
    ) -> None:
        for _ in range(1000):
            if any(name.endswith(".tui-agent-tmp") for name in os.listdir(self.work)):
                raise HistoryError("database or disk is full")
            await asyncio.sleep(0.005)
        raise AssertionError("nothing was staged while the record was being made")


async def test_a_restore_whose_record_fails_changes_no_file(work: Path) -> None:
    """The new contents are staged while the record commits: when it cannot be, nothing is put in place and
    no temporary file is left beside the person's."""
    (work / "a.txt").write_bytes(b"after")
    store = await HistoryStore.open(work.parent / "history.db")
    try:
        session = await store.create_session("rewind")
        _, reply = await store.begin_turn(session.id, "change a")
        await store.record_tool_call(reply.id, "call-1", "write_file", "{}", {})
        await store.record_file_changes(reply.id, "call-1", [FileChange("a.txt", b"before", b"after")])
        history = RecordFailsOnceStaged(store, work)
        plan = await plan_files(history, session.id, reply.id, None)
        assert [step.action for step in plan.steps] == ["+1 −1"]
        with pytest.raises(HistoryError):
            await restore_files(history, plan)
        assert sorted(os.listdir(work)) == ["a.txt"] and (work / "a.txt").read_bytes() == b"after"
    finally:
        await store.close()


async def test_a_restore_records_each_content_under_its_own_name(work: Path) -> None:
    """A restore names the contents history holds already by the names they are stored under (not hashed
    again); the person's own edit it overwrites, and a content whose bytes were lost, are named by their bytes."""
    for name, data in (("a.txt", b"a1"), ("b.txt", b"mine"), ("c.txt", b"c1")):
        (work / name).write_bytes(data)
    store = await HistoryStore.open(work.parent / "history.db")
    try:
        session = await store.create_session("rewind")
        _, reply = await store.begin_turn(session.id, "change three files")
        await store.record_tool_call(reply.id, "call-1", "write_file", "{}", {})
        changes = [
            FileChange("a.txt", b"a0", b"a1"),
            FileChange("b.txt", b"b0", b"b1"),
            FileChange("c.txt", b"c0", b"c1"),
        ]
        await store.record_file_changes(reply.id, "call-1", changes)
        with sqlite3.connect(work.parent / "history.db") as conn:  # c.txt's "before" lost
            conn.execute("DELETE FROM file_blobs WHERE hash = ?", (hashlib.sha256(b"c0").hexdigest(),))
        plan = await plan_files(store, session.id, reply.id, None)
        assert [step.shown for step in plan.conflicts] == ["b.txt"]
        outcome = await restore_files(store, plan, overwrite={"b.txt"})
        assert sorted(outcome.restored) == ["a.txt", "b.txt", "c.txt"]
        assert [(work / n).read_bytes() for n in ("a.txt", "b.txt", "c.txt")] == [b"a0", b"b0", b""]
        with sqlite3.connect(work.parent / "history.db") as conn:
            stored = conn.execute("SELECT hash, data FROM file_blobs").fetchall()
        assert stored and all(name == hashlib.sha256(data).hexdigest() for name, data in stored)
        undo = await plan_undo(store, session.id)
        assert undo is not None
        await restore_files(store, undo)
        assert [(work / n).read_bytes() for n in ("a.txt", "b.txt", "c.txt")] == [b"a1", b"mine", b"c1"]
    finally:
        await store.close()
