"""How the app's process ends: a terminal hanging up is noticed at once (no signal, no write needed), and the
process leaves without the interpreter's teardown only when nothing but idle threads is left."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from tui_agent.ending import leave, watch_for_hang_up


def test_a_terminal_hanging_up_is_noticed_without_a_write_or_a_signal() -> None:
    leader, follower = pty.openpty()
    hung_up = threading.Event()
    try:
        watch_for_hang_up(follower, hung_up.set)
        assert not hung_up.wait(0.05)  # a live terminal: nothing
        os.close(leader)  # the terminal's window closes
        assert hung_up.wait(10), "the hang-up was not noticed"
    finally:
        os.close(follower)


def test_no_watch_on_what_is_not_a_terminal() -> None:
    read, write = os.pipe()
    called: list[bool] = []
    try:
        watch_for_hang_up(read, lambda: called.append(True))
        os.close(write)  # a pipe's writer going away is a hang-up to poll(), but this is no terminal
        assert not any(thread.name == "tui-agent-hang-up" and thread.is_alive() for thread in threading.enumerate())
    finally:
        os.close(read)
    assert called == []


def test_leave_waits_for_the_usual_exit_while_another_thread_works() -> None:
    release = threading.Event()
    worker = threading.Thread(target=release.wait, name="writing-something")
    worker.start()
    try:
        assert leave(4, not_waited_for=frozenset({"textual-input"})) == 4  # returned: the interpreter exits as usual
    finally:
        release.set()
        worker.join()


def test_leave_runs_exit_handlers_flushes_and_ends_beside_an_idle_thread(tmp_path: Path) -> None:
    handler_ran = tmp_path / "handler-ran"
    program = f"""
import atexit, threading
from tui_agent.ending import leave
atexit.register(lambda: open({str(handler_ran)!r}, "w").write("yes"))
idle = threading.Thread(target=threading.Event().wait, name="idle-for-ever")  # would keep the process alive
idle.start()
print("buffered", end="")
leave(3, not_waited_for=frozenset({{"idle-for-ever"}}))
print("never")
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (3, "buffered"), done.stderr
    assert handler_ran.read_text() == "yes"
