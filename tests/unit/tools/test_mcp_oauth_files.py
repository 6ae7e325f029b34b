"""The OAuth sign-in's own parts, without a server: the token file (private, whole, tied to its URL; a bad one
is no sign-in) and the loopback listener the browser comes back to (a refusal is passed on; stray requests
are not)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import httpx2
import pytest
from pydantic import ValidationError

from tui_agent.config import McpServerSettings
from tui_agent.tools.mcp.oauth_callback import CallbackListener, free_port
from tui_agent.tools.mcp.oauth_tokens import TokenFile


def test_the_token_file_is_private_whole_and_tied_to_its_url(tmp_path: Path) -> None:
    folder = tmp_path / "oauth"
    kept = TokenFile(folder, "work tracker", "https://tracker.example/mcp")
    assert kept.read() == {} and not kept.exists() and not kept.delete()
    kept.update(tokens={"access_token": "a1"}, client={"client_id": "c"})
    kept.update(tokens={"access_token": "a2"}, expires_at=None)
    assert kept.read() == {
        "url": "https://tracker.example/mcp",
        "tokens": {"access_token": "a2"},
        "client": {"client_id": "c"},
    }
    assert stat.S_IMODE(kept.path.stat().st_mode) == 0o600 and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert kept.path.name.startswith("work_tracker-") and [path.name for path in folder.iterdir()] == [kept.path.name]
    # Another URL under the same name is another file: its token is never sent to the new address.
    moved = TokenFile(folder, "work tracker", "https://evil.example/mcp")
    assert moved.path != kept.path and moved.read() == {}
    os.chmod(kept.path, 0o644)  # loosened by hand: private again when read
    assert kept.exists() and stat.S_IMODE(kept.path.stat().st_mode) == 0o600
    kept.path.write_text("{not json")  # a bad file is no sign-in (the next sign-in replaces it)
    assert kept.read() == {} and not kept.exists()
    kept.update(tokens={"access_token": "a3"})
    assert kept.exists() and kept.delete() and not kept.path.exists()


async def test_the_listener_passes_on_the_redirect_and_turns_away_the_rest() -> None:
    listener = CallbackListener("tracker")
    port = free_port()
    await listener.start(port)
    try:
        async with httpx2.AsyncClient() as browser:
            stray = await browser.get(f"http://127.0.0.1:{port}/favicon.ico")
            refused = await browser.get(
                f"http://127.0.0.1:{port}/callback?error=access_denied&error_description=<b>no</b>&state=s"
            )
        assert stray.status_code == 404
        assert refused.status_code == 400 and "tracker was not signed in: &lt;b&gt;no&lt;/b&gt;." in refused.text
        assert await listener.received() == {
            "error": "access_denied",
            "error_description": "<b>no</b>",
            "state": "s",
        }
    finally:
        await listener.close()


def test_the_oauth_settings() -> None:
    entry = McpServerSettings.model_validate(
        {"url": "https://t.example/mcp", "auth": "oauth", "oauth": {"scopes": ["read"], "callback_port": 8765}}
    )
    assert entry.oauth.scopes == ["read"] and entry.oauth.callback_port == 8765
    with pytest.raises(ValidationError, match="for a url"):
        McpServerSettings(command="tracker-mcp", auth="oauth")
    with pytest.raises(ValidationError):  # a misspelt key is an error, not ignored
        McpServerSettings.model_validate({"url": "https://t.example/mcp", "oauth": {"scope": ["read"]}})
