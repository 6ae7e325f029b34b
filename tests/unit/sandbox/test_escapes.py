"""The real Landlock sandbox, escapes tried: a sandboxed command cannot write outside the working directory
and its temp dir, read a key planted in a temp HOME's ~/.ssh or connect to a listener on 127.0.0.1 — not
through a symlink, /proc/self/root, a hard link, `..`, a rename or a child that re-execs itself — and can do
all three when the policy allows it."""

from __future__ import annotations

import shlex
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui_agent.sandbox import Policy, confined, support
from tui_agent.tools.process import ProgramResult, run_program

pytestmark = pytest.mark.skipif(
    support().problem is not None, reason=f"no OS sandbox on this machine: {support().problem}"
)
KEY = "PLANTED-PRIVATE-KEY"
PY = shlex.quote(sys.executable)


@dataclass(frozen=True)
class Place:
    """A temp HOME with a planted key and a dotfile, a working directory, and a folder outside both."""

    home: Path
    work: Path
    outside: Path

    @property
    def key(self) -> Path:
        return self.home / ".ssh" / "id_ed25519"


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    home, work, outside = tmp_path / "home", tmp_path / "work", tmp_path / "outside"
    for folder in (home / ".ssh", work, outside):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(KEY)
    (home / ".bashrc").write_text("original\n")
    (home / "sshlink").symlink_to(home / ".ssh")  # a symlink in HOME must not open the secrets folder
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    return Place(home, work, outside)


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.create_server(("127.0.0.1", 0))
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


async def sandboxed(command: str, policy: Policy | None = None) -> ProgramResult:
    with confined(policy or Policy()):
        return await run_program(command, cwd=Path.cwd(), shell=True)


def connect(port: int) -> str:
    return f"{PY} -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=5)'"


async def test_inside_the_sandbox_writes_stay_in_the_working_directory_and_temp_dir(place: Place) -> None:
    ok = await sandboxed('echo in > inside.txt && mkdir sub && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" > /dev/null')
    assert ok.returncode == 0, ok.output
    assert (place.work / "inside.txt").read_text() == "in\n"
    out, bashrc = place.outside, place.home / ".bashrc"
    (place.outside / "script.py").write_text(
        "import os, sys\n"
        "if len(sys.argv) > 1:\n"
        f"    open({str(out / 'reexec')!r}, 'w').write('x')\n"
        "else:\n"
        "    os.execv(sys.executable, [sys.executable, __file__, 'again'])\n"
    )
    attempts = {
        "a plain write": f"echo x > {out}/plain",
        "a dotfile": f"echo evil >> {bashrc}",
        "a symlink": f"ln -s {out} link && echo x > link/via-symlink",
        "/proc/self/root": f"echo x > /proc/self/root{out}/via-proc",
        "..": "echo x > ../outside/via-dotdot",
        "a hard link": f"ln {bashrc} hard && echo evil >> hard",
        "a rename": f"mv {bashrc} moved",
        "a child that re-execs itself": f"{PY} {out / 'script.py'}",
        "a grandchild": f"sh -c 'sh -c \"echo x > {out}/grandchild\"'",
    }
    for how, command in attempts.items():
        result = await sandboxed(command)
        assert result.returncode != 0, f"{how}: {result.output}"
    assert sorted(path.name for path in place.outside.iterdir()) == ["script.py"]
    assert bashrc.read_text() == "original\n"
    assert not (place.work / "moved").exists()


async def test_the_planted_key_cannot_be_read_by_any_path(place: Place) -> None:
    for command in (
        f"cat {place.key}",
        "cat ~/.ssh/id_ed25519",
        "cat ~/sshlink/id_ed25519",
        f"cat /proc/self/root{place.key}",
        f"ln -s {place.key} key && cat key",
        f"ln {place.key} hard && cat hard",
        f"cp {place.key} copy && cat copy",
        f'{PY} -c \'import os; os.execv("/bin/cat", ["cat", {str(place.key)!r}])\'',
    ):
        result = await sandboxed(command)
        assert KEY not in result.output, command
        assert result.returncode != 0, command
    listing = await sandboxed("ls /; ls ~; ls ~/.ssh")  # folders stay listable: only files are unreadable
    assert listing.returncode == 0 and "id_ed25519" in listing.output, listing.output


async def test_no_tcp_connection_unless_the_network_is_allowed(place: Place, listener: int) -> None:
    blocked = await sandboxed(connect(listener))
    assert blocked.returncode != 0 and "PermissionError" in blocked.output, blocked.output
    allowed = await sandboxed(connect(listener), Policy(network=True))
    assert allowed.returncode == 0, allowed.output
    unsandboxed = await run_program(connect(listener), shell=True)  # the test's own listener works
    assert unsandboxed.returncode == 0, unsandboxed.output


async def test_what_the_policy_allows_a_command_can_do(place: Place) -> None:
    policy = Policy(deny_read=(), writable=(str(place.outside),))
    read = await sandboxed(f"cat {place.key}", policy)
    assert read.returncode == 0 and KEY in read.output
    wrote = await sandboxed(f"echo x > {place.outside}/allowed", policy)
    assert wrote.returncode == 0, wrote.output
    assert (place.outside / "allowed").read_text() == "x\n"


async def test_a_new_file_in_home_becomes_readable_and_outside_the_sandbox_nothing_changes(place: Place) -> None:
    assert (await sandboxed("cat ~/.bashrc")).output == "original\n"
    (place.home / "later.txt").write_text("written after the first command\n")
    assert (await sandboxed("cat ~/later.txt")).output == "written after the first command\n"
    free = await run_program(f"cat {place.key} && echo x > {place.outside}/free", shell=True)
    assert free.returncode == 0 and KEY in free.output  # no policy: the call runs as before


async def test_a_secrets_folder_inside_the_working_directory_stays_shut(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    (place.home / "project").mkdir()
    monkeypatch.chdir(place.home)  # started from $HOME: the working directory holds ~/.ssh
    for command in ("cat .ssh/id_ed25519", "echo x > .ssh/id_ed25519", "rm .ssh/id_ed25519", "mv .ssh gone"):
        result = await sandboxed(command)
        assert result.returncode != 0 and KEY not in result.output, command
    assert place.key.read_text() == KEY
    wrote = await sandboxed("echo x > project/file && echo y >> .bashrc && cat project/file .bashrc")
    assert wrote.returncode == 0 and wrote.output == "x\noriginal\ny\n", wrote.output
