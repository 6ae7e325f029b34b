"""Provides `http_auth` and `sign_out`: OAuth for streamable-HTTP MCP servers, on the SDK's client support
(`mcp.client.auth.OAuthClientProvider`: discovery, dynamic client registration, PKCE, refresh).

    401 + WWW-Authenticate ──> metadata, registration ──> redirect: the address shown (and opened)
        ──> the browser comes back to 127.0.0.1:PORT/callback (oauth_callback.py) ──> code ──> tokens
        ──> kept in the server's 0600 file (oauth_tokens.py); refreshed when they expire, here or next run

Imported with the SDK (by `session.py`, in a thread), and by `tui-agent mcp logout`. When no sign-in is kept
and none may start (oauth_desk.py), the server is not handed to the SDK's flow at all — that would register a
client with the authorisation server for nothing — but watched: a 401 asking for a bearer token marks the
server as needing a sign-in.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import AsyncGenerator
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl, ValidationError

from tui_agent.config import McpServerSettings
from tui_agent.tools.mcp.oauth_callback import CALLBACK_PATH, CallbackListener, free_port
from tui_agent.tools.mcp.oauth_desk import SignIn, login_hint
from tui_agent.tools.mcp.oauth_tokens import TokenFile

REFRESH_MARGIN = 60.0
"""Seconds before its stated expiry a kept access token is refreshed rather than sent (clocks differ)."""
REVOKE_TIMEOUT = 10.0
_Kept = TypeVar("_Kept", OAuthToken, OAuthClientInformationFull)


class SignInNeeded(OAuthFlowError):
    """The server asks for a sign-in that may not start here (the message says how to sign in)."""


def http_auth(sign_in: SignIn) -> httpx2.Auth:
    """The authentication of one connection: the SDK's OAuth flow when a sign-in is kept or may start,
    otherwise a watch for the server asking for one."""
    if not sign_in.tokens.exists() and not sign_in.may_start:
        return _Watch(sign_in)
    kept = sign_in.tokens.read()
    port = sign_in.settings.oauth.callback_port or _port_of(kept.get("client")) or free_port()
    redirect = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
    if _port_of(kept.get("client")) not in (None, port):  # registered for another address: register again
        sign_in.tokens.update(client=None)
    try:
        configured = configured_client(sign_in.settings)
    except OAuthFlowError as error:
        raise _failed(sign_in, str(error)) from None
    storage = _Storage(sign_in.tokens, {**configured, "redirect_uris": [redirect]} if configured else None)
    listener = CallbackListener(sign_in.server)

    async def redirect_to(url: str) -> None:
        if not sign_in.may_start:
            sign_in.needed = True
            raise SignInNeeded(f"needs you to sign in again (OAuth): {login_hint(sign_in.server)}")
        sign_in.pause(True)
        try:
            await listener.start(port)
        except OSError as error:
            sign_in.pause(False)
            raise _failed(
                sign_in, f"cannot listen on 127.0.0.1:{port} for the browser's return ({error.strerror or error})"
            ) from error
        sign_in.address = url
        sign_in.show(url)

    async def come_back() -> AuthorizationCodeResult:
        try:
            async with asyncio.timeout(sign_in.timeout):
                query = await listener.received()
        except TimeoutError:
            raise _failed(sign_in, f"it was not finished within {sign_in.timeout / 60:g} minutes") from None
        finally:
            await listener.close()
            sign_in.pause(False)
            sign_in.address = None
        if "error" in query:
            raise _failed(sign_in, f"the authorisation server said: {query.get('error_description') or query['error']}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    scopes = " ".join(sign_in.settings.oauth.scopes) or None
    metadata = OAuthClientMetadata(
        client_name="tui-agent",
        redirect_uris=[AnyUrl(redirect)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=scopes,
    )
    assert sign_in.settings.url is not None
    provider = OAuthClientProvider(sign_in.settings.url, metadata, storage, redirect_to, come_back)
    storage.provider = provider
    # The SDK keeps a token's expiry in memory only (from `expires_in` when it was issued): a token kept from an
    # earlier run would be sent as if fresh and refused, and the refusal starts a whole new sign-in. The file
    # keeps the time, so an expired token is refreshed instead (`_initialize` leaves this field alone).
    expires_at = kept.get("expires_at")
    if isinstance(expires_at, int | float):
        provider.context.token_expiry_time = expires_at - REFRESH_MARGIN
    return provider


def _failed(sign_in: SignIn, why: str) -> OAuthFlowError:
    """The error ending a sign-in that failed; `why` is also what the server's state will say."""
    sign_in.failure = why
    return OAuthFlowError(why)


class _Watch(httpx2.Auth):
    """Sends requests as they are; notes a 401 that asks for a bearer token (the server wants a sign-in)."""

    def __init__(self, sign_in: SignIn) -> None:
        self.sign_in = sign_in

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        response = yield request
        challenge = response.headers.get("www-authenticate", "")
        if response.status_code == 401 and challenge.lower().startswith("bearer"):
            self.sign_in.needed = True


def configured_client(settings: McpServerSettings) -> dict[str, Any] | None:
    """The client registered by hand that the entry names (`[mcp_servers.NAME.oauth] client_id`), with its
    secret from the environment; None when the entry names none (the client registers itself)."""
    client_id, variable = settings.oauth.client_id, settings.oauth.client_secret_env_var
    if client_id is None:
        return None
    secret = os.environ.get(variable) if variable else None
    if variable and not secret:
        raise OAuthFlowError(f"${variable} (oauth.client_secret_env_var) is not set")
    return {
        "client_id": client_id,
        "client_secret": secret,
        "token_endpoint_auth_method": "client_secret_post" if secret else "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }


class _Storage:
    """The SDK's `TokenStorage` on the server's token file (with the expiry and revocation endpoint beside). A
    client registered by hand comes from the config (its secret from the environment), never from the file."""

    def __init__(self, tokens: TokenFile, configured: dict[str, Any] | None = None) -> None:
        self.tokens = tokens
        self.configured = configured
        self.provider: OAuthClientProvider | None = None
        """Whose discovered metadata names the revocation endpoint (set once the provider is built)."""

    async def get_tokens(self) -> OAuthToken | None:
        return _model(OAuthToken, self.tokens.read().get("tokens"))

    async def set_tokens(self, tokens: OAuthToken) -> None:
        found = self.provider.context.oauth_metadata if self.provider is not None else None
        revocation = str(found.revocation_endpoint) if found is not None and found.revocation_endpoint else None
        self.tokens.update(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expires_at=time.time() + tokens.expires_in if tokens.expires_in is not None else None,
            **({"revocation_endpoint": revocation} if revocation else {}),
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return _model(OAuthClientInformationFull, self.configured or self.tokens.read().get("client"))

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.configured is None:  # a registration made by the flow; one from the config stays there
            self.tokens.update(client=client_info.model_dump(mode="json", exclude_none=True))


def _model(kind: type[_Kept], data: Any) -> _Kept | None:
    if not isinstance(data, dict):
        return None
    try:
        return kind.model_validate(data)
    except ValidationError:  # edited by hand, or from another version: as if not signed in
        return None


def _port_of(client: Any) -> int | None:
    """The loopback port the kept client registration was made for."""
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    if not uris or not isinstance(uris[0], str):
        return None
    parts = urlsplit(uris[0])
    return parts.port if parts.hostname == "127.0.0.1" else None


async def sign_out(tokens: TokenFile, settings: McpServerSettings) -> str:
    """Revoke the kept sign-in at the authorisation server (when it offers revocation) and forget it here;
    a sentence saying what was done."""
    kept = tokens.read()
    if not kept.get("tokens"):
        tokens.delete()
        return "was not signed in"
    try:
        configured = configured_client(settings)
    except OAuthFlowError:  # its secret is not set now: revoked as far as the client id alone allows
        configured = {"client_id": settings.oauth.client_id}
    endpoint, client = kept.get("revocation_endpoint"), configured or kept.get("client") or {}
    revoked = ""
    if isinstance(endpoint, str) and isinstance(client, dict) and client.get("client_id"):
        try:
            async with httpx2.AsyncClient(timeout=REVOKE_TIMEOUT) as http:
                for kind in ("refresh_token", "access_token"):
                    value = kept["tokens"].get(kind)
                    if value:
                        await _revoke(http, endpoint, client, value, kind)
            revoked = "revoked at the server and "
        except (httpx2.HTTPError, OAuthFlowError) as error:
            revoked = f"not revoked at the server ({error}; it stays valid there until it expires) but "
    elif endpoint is None:
        revoked = "not revoked (the server offers no revocation; it stays valid there until it expires) but "
    tokens.delete()
    return f"signed out: the token was {revoked}deleted here"


async def _revoke(http: httpx2.AsyncClient, endpoint: str, client: dict[str, Any], token: str, kind: str) -> None:
    data = {"token": token, "token_type_hint": kind, "client_id": str(client["client_id"])}
    headers: dict[str, str] = {}
    secret = client.get("client_secret")
    if secret and client.get("token_endpoint_auth_method") == "client_secret_basic":
        pair = f"{quote(str(client['client_id']), safe='')}:{quote(str(secret), safe='')}"
        headers["Authorization"] = f"Basic {base64.b64encode(pair.encode()).decode()}"
        del data["client_id"]
    elif secret:
        data["client_secret"] = str(secret)
    response = await http.post(endpoint, data=data, headers=headers)
    if response.status_code != 200:  # RFC 7009: 200 also for a token already invalid
        raise OAuthFlowError(f"the revocation endpoint answered {response.status_code}")
