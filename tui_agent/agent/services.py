"""Provides `build_agent`: assembles everything a chat needs — model client, history, tools — into an `Agent`.

This is the one place services are constructed (no module-level singletons): the model client comes from the
run's provider (`agent/providers.py`), the tools from the registry of tool sources (`agent/tool_set.py`). It is
slow by nature (the openai import, plugin imports, maybe starting the offline model), so the app imports and
calls it in a worker after its first paint. What the user should know about start-up comes back as notices; the
`BuiltAgent` is the `Engine` the UI's port describes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

from tui_agent import paths
from tui_agent.agent.agent import Agent
from tui_agent.agent.delegation import Delegation
from tui_agent.agent.endpoint import EndpointChoice, cleartext_warning, key_alone_notice
from tui_agent.agent.mcp_sampling import ModelSampler
from tui_agent.agent.meter import SessionMeter
from tui_agent.agent.model_choice import discover_model
from tui_agent.agent.port import ChatBackend
from tui_agent.agent.profile_use import AgentRoster, ClientPool
from tui_agent.agent.providers import provider_for
from tui_agent.agent.slash_commands import SlashCommands
from tui_agent.agent.tool_set import ToolSet, answered_offline
from tui_agent.agent.turn import TurnBudget
from tui_agent.agents.apply import UnknownAgentError
from tui_agent.agents.memory import find_memory
from tui_agent.agents.profiles import load_catalog
from tui_agent.commands.command_files import find_commands
from tui_agent.config import Settings
from tui_agent.history.redact import Redactor
from tui_agent.history.store import HistoryStore
from tui_agent.llm.model_client import ModelClient
from tui_agent.prices import WindowTable
from tui_agent.retrieval import embedding_choice, scope
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.runner import ToolRunner
from tui_agent.tools.sandboxing import configure_sandbox, confine_hooks
from tui_agent.tracing.start import start_tracing


@dataclass
class BuiltAgent:
    """An agent plus what it owns, so closing it stops the offline model and flushes history."""

    agent: Agent
    notices: list[str] = field(default_factory=list)
    _resources: AsyncExitStack = field(default_factory=AsyncExitStack)
    closed: bool = False
    resume_failure: str | None = None
    """Why the session asked for on the command line could not be resumed (the app says it inline)."""
    tools: ToolSet | None = None
    """The run's tool sources (the agent holds their registry)."""

    @property
    def mcp_servers(self) -> McpServers | None:
        """The run's MCP servers, for the MCP screen (None when there is no such source)."""
        return self.tools.mcp_servers if self.tools is not None else None

    @property
    def backend(self) -> ChatBackend:
        """The agent, as the UI's port (this is where mypy checks that the agent implements it)."""
        return self.agent

    @property
    def alarms(self) -> list[str]:
        """History's notices worth repeating after the app has gone (a file moved aside)."""
        return self.agent.store.report.alarms()

    async def close(self, *, lock_wait: float = 0.0, on_wait: Callable[[str], None] | None = None) -> None:
        """Stop the turn, flush and close history, stop servers (once; later calls do nothing). `lock_wait`:
        seconds to wait for a history file another program holds locked before giving up on saving (said
        through `on_wait`), as `-p`, which has nothing on screen to keep the run, does."""
        if self.closed:
            return
        self.closed = True
        try:
            await self.agent.close()
            if lock_wait > 0:
                await self.agent.store.save_before_exit(lock_wait, on_wait or (lambda _said: None))
        finally:
            await self._resources.aclose()


def missing_key_message(choice: EndpointChoice) -> str | None:
    """What to say on a 401 when no key was set at all (None when a key was given or none is needed)."""
    if choice.offline or choice.api_key:
        return None
    return f"No API key: set {choice.api_key_env} or run with --offline."


async def build_agent(settings: Settings, choice: EndpointChoice) -> BuiltAgent:
    """Start (or connect to) the model, open history, load plugins and the agent files; new sessions run the
    agent `settings.agent` names (an unknown one is a notice, and the default agent runs)."""
    resources = AsyncExitStack()
    try:
        return await _build(settings, choice, resources)
    except BaseException:
        await resources.aclose()
        raise


async def _build(settings: Settings, choice: EndpointChoice, resources: AsyncExitStack) -> BuiltAgent:
    catalog = await asyncio.to_thread(load_catalog)
    notices = [f"Agent file problem: {problem}" for problem in catalog.problems_of()]
    if (warning := cleartext_warning(choice.base_url)) is not None:
        notices.append(warning)
    if (by_key := key_alone_notice(choice)) is not None:
        notices.append(by_key)
    provider = provider_for(choice, settings)
    opened, said = await provider.open(choice, resources)
    notices.extend(said)
    embedder, embedding_notice = embedding_choice.choose(
        settings.retrieval, opened.base_url, opened.api_key, settings.provider == "anthropic" and not choice.offline
    )
    embedding_choice.use(embedder)  # search_docs' vectors (`[retrieval] embedding_model`), on the opened endpoint
    notices.extend([embedding_notice] if embedding_notice else [])
    docs_folders = scope.resolved(settings.retrieval.folders)
    scope.use(docs_folders)  # search_docs' folders beside the working directory (`[retrieval] folders`, `--docs`)
    notices.extend(scope.missing(docs_folders))

    def make_client(endpoint: EndpointChoice, max_tokens: int | None) -> ModelClient:
        """A client for an agent's endpoint (the offline model's when it names none); its key from its own variable."""
        return provider.client(
            replace(opened, model=endpoint.model) if endpoint.offline else endpoint, settings, max_tokens
        )

    client = make_client(opened, settings.max_tokens)
    resources.push_async_callback(client.aclose)
    if not client.model:
        model, notice = await discover_model(client)
        client.model = model or ""
        notices.extend([notice] if notice else [])
    redactor = await asyncio.to_thread(Redactor.default, paths.config_file(), token_shapes=settings.redact_secrets)
    store = await HistoryStore.open(settings.db, redactor=redactor)
    resources.push_async_callback(store.close)
    notices.extend(store.report.notices())
    offline = answered_offline(choice, client.model)  # the offline model's demo tool is for it alone
    tools = await ToolSet.start(settings, redactor.text, offline_model=offline)  # MCP servers go on starting: bounded
    resources.push_async_callback(tools.close)
    notices.extend(tools.notices())
    registry = tools.registry
    registry.hooks.commands.settings = settings.hooks  # command hooks run with the Python ones (`tools/hooks.py`)
    registry.hooks.commands.log_path = settings.hooks.log or paths.data_dir() / "hooks.log"
    runner = ToolRunner(registry, timeout=settings.tools.timeout, output_cap=settings.tools.output_cap)
    configure_sandbox(runner, settings.sandbox)
    confine_hooks(registry.hooks.commands, runner)  # hooks run in the sandbox when commands do
    clients = ClientPool(client, choice, make_client)
    resources.push_async_callback(clients.aclose)
    memory = await asyncio.to_thread(find_memory, Path.cwd(), settings.memory, paths.config_dir())
    notices.extend(f"Memory file refused: {problem}" for problem in memory.problems)
    roster = AgentRoster(catalog, settings, clients, memory)
    commands = await asyncio.to_thread(find_commands, Path.cwd(), settings.commands, paths.config_dir())
    notices.extend(f"Command file problem: {problem}" for problem in commands.problems)
    try:
        setup = roster.setup(settings.agent)
    except UnknownAgentError as error:  # from the config file (the front ends refuse an unknown `--agent`)
        notices.append(f"{error} New sessions run the default agent.")
        setup = roster.setup(None)
    agent = Agent(
        client=client,
        registry=registry,
        runner=runner,
        store=store,
        endpoint_label=choice.label,
        budget=TurnBudget(settings.max_tool_rounds, settings.max_tokens),
        system_prompt=settings.system_prompt,
        missing_key_message=missing_key_message(choice),
        roster=roster,
        setup=setup,
        delegation=Delegation(roster, registry),
        meter=SessionMeter(
            prices=settings.price_table(),
            user_windows=WindowTable(settings.context_windows),
            compact_at=settings.compact_at,
        ),
    )
    agent.commands = SlashCommands(commands, tools.mcp_servers)
    if tools.mcp_servers is not None:  # a server's sampling requests: the session's model answers, once approved
        tools.mcp_servers.sampling.answerer = ModelSampler(agent)
    tracing = start_tracing(agent, settings.tracing, paths.data_dir(), provider_name=settings.provider)
    if isinstance(tracing, str):
        notices.append(tracing)
    elif tracing is not None:
        resources.push_async_callback(tracing.close)
    tools.watch(agent.tell)  # a source's notices during the run (an MCP server failed...) reach the UI or stderr
    return BuiltAgent(agent, notices, resources, tools=tools)
