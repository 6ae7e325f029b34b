"""A plain-http endpoint on another machine is flagged (API keys would travel in clear); loopback is not."""

from __future__ import annotations

import pytest

from tui_agent.agent.endpoint import cleartext_warning
from tui_agent.cli import main

FLAGGED = [
    "http://10.0.0.5:8000/v1",
    "http://llm.example.com/v1",
    "HTTP://192.168.1.20/v1",
    "http://[2001:db8::1]:8080/v1",
    "http://user:pw@gpu-box:8000/v1",
    "http://128.0.0.1/v1",
]
QUIET = [
    None,
    "https://api.openai.com/v1",
    "https://10.0.0.5/v1",
    "http://127.0.0.1:8765/v1",
    "http://127.3.2.1/v1",
    "http://localhost:11434/v1",
    "http://LOCALHOST/v1",
    "http://[::1]:8000/v1",
    "http://app.localhost/v1",
]


@pytest.mark.parametrize("url", FLAGGED)
def test_plain_http_to_another_machine_is_flagged(url: str) -> None:
    warning = cleartext_warning(url)
    assert warning is not None and "unencrypted" in warning and "pw" not in warning


@pytest.mark.parametrize("url", QUIET)
def test_https_loopback_and_the_offline_model_are_not(url: str | None) -> None:
    assert cleartext_warning(url) is None


def test_config_show_warns(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gpu-box.lan:8000/v1")
    assert main(["config", "show"]) == 0
    assert "# Warning: The endpoint http://gpu-box.lan:8000 is plain http" in capsys.readouterr().out
    for quiet in (["--base-url", "http://127.0.0.1:8000/v1"], ["--offline"]):
        assert main([*quiet, "config", "show"]) == 0
        assert "Warning" not in capsys.readouterr().out
