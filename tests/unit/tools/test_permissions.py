"""Plugin code that others could change is refused, with why and how to fix it (real files, real chmod)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.unit.tools.helpers import only_from
from tui_agent.cli import main
from tui_agent.file_trust import file_problem
from tui_agent.tools.registry import ToolRegistry

PLUGIN = "from tui_agent.tools import tool\n\n@tool\ndef {name}() -> str:\n    '''A tool.'''\n    return 'x'\n"
OTHER_USER = 65534  # nobody
as_root_only = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")


def plugin(folder: Path, name: str, mode: int = 0o644) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(PLUGIN.format(name=f"{name}_tool"))
    path.chmod(mode)
    return path


def messages(registry: ToolRegistry) -> dict[str, str]:
    return {Path(problem.file).name: problem.message for problem in registry.problems}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    return folder


def test_a_plugin_writable_by_others_is_refused_and_the_rest_load(folder: Path) -> None:
    plugin(folder, "fine")
    bad = plugin(folder, "open", 0o666)
    registry = only_from(folder)
    assert registry.names() == ["fine_tool"]
    assert messages(registry)["open.py"] == (
        f"writable by others (who could use it to act as you); run `chmod o-w {bad}`; not loaded"
    )


@pytest.mark.parametrize("mode", [0o777, 0o1777])
def test_a_plugin_folder_writable_by_others_is_refused_even_sticky(folder: Path, mode: int) -> None:
    plugin(folder, "fine")
    folder.chmod(mode)
    registry = only_from(folder)
    assert registry.names() == []
    message = messages(registry)["plugins"]
    assert message.startswith("writable by others") and f"chmod o-w {folder}" in message
    assert message.endswith("no plugin in it is loaded")


def test_a_folder_above_writable_by_others_is_refused_unless_sticky(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    folder = shared / "plugins"
    plugin(folder, "fine")
    shared.chmod(0o777)
    registry = only_from(folder)
    assert registry.names() == [] and f"{shared} is writable by others" in messages(registry)["plugins"]
    shared.chmod(0o1777)  # like /tmp: others may add names there, not replace ours
    assert only_from(folder).names() == ["fine_tool"]


def test_a_symlink_into_a_folder_writable_by_others_is_refused(folder: Path, tmp_path: Path) -> None:
    drop = tmp_path / "drop"
    target = plugin(drop, "linked")
    drop.chmod(0o777)
    (folder / "linked.py").symlink_to(target)
    registry = only_from(folder)
    assert registry.names() == []
    assert f"{drop} is writable by others" in messages(registry)["linked.py"]
    drop.chmod(0o1777)
    assert only_from(folder).names() == ["linked_tool"]


def test_a_package_with_an_init_writable_by_others_is_refused(folder: Path) -> None:
    package = folder / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(PLUGIN.format(name="pkg_tool"))
    (package / "__init__.py").chmod(0o646)
    registry = only_from(folder)
    assert registry.names() == [] and f"{package / '__init__.py'} is writable by others" in messages(registry)["pkg"]
    (package / "__init__.py").chmod(0o644)
    package.chmod(0o777)
    assert "writable by others" in messages(only_from(folder))["pkg"]


@as_root_only
def test_a_plugin_owned_by_another_user_is_refused(folder: Path) -> None:
    bad = plugin(folder, "theirs")
    os.chown(bad, OTHER_USER, -1)
    registry = only_from(folder)
    assert registry.names() == []
    message = messages(registry)["theirs.py"]
    assert message.startswith("owned by ") and "not by you or root" in message and f"chown root {bad}" in message


@as_root_only
def test_a_plugin_folder_owned_by_another_user_is_refused(folder: Path) -> None:
    plugin(folder, "fine")
    os.chown(folder, OTHER_USER, -1)
    registry = only_from(folder)
    assert registry.names() == [] and "not by you or root" in messages(registry)["plugins"]


def test_the_user_plugin_folder_is_checked_and_the_plugins_command_says_why(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user_folder = isolated_home / "config" / "plugins"
    plugin(user_folder, "mine", 0o666)
    assert main(["plugins", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (problem,) = [problem for problem in report["problems"] if problem["file"].endswith("mine.py")]
    assert problem["message"].startswith("writable by others") and "chmod o-w" in problem["message"]
    assert "mine_tool" not in [tool["name"] for tool in report["tools"]]
    assert "run_shell" in [tool["name"] for tool in report["tools"]]  # the shipped plugins are not affected


def test_one_scan_of_many_plugins_judges_each_as_if_alone(folder: Path, tmp_path: Path) -> None:
    """The scan looks at each folder once (`TrustScan`); what it learns of one file never decides another's."""
    drop, safe = tmp_path / "drop", tmp_path / "safe"
    plugin(drop, "dropped"), plugin(drop, "dropped_too"), plugin(safe, "kept")
    drop.chmod(0o777)
    for name in ("a_fine", "c_fine", "e_fine"):
        plugin(folder, name)
    plugin(folder, "b_open", 0o666)
    (folder / "d_linked_bad.py").symlink_to(drop / "dropped.py")
    (folder / "f_linked_good.py").symlink_to(safe / "kept.py")
    (folder / "g_linked_bad.py").symlink_to(drop / "dropped_too.py")
    registry = only_from(folder)
    assert registry.names() == ["a_fine_tool", "c_fine_tool", "e_fine_tool", "kept_tool"]
    found = messages(registry)
    for name in ("b_open.py", "d_linked_bad.py", "g_linked_bad.py"):
        alone = file_problem(folder / name)
        assert alone is not None and found[name] == f"{alone}; not loaded"
    assert f"{drop} is writable by others" in found["g_linked_bad.py"]
