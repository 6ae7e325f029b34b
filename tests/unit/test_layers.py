"""The import contracts in pyproject.toml (`lint-imports`) hold on the package, and each one can fail.

Each failing case copies the package to a temporary directory, adds one import that breaks a layer, and runs
`lint-imports` there with the project's own configuration: the contract that import breaks must report it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"

LAYERS = "Layers: composition root > ui > agent > domain > config > shared vocabularies"
TEXTUAL = "Only the UI imports Textual (and Rich)"
COMMANDER = "The commander imports nothing else of ours"
TESTING = "The product never imports the test doubles"
PORT = "The UI never reaches past the port"
SHORT = {LAYERS: "layers", TEXTUAL: "textual", COMMANDER: "commander", TESTING: "testing", PORT: "port"}


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run `lint-imports` on the `tui_agent` package under `root`, with the project's configuration."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_package_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


BREAKS = [
    # (file the import is added to, the added lines, the contract it breaks)
    ("llm/errors.py", "import textual\n", TEXTUAL),
    ("history/models.py", "def _late() -> None:\n    from rich.text import Text  # noqa\n", TEXTUAL),
    ("paths.py", "import textual.app\n", TEXTUAL),
    (
        "agent/port.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui_agent.ui import app\n",
        LAYERS,
    ),
    ("tools/registry.py", "from tui_agent.agent import events\n", LAYERS),
    ("llm/client.py", "from tui_agent.history import models\n", LAYERS),
    ("history/store.py", "from tui_agent.tools import spec\n", LAYERS),
    ("commander/node.py", "from tui_agent import status\n", COMMANDER),
    ("ui/app.py", "from tui_agent.testing import scripted\n", TESTING),
    ("launch.py", "def _fake() -> None:\n    from tui_agent.testing import scripted  # noqa\n", TESTING),
    (
        "ui/history_view.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui_agent.history import models\n",
        PORT,
    ),
    ("ui/widgets/task_tree.py", "from tui_agent.commander import events as node_events\n", PORT),
    ("unplaced.py", '"""A new top-level module the contract does not place yet."""\n', LAYERS),
]


@pytest.mark.parametrize(("relative", "lines", "contract"), BREAKS, ids=[f"{b[0]}-{SHORT[b[2]]}" for b in BREAKS])
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, relative: str, lines: str, contract: str) -> None:
    shutil.copytree(ROOT / "tui_agent", tmp_path / "tui_agent", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "tui_agent" / relative
    target.write_text((target.read_text() if target.exists() else "") + "\n" + lines)
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    assert f"{contract} BROKEN" in result.stdout, result.stdout
