"""Provides the registry of model providers: `PROVIDERS`, one entry per protocol a model can be reached by, and
`provider_for`, the one a run uses.

A provider makes the model client for an endpoint and a model (`client`), opens what the endpoint needs first
(`open`: the offline model starts its loopback server, then is reached by the run's protocol, OpenAI's unless
another is chosen) and says what `doctor` should check (`probe`). The builder (`agent/services.py`, for the
app and `-p`) and `doctor` know providers only through this. A provider whose client has `llm.client.ChatClient`'s
constructor is one `ClientProvider` line here, its client class imported when first used (no SDK is imported for
a provider the run does not use).
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, AsyncExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol, cast

from tui_agent.agent.endpoint import ANTHROPIC_OFFLINE_NOTICE, OFFLINE_NOTICE, EndpointChoice
from tui_agent.config import Settings
from tui_agent.llm.model_client import ModelClient

OFFLINE_LABEL = " (the built-in offline model: no endpoint is configured)"


@dataclass(frozen=True)
class EndpointProbe:
    """What `doctor` checks of an endpoint: where, which model, the key's variable and the environment it is read
    from, a label for the line, and the protocol to speak (the check `doctor` runs for it)."""

    base_url: str
    model: str | None
    api_key_env: str
    environ: Mapping[str, str] = field(repr=False)
    label: str = ""
    protocol: str = "openai"


class ModelProvider(Protocol):
    """One way of reaching a model, as the builder and `doctor` use it."""

    @property
    def name(self) -> str:
        """Its entry's name in `PROVIDERS`."""
        ...

    async def open(self, choice: EndpointChoice, resources: AsyncExitStack) -> tuple[EndpointChoice, list[str]]:
        """The endpoint to send requests to (what it starts is stopped with `resources`), and what to say."""
        ...

    def client(self, endpoint: EndpointChoice, settings: Settings, max_tokens: int | None) -> ModelClient:
        """A client for `endpoint` (opened) and its model, with the run's timeouts and this reply limit."""
        ...

    def probe(self, choice: EndpointChoice, settings: Settings) -> AbstractContextManager[EndpointProbe]:
        """What `doctor` should check for `choice` (held open while it checks)."""
        ...


class ClientClass(Protocol):
    """A client class with the constructor of `llm.client.ChatClient`."""

    def __call__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float,
        stall_timeout: float,
        max_tokens: int | None,
        **options: int | None,  # what only some clients take (`thinking_budget`: `ClientProvider.thinks`)
    ) -> ModelClient: ...


@dataclass(frozen=True)
class ClientProvider:
    """A provider for an endpoint the config names: `module.class_name` is its client (imported when first used)."""

    name: str
    module: str
    class_name: str
    protocol: str = "openai"
    """Which of `doctor`'s endpoint checks applies."""
    vendor: str = "OpenAI's"
    """Whose endpoint a key alone chooses (said by `doctor`)."""
    offline_notice: str = OFFLINE_NOTICE
    """Said when the offline model answers on this protocol (naming its own variables)."""
    thinks: bool = False
    """Whether the client takes `thinking_budget` (the `thinking_budget` setting)."""

    async def open(self, choice: EndpointChoice, resources: AsyncExitStack) -> tuple[EndpointChoice, list[str]]:
        return choice, []

    def client(self, endpoint: EndpointChoice, settings: Settings, max_tokens: int | None) -> ModelClient:
        make = cast(ClientClass, getattr(importlib.import_module(self.module), self.class_name))
        thinking = {"thinking_budget": settings.thinking_budget} if self.thinks else {}
        return make(
            endpoint.base_url or "",
            endpoint.model,
            endpoint.api_key,
            timeout=settings.request_timeout,
            stall_timeout=settings.stall_timeout,
            max_tokens=max_tokens,
            **thinking,
        )

    @contextmanager
    def probe(self, choice: EndpointChoice, settings: Settings) -> Iterator[EndpointProbe]:
        label = f" ({self.vendor}: ${settings.api_key_env} is set and no base_url is configured)"
        label = label if choice.key_alone else ""
        yield EndpointProbe(
            choice.base_url or "", choice.model or None, settings.api_key_env, os.environ, label, self.protocol
        )


@dataclass(frozen=True)
class OfflineProvider:
    """The built-in offline model: its loopback server is started, then it is reached by `speaks`' protocol."""

    speaks: ModelProvider
    name: str = "offline"

    async def open(self, choice: EndpointChoice, resources: AsyncExitStack) -> tuple[EndpointChoice, list[str]]:
        from tui_agent.offline.server import BackgroundServer  # its HTTP server is imported only when it runs

        # Strict, as the chat templates of many local servers are: a history they would refuse is a bug here.
        server = BackgroundServer({"strict": True})
        base_url = await asyncio.to_thread(server.start)
        resources.push_async_callback(asyncio.to_thread, server.stop)
        return replace(choice, base_url=base_url), [self.notice]  # any key will do: none is sent

    @property
    def notice(self) -> str:
        return getattr(self.speaks, "offline_notice", OFFLINE_NOTICE)

    def client(self, endpoint: EndpointChoice, settings: Settings, max_tokens: int | None) -> ModelClient:
        return self.speaks.client(endpoint, settings, max_tokens)

    @contextmanager
    def probe(self, choice: EndpointChoice, settings: Settings) -> Iterator[EndpointProbe]:
        from tui_agent.offline.server import BackgroundServer

        with BackgroundServer({"models": [choice.model]}) as server:  # it answers to any name: the one a chat asks
            with self.speaks.probe(replace(choice, base_url=server.base_url), settings) as spoken:
                yield replace(spoken, model=choice.model, environ={}, label=OFFLINE_LABEL)


PROVIDERS: dict[str, ModelProvider] = {
    "openai": ClientProvider("openai", "tui_agent.llm.client", "ChatClient"),
    "anthropic": ClientProvider(
        "anthropic",
        "tui_agent.llm.anthropic_client",
        "AnthropicClient",
        protocol="anthropic",
        vendor="Anthropic's",
        offline_notice=ANTHROPIC_OFFLINE_NOTICE,
        thinks=True,
    ),
}
"""Every protocol by name: a new one is one entry (its client in `llm/<provider>.py`). With no endpoint, the
offline model is started and reached by the run's (`OfflineProvider`)."""


def provider_for(choice: EndpointChoice, settings: Settings) -> ModelProvider:
    """The provider of the protocol the settings choose (`provider`), behind the offline model when no endpoint
    is named."""
    speaks = PROVIDERS[settings.provider]
    return OfflineProvider(speaks) if choice.base_url is None else speaks
