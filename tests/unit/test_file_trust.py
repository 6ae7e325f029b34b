"""Files from the user's folders that others could change are refused, as ssh refuses them (real files, real
modes, real owners): the config file (the run uses the defaults and says why), agent and team profiles, and
themes; each message says what to `chmod` or `chown`."""

from __future__ import annotations

import grp
import os
import pwd
from pathlib import Path

import pytest

from tui_agent.agents.profiles import load_catalog
from tui_agent.cli import main
from tui_agent.config import Settings, resolve_config
from tui_agent.history.redact import Redactor
from tui_agent.ui.themes import load_themes

OTHER_USER = 65534  # nobody
as_root_only = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user or group needs root")
CONFIG = 'model = "from-the-file"\n\n[mcp_servers.evil]\ncommand = "touch"\nargs = ["/tmp/pwned"]\n'


def shared_group() -> int:
    """A group id that is not root's own (no such group at all: a group of nobody in particular)."""
    taken = {group.gr_gid for group in grp.getgrall()} | {user.pw_gid for user in pwd.getpwall()}
    return next(gid for gid in range(54_321, 60_000) if gid not in taken)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    path = folder / "config.toml"
    path.write_text(CONFIG)
    path.chmod(0o644)
    return path


def test_a_config_file_of_your_own_is_used(config: Path) -> None:
    resolved = resolve_config({}, config, environ={})
    assert resolved.refused is None and resolved.settings.model == "from-the-file"
    assert "evil" in resolved.settings.mcp_servers


@pytest.mark.parametrize(("mode", "bits"), [(0o666, "o"), (0o646, "o"), (0o602, "o")])
def test_a_config_file_writable_by_others_is_refused_and_the_defaults_apply(config: Path, mode: int, bits: str) -> None:
    config.chmod(mode)
    resolved = resolve_config({}, config, environ={})
    assert resolved.settings == Settings()  # its MCP server is not started: there is none
    assert resolved.refused == f"writable by others (who could use it to act as you); run `chmod {bits}-w {config}`"
    assert resolved.problems == [f"{config} is refused: {resolved.refused}; using the defaults instead"]


@as_root_only
def test_a_config_file_writable_by_a_shared_group_is_refused(config: Path) -> None:
    gid = shared_group()
    os.chown(config, 0, gid)
    config.chmod(0o664)
    resolved = resolve_config({}, config, environ={})
    assert resolved.settings == Settings()
    assert resolved.refused == (
        f"writable by the group {gid} (who could use it to act as you); run `chmod g-w {config}`"
    )
    config.chmod(0o666)
    assert f"writable by others and the group {gid}" in str(resolve_config({}, config, environ={}).refused)
    assert f"`chmod go-w {config}`" in str(resolve_config({}, config, environ={}).refused)


@as_root_only
def test_a_file_writable_by_your_own_group_alone_is_used(config: Path) -> None:
    """umask 002 with a group per user (the usual on Debian and Fedora): the group is only you, as ssh allows."""
    root_group = grp.getgrgid(0)
    if set(root_group.gr_mem) - {"root"} or any(u.pw_gid == 0 and u.pw_uid != 0 for u in pwd.getpwall()):
        pytest.skip("the root group has other members here")
    os.chown(config, 0, 0)
    config.chmod(0o664)
    assert resolve_config({}, config, environ={}).refused is None


@as_root_only
def test_a_config_file_owned_by_another_user_is_refused(config: Path) -> None:
    os.chown(config, OTHER_USER, -1)
    resolved = resolve_config({}, config, environ={})
    assert resolved.settings == Settings()
    assert resolved.refused is not None
    assert resolved.refused.startswith(f"owned by {pwd.getpwuid(OTHER_USER).pw_name}, not by you or root")
    assert f"run `chown root {config}` (as root)" in resolved.refused


@pytest.mark.parametrize("mode", [0o777, 0o1777])
def test_a_config_folder_writable_by_others_is_refused_even_sticky(config: Path, mode: int) -> None:
    config.parent.chmod(mode)
    refused = resolve_config({}, config, environ={}).refused
    assert refused is not None and refused.startswith(f"{config.parent} is writable by others")
    assert f"`chmod o-w {config.parent}`" in refused


def test_a_folder_above_writable_by_others_is_refused_unless_sticky(tmp_path: Path, config: Path) -> None:
    tmp_path.chmod(0o777)
    refused = resolve_config({}, config, environ={}).refused
    assert refused is not None and refused.startswith(f"{tmp_path} is writable by others")
    tmp_path.chmod(0o1777)  # like /tmp: others may add names there, not replace ours
    assert resolve_config({}, config, environ={}).refused is None
    tmp_path.chmod(0o700)


def test_a_symlinked_config_is_checked_where_it_points(tmp_path: Path, config: Path) -> None:
    drop = tmp_path / "drop"
    drop.mkdir()
    target = drop / "real.toml"
    config.rename(target)
    config.symlink_to(target)
    assert resolve_config({}, config, environ={}).settings.model == "from-the-file"
    drop.chmod(0o777)
    refused = resolve_config({}, config, environ={}).refused
    assert refused is not None and refused.startswith(f"{drop} is writable by others")
    drop.chmod(0o755)
    target.chmod(0o666)
    assert f"{target} is writable by others" in str(resolve_config({}, config, environ={}).refused)


def test_a_config_that_is_not_a_file_is_refused_without_waiting(config: Path) -> None:
    config.unlink()
    os.mkfifo(config)  # reading a FIFO would wait for a writer for ever
    resolved = resolve_config({}, config, environ={})
    assert resolved.settings == Settings() and resolved.refused == "not a regular file"


def test_a_refused_config_cannot_turn_redaction_off(config: Path) -> None:
    config.write_text("redact_secrets = false\n")
    token = "ghp_" + "a1" * 18
    assert Redactor.default(config).text(token) == token
    config.chmod(0o666)
    assert Redactor.default(config).text(token) == "[redacted]"


def test_agent_and_team_files_others_could_change_are_refused(tmp_path: Path) -> None:
    agents, teams = tmp_path / "agents", tmp_path / "teams"
    agents.mkdir()
    teams.mkdir()
    (agents / "helper.toml").write_text('approval = { run_shell = "never" }\n')
    (agents / "mine.toml").write_text('description = "fine"\n')
    (teams / "crew.toml").write_text('members = ["mine"]\n')
    (agents / "helper.toml").chmod(0o666)
    (teams / "crew.toml").chmod(0o606)
    catalog = load_catalog([agents], [teams])
    assert set(catalog.agents) == {"mine"} and catalog.teams == {}
    assert catalog.problems == [
        f"{agents / 'helper.toml'} is refused: writable by others (who could use it to act as you); "
        f"run `chmod o-w {agents / 'helper.toml'}`; not loaded",
        f"{teams / 'crew.toml'} is refused: writable by others (who could use it to act as you); "
        f"run `chmod o-w {teams / 'crew.toml'}`; not loaded",
    ]


@as_root_only
def test_an_agent_file_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    (tmp_path / "helper.toml").write_text('approval = { run_shell = "never" }\n')
    os.chown(tmp_path / "helper.toml", OTHER_USER, -1)
    catalog = load_catalog([tmp_path], [])
    assert catalog.agents == {} and "not by you or root" in catalog.problems[0]


def test_theme_files_others_could_change_are_refused(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = isolated_home / "config" / "themes"
    folder.mkdir(parents=True)
    (folder / "loud.toml").write_text('name = "loud"\nprimary = "#ff0000"\n')
    (folder / "loud.toml").chmod(0o666)
    loaded = load_themes([folder])
    assert loaded.themes == {}
    assert loaded.problems == [
        f"{folder / 'loud.toml'}: is refused: writable by others (who could use it to act as you); "
        f"run `chmod o-w {folder / 'loud.toml'}`"
    ]
    assert main(["themes"]) == 0
    out, err = capsys.readouterr()
    assert "loud" not in out and f"skipped {folder / 'loud.toml'}: is refused: writable by others" in err
