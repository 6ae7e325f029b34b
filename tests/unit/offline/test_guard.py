"""Who may use the offline server: the `Host` a request names (DNS rebinding), and the key off loopback."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.unit.offline.test_cli import SERVE
from tui_agent.offline.guard import Guard, listens_off_loopback
from tui_agent.offline.server import BackgroundServer


def get_models(port: int, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """`GET /v1/models` to 127.0.0.1:`port` with exactly these headers (http.client adds no Host of its own
    when one is given)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/v1/models", headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.fixture
def server() -> Iterator[BackgroundServer]:
    with BackgroundServer() as started:
        yield started


def test_a_request_naming_another_host_is_refused_in_openais_error_shape(server: BackgroundServer) -> None:
    port = server.server.port
    status, body = get_models(port, {"Host": f"attacker.example:{port}"})
    assert status == 403
    assert body["error"]["code"] == "host_not_allowed"
    assert body["error"]["type"] == "invalid_request_error"
    assert "'attacker.example:" in body["error"]["message"] and "DNS rebinding" in body["error"]["message"]
    assert server.requests[-1].outcome == "status 403"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST.", "[::1]:{port}", "127.0.0.1"])
def test_the_servers_own_names_are_served(server: BackgroundServer, host: str) -> None:
    status, body = get_models(server.server.port, {"Host": host.format(port=server.server.port)})
    assert status == 200 and body["data"][0]["id"] == "offline"


def test_a_request_without_host_is_served_since_no_browser_sends_one(server: BackgroundServer) -> None:
    assert get_models(server.server.port, {})[0] == 200


def test_an_openai_client_still_gets_its_answer(server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=server.base_url, api_key="any", max_retries=0)
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content


def test_a_server_with_a_key_wants_it_from_every_client() -> None:
    with BackgroundServer(api_key="s3cret") as keyed:
        port = keyed.server.port
        status, body = get_models(port, {"Host": f"127.0.0.1:{port}"})
        assert (status, body["error"]["code"]) == (401, "invalid_api_key")
        assert get_models(port, {"Authorization": "Bearer wrong"})[0] == 401
        assert get_models(port, {"Authorization": "Bearer s3cret"})[0] == 200
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=keyed.base_url, api_key="nope", max_retries=0).models.list()
        assert openai.OpenAI(base_url=keyed.base_url, api_key="s3cret", max_retries=0).models.list().data


def test_hosts_accepted_when_listening_on_every_interface() -> None:
    guard = Guard("0.0.0.0")
    assert guard.accepts_host("192.168.1.20:8080")  # an address cannot be rebound: only names can
    assert guard.accepts_host("localhost")
    assert not guard.accepts_host("rebind.attacker.example")
    named = Guard("box.lan")
    assert named.accepts_host("BOX.LAN:80") and not named.accepts_host("other.lan")
    assert not Guard("127.0.0.1").accepts_host("10.0.0.1:80")


def test_which_hosts_listen_off_loopback() -> None:
    assert not listens_off_loopback("127.0.0.1")
    assert not listens_off_loopback("localhost")
    assert not listens_off_loopback("::1")
    assert listens_off_loopback("0.0.0.0")
    assert listens_off_loopback("")


def serve(*args: str, key: str | None = None) -> subprocess.Popen[str]:
    env = {name: value for name, value in os.environ.items() if name != "TUI_AGENT_SERVE_KEY"}
    if key is not None:
        env["TUI_AGENT_SERVE_KEY"] = key
    return subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_serve_refuses_to_listen_off_loopback_without_a_key() -> None:
    process = serve("--host", "0.0.0.0", "--port", "0")  # refused before anything is bound
    try:
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()  # one that listens after all is not left behind
    assert process.returncode == 2
    assert out == ""
    assert "TUI_AGENT_SERVE_KEY=SECRET" in err and "--api-key" in err and "not a loopback address" in err


def test_serve_off_loopback_with_a_key_warns_and_wants_the_key() -> None:
    key = secrets.token_hex(16)  # bound on every interface for a moment, with a key nobody else knows
    process = serve("--host", "0.0.0.0", "--port", "0", key=key)
    try:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        port = int(line.rsplit(":", 1)[-1].removesuffix("/v1\n"))
        assert get_models(port, {})[0] == 401  # traffic only ever goes to 127.0.0.1
        assert get_models(port, {"Authorization": f"Bearer {key}"})[0] == 200
        assert get_models(port, {"Authorization": f"Bearer {key}", "Host": "rebind.example"})[0] == 403
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "warning: listening on '0.0.0.0', reachable from other machines" in err
