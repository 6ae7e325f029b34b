"""Shared fixtures: every test runs with TUI_AGENT_HOME in a temp dir, never the user's real files."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.fixtures.offline"]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point config, data and plugin folders at a temp dir and drop endpoint variables."""
    home = tmp_path / "home"
    monkeypatch.setenv("TUI_AGENT_HOME", str(home))
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TUI_AGENT_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return home
