"""Fixtures for history tests: a store on a real database file in a temp dir."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tui_agent.history.store import HistoryStore


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "history.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[HistoryStore]:
    opened = await HistoryStore.open(db_path)
    yield opened
    await opened.close()
