"""`-p` and reasoning: left out by default; with `--show-reasoning` on stderr, never on stdout, dimmed only on a tty."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.e2e.pty_terminal import drain
from tests.e2e.test_print import run
from tui_agent.offline.server import BackgroundServer

SCENARIO = {"replies": [{"reasoning": "The user says hi.\x1b[31m Greet back.", "text": "Hello there."}], "strict": True}


def _ask(home: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], list[object]]:
    with BackgroundServer(SCENARIO) as server:
        done = run(["--base-url", server.base_url, "--model", "offline", "-p", "hi", *flags], home)
        bodies: list[object] = [request.body for request in server.requests]
    return done, bodies


def test_reasoning_is_left_out_without_the_flag(isolated_home: Path) -> None:
    done, _ = _ask(isolated_home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello there."
    assert "user says hi" not in done.stderr + done.stdout


def test_show_reasoning_writes_it_to_stderr_sanitised_and_plain_in_a_pipe(isolated_home: Path) -> None:
    done, bodies = _ask(isolated_home, "--show-reasoning")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello there."  # the reply alone: stdout stays pipeable
    assert "The user says hi. Greet back.\n" in done.stderr  # its own escape removed
    assert "\x1b" not in done.stderr  # a pipe: not dimmed
    assert "Greet back" not in str(bodies)  # and the model was not sent it


def test_show_reasoning_is_dimmed_on_a_terminal(isolated_home: Path) -> None:
    with BackgroundServer(SCENARIO) as server:
        leader, follower = pty.openpty()
        env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home)}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tui_agent",
                "--base-url",
                server.base_url,
                "--model",
                "offline",
                "-p",
                "hi",
                "--show-reasoning",
            ],
            stderr=follower,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
        os.close(follower)
        err = drain(leader)
    assert done.returncode == 0
    assert "\x1b[2mThe user says hi. Greet back.\x1b[22m" in err


def test_show_reasoning_needs_print_mode(isolated_home: Path) -> None:
    done = run(["--show-reasoning"], isolated_home)
    assert done.returncode == 2 and "--show-reasoning is for -p runs" in done.stderr


REFUSES = {
    "replies": [{"delta_fields": {"refusal": "I can't\x1b[31m help."}, "reasoning": "Not this."}],
    "strict": True,
}


def test_other_part_kinds_are_left_out_unless_show_part_names_them(isolated_home: Path) -> None:
    with BackgroundServer(REFUSES) as server:
        quiet = run(["--base-url", server.base_url, "--model", "offline", "-p", "pick a lock"], isolated_home)
    with BackgroundServer(REFUSES) as server:
        done = run(
            ["--base-url", server.base_url, "--model", "offline", "-p", "pick a lock", "--show-part", "refusal"],
            isolated_home,
        )
    assert quiet.returncode == done.returncode == 0, done.stderr
    assert "help" not in quiet.stderr + quiet.stdout
    assert "refusal: I can't help.\n" in done.stderr and "Not this" not in done.stderr  # only the kind named
    assert done.stdout.strip() == ""
