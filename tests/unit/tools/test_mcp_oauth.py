"""OAuth for streamable-HTTP MCP servers, against an OAuth-protected server built with the SDK
(tests/fixtures/mcp_servers/oauth_server.py: its own authorisation server) in a real process. The test plays
the browser: it fetches the authorisation address the user is shown and follows the redirect to tui-agent's
loopback listener."""

from __future__ import annotations

import asyncio
import json
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from tests.fixtures.mcp_servers.oauth import HAND_CLIENT, WAIT_LIMIT, address_in, guarded_server, play_browser
from tests.unit.tools.test_mcp import run
from tui_agent import paths
from tui_agent.cli import main
from tui_agent.config import McpOAuthSettings, McpServerSettings, ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.tools.mcp.oauth_callback import free_port
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry

HAND_PORT = free_port()
"""The redirect port of the client the server knows as registered by hand."""


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    """The OAuth-protected server's MCP address (one process for the module: its grants accumulate)."""
    with guarded_server(hand_port=HAND_PORT) as url:
        yield url


def make(url: str, mcp_dir: Path, **entry: object) -> tuple[McpServers, list[str]]:
    """McpServers with the one server `guarded`, and the notices they give (as they come)."""
    servers = McpServers(
        {"guarded": McpServerSettings(url=url, approval="never", **entry)},
        ToolRegistry(ToolsSettings()),
        mcp_dir,
        redact=Redactor().text,
    )
    notices: list[str] = []
    servers.watch(notices.append)
    return servers, notices


async def wait_for_address(notices: list[str]) -> str:
    deadline = time.monotonic() + WAIT_LIMIT
    while (address := address_in(notices)) is None:
        assert time.monotonic() < deadline, f"no sign-in address was shown: {notices}"
        await asyncio.sleep(0.02)
    return address


def token_file(mcp_dir: Path) -> Path:
    (found,) = (mcp_dir / "oauth").glob("guarded-*.json")
    return found


async def test_sign_in_keep_refresh_and_sign_out(guarded: str, tmp_path: Path) -> None:
    mcp_dir = tmp_path / "mcp"
    # Not interactive (-p, serve): the server asks for a sign-in, none starts, the failure says how.
    servers, notices = make(guarded, mcp_dir)
    servers.start()
    await servers.settled()
    (row,) = servers.summary()
    assert row["state"] == "failed" and "needs you to sign in (OAuth)" in row["status"]
    assert "tui-agent mcp login guarded" in row["status"] and not (mcp_dir / "oauth").exists()

    # The app: the user asks for the sign-in; its address is shown (no browser here), the "browser" comes back
    # after longer than the server's start-up may take: that clock stops while a person signs in.
    await servers.close()
    servers, notices = make(guarded, mcp_dir, startup_timeout=2.0)
    servers.allow_sign_ins()
    signing_in = asyncio.create_task(servers.sign_in("guarded"))
    address = await wait_for_address(notices)
    assert "sign in by opening this address in a browser" in notices[-1]
    await asyncio.sleep(2.5)  # the person reads the page (not a timing check: longer than startup_timeout)
    assert servers.summary()[0]["status"].startswith("waiting for you to sign in, in the browser: http")
    assert "You can close this tab" in await play_browser(address)
    await asyncio.wait_for(signing_in, WAIT_LIMIT)
    assert servers.summary()[0]["state"] == "ready"
    assert (await run(servers.registry, "whoami"))[1] == "token 1, by authorization_code"

    kept = token_file(mcp_dir)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    first = json.loads(kept.read_text())
    access = first["tokens"]["access_token"]
    assert first["url"] == guarded and first["revocation_endpoint"].endswith("/revoke") and first["client"]
    log = (mcp_dir / "guarded.log").read_text()
    assert access not in log and first["tokens"]["refresh_token"] not in log
    await servers.close()

    # A later run (not interactive) uses the kept sign-in; one whose access token has expired is refreshed,
    # not sent (and not signed in again).
    first["expires_at"] = time.time() - 5
    kept.write_text(json.dumps(first))
    servers, notices = make(guarded, mcp_dir)
    servers.start()
    await servers.settled()
    assert servers.summary()[0]["state"] == "ready", servers.summary()
    assert (await run(servers.registry, "whoami"))[1] == "token 2, by refresh_token"
    second = json.loads(kept.read_text())
    assert second["tokens"]["access_token"] != access and second["expires_at"] > time.time() + 3000
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert not [notice for notice in notices if "sign in" in notice]

    # Signing out revokes the grant at the server and forgets it here; the server stops and says so.
    said = await servers.sign_out("guarded")
    assert said == "guarded: signed out: the token was revoked at the server and deleted here"
    assert not kept.exists()
    (row,) = servers.summary()
    assert row["state"] == "failed" and row["status"].startswith("failed: signed out; press a on the MCP screen")
    async with httpx2.AsyncClient() as client:
        refused = await client.post(
            guarded,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": f"Bearer {second['tokens']['access_token']}", "Accept": "application/json"},
        )
    assert refused.status_code == 401
    await servers.close()

    # `auth = "oauth"` in a run where nobody could answer yet (the app calls `allow_sign_ins` once its engine
    # is built): the server stops for want of a sign-in, and starts again, signing in, once it is allowed.
    servers, notices = make(guarded, mcp_dir, auth="oauth")
    servers.start()
    await servers.settled()
    assert "needs you to sign in" in servers.summary()[0]["status"]
    servers.allow_sign_ins()
    await play_browser(await wait_for_address(notices))
    await asyncio.wait_for(servers.servers["guarded"].settled(), WAIT_LIMIT)
    assert (await run(servers.registry, "whoami"))[1] == "token 3, by authorization_code"
    await servers.close()


def test_mcp_login_and_logout_on_the_command_line(guarded: str, capsys: pytest.CaptureFixture[str]) -> None:
    paths.config_file().write_text(f'[mcp_servers.cli]\nurl = "{guarded}"\n\n[mcp_servers.local]\ncommand = "x"\n')
    outcome: dict[str, int] = {}
    login = threading.Thread(target=lambda: outcome.update(status=main(["mcp", "login", "cli"])))
    login.start()
    said, deadline = "", time.monotonic() + WAIT_LIMIT
    while (address := address_in([said])) is None:  # printed on stderr (no browser here)
        assert time.monotonic() < deadline and login.is_alive(), f"no sign-in address was printed: {said!r}"
        time.sleep(0.02)
        said += capsys.readouterr().err
    assert "MCP server cli: sign in by opening this address in a browser" in said
    asyncio.run(play_browser(address))
    login.join(WAIT_LIMIT)
    out = capsys.readouterr().out
    assert outcome == {"status": 0} and "Signed in to cli; the token is kept in" in out
    kept = Path(out.split("kept in ")[1].split(" (")[0])
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and json.loads(kept.read_text())["tokens"]["access_token"]

    assert main(["mcp", "login", "cli"]) == 0 and "cli: already signed in" in capsys.readouterr().out
    assert main(["mcp", "logout", "cli"]) == 0
    assert capsys.readouterr().out == "cli: signed out: the token was revoked at the server and deleted here\n"
    assert not kept.exists()
    assert main(["mcp", "logout", "cli"]) == 0 and "was not signed in" in capsys.readouterr().out
    assert main(["mcp", "login", "local"]) == 2 and "stdio server" in capsys.readouterr().err
    assert main(["mcp", "login", "nowhere"]) == 2 and "configured: cli, local" in capsys.readouterr().err


async def test_a_sign_in_refused_in_the_browser_says_so(guarded: str, tmp_path: Path) -> None:
    servers, notices = make(guarded, tmp_path / "mcp", auth="oauth")
    servers.allow_sign_ins()
    servers.start()
    asked = parse_qs(urlsplit(await wait_for_address(notices)).query)
    async with httpx2.AsyncClient() as browser:  # the person declines: the server sends the browser back so
        page = await browser.get(
            asked["redirect_uri"][0], params={"error": "access_denied", "error_description": "You said no", **asked}
        )
    assert page.status_code == 400 and "guarded was not signed in: You said no." in page.text
    await asyncio.wait_for(servers.servers["guarded"].settled(), WAIT_LIMIT)
    assert servers.summary()[0]["status"] == (
        "failed: the OAuth sign-in failed: the authorisation server said: You said no; press a on the MCP screen "
        "(/mcp), or run `tui-agent mcp login guarded` to try again"
    )
    assert "tokens" not in json.loads(token_file(tmp_path / "mcp").read_text())  # only the client registration
    await servers.close()


async def test_a_client_registered_by_hand(guarded: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hand = McpOAuthSettings(client_id=HAND_CLIENT[0], client_secret_env_var="HAND_SECRET", callback_port=HAND_PORT)
    servers, notices = make(guarded, tmp_path / "mcp", auth="oauth", oauth=hand)
    servers.allow_sign_ins()
    servers.start()
    await servers.settled()  # its secret is not set: said, and nothing is asked
    assert servers.summary()[0]["status"].startswith(
        "failed: the OAuth sign-in failed: $HAND_SECRET (oauth.client_secret_env_var) is not set"
    )
    monkeypatch.setenv("HAND_SECRET", HAND_CLIENT[1])
    restarting = asyncio.create_task(servers.restart("guarded"))
    address = await wait_for_address(notices)
    assert f"client_id={HAND_CLIENT[0]}&" in address and f"%3A{HAND_PORT}%2Fcallback" in address
    await play_browser(address)
    await asyncio.wait_for(restarting, WAIT_LIMIT)
    assert (await run(servers.registry, "whoami"))[1].endswith("by authorization_code")
    kept = token_file(tmp_path / "mcp").read_text()
    assert "client" not in json.loads(kept) and HAND_CLIENT[1] not in kept  # the secret stays in the environment
    said = await servers.sign_out("guarded")
    assert said == "guarded: signed out: the token was revoked at the server and deleted here"
    await servers.close()
