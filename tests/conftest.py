"""Shared fixtures: every test runs with TUI_AGENT_HOME in a temp dir, never the user's real files."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["tests.fixtures.offline"]
REPO = Path(__file__).resolve().parents[1]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the machine has cores. Many tests wait much of their time (on a child
    process, a server, a terminal): on CI's two cores two workers kept them ~70% busy."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


@pytest.fixture(autouse=True)
def without_the_repos_agents_md(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repo's own AGENTS.md (notes for agents working on tui-agent) stays out of the system prompts of the
    engines tests build: they run from the repo root, and what they assert is the prompt they set up."""
    from tui_agent.agents import memory  # deferred: pydantic, only once a test runs

    everywhere = memory.project_folders
    monkeypatch.setattr(memory, "project_folders", lambda cwd: [f for f in everywhere(cwd) if f.resolve() != REPO])


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point config, data and plugin folders at a temp dir and drop endpoint variables."""
    home = tmp_path / "home"
    monkeypatch.setenv("TUI_AGENT_HOME", str(home))
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TUI_AGENT_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return home


def _lingering_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if not thread.daemon and thread is not threading.main_thread()]


@pytest.fixture(autouse=True)
def no_lingering_threads() -> Iterator[None]:
    """A test must not leave a non-daemon thread running (an unclosed database keeps the process from exiting)."""
    before = set(_lingering_threads())
    yield
    deadline = time.monotonic() + 10.0  # bounds a hang only: a loaded machine may take seconds to close one
    while (left := [t for t in _lingering_threads() if t not in before]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not left, f"threads left running: {[thread.name for thread in left]}"
