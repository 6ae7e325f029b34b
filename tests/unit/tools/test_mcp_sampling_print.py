"""`-p` and an MCP server's sampling request: denied and said on stderr (nobody to ask), answered by the model
with `--allow-sampling SERVER`. In process, against the real test server (`server.py --capabilities`) and a
scripted offline model over HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.mcp_servers.config import toml_entry
from tui_agent.cli import main
from tui_agent.offline.server import BackgroundServer

SUMMARISE = {"text": "", "tool_calls": [{"name": "summarise", "arguments": {"text": "the notes"}}]}


def test_p_denies_sampling_unless_allow_sampling_names_the_server(
    isolated_home: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(toml_entry("notes", "--capabilities", extra='approval = "never"'))
    scenario = {"replies": [SUMMARISE, {"text": "Done one."}, SUMMARISE, {"text": "Sampled."}, {"text": "Done two."}]}
    with BackgroundServer(scenario) as server:

        def run(*flags: str) -> tuple[int, str, str]:
            status = main(["--base-url", server.base_url, "--model", "m", "-p", "summarise the notes", *flags])
            out, err = capfd.readouterr()
            return status, out, err

        status, out, err = run()
        assert status == 0 and out.strip() == "Done one.", err
        assert "denied (nobody to ask: run with --allow-sampling notes to allow it)" in err
        status, out, err = run("--allow-sampling", "notes", "--allow-sampling", "nothere")
        assert status == 0 and out.strip() == "Done two.", err
        assert "summary: Sampled." in err and "denied" not in err
        assert "--allow-sampling nothere: there is no MCP server called nothere" in err


def test_allow_sampling_is_refused_outside_p(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--allow-sampling", "notes"])
    assert exited.value.code == 2 and "--allow-sampling is for -p runs" in capfd.readouterr().err
