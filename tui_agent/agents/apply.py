"""Provides `settings_for` and `pick_agent`: a profile resolved over the run's `Settings`.

A profile says only what it changes (its unset values are None); `settings_for` puts those values on top of
the settings (flags, environment and config file, merged): system prompt, endpoint, model, key variable,
budgets and temperature. Two rules keep what people had before:

- with no agent asked for, a `system_prompt` in the config file wins over the default agent's (`keep_prompt`);
- a profile naming its own `base_url` gets a key only from its own `api_key_env`: the config's key is never
  sent to an endpoint it was not set for.

Which tools an agent may use and its approval overrides are not settings: the runner applies the profile
itself (`tui_agent.tools.runner.ToolPolicy`, which an `AgentProfile` satisfies).
"""

from __future__ import annotations

from typing import Any

from tui_agent.agents.profiles import DEFAULT_AGENT, AgentProfile, Catalog, load_catalog
from tui_agent.config import Settings
from tui_agent.errors import UserError

APPLIED = ("model", "base_url", "api_key_env", "max_tool_rounds", "max_tokens", "temperature")
"""The settings a profile may set besides its system prompt (same names in both)."""
NO_KEY_ENV = ""
"""`api_key_env` of a profile endpoint that names no key variable: no variable, so no key is sent."""


class UnknownAgentError(UserError, LookupError):
    """An agent was asked for by a name no profile has; the message lists the agents there are."""


def settings_for(profile: AgentProfile | None, settings: Settings, *, keep_prompt: bool = False) -> Settings:
    """`settings` with what `profile` sets on top (None: `settings` as they are). `keep_prompt`: a system
    prompt the settings already have (the config file's) is kept over the profile's."""
    if profile is None:
        return settings
    update: dict[str, Any] = {name: getattr(profile, name) for name in APPLIED if getattr(profile, name) is not None}
    if profile.base_url is not None and profile.api_key_env is None:
        update["api_key_env"] = NO_KEY_ENV
    if profile.system_prompt is not None and not (keep_prompt and settings.system_prompt):
        update["system_prompt"] = profile.system_prompt
    return settings.model_copy(update=update)


def pick_agent(catalog: Catalog, name: str | None) -> AgentProfile | None:
    """The profile a session runs: the one called `name` (`UnknownAgentError` when there is none); with no
    name, the default agent when a file defines it, else None (the config's settings as they are); "" asks
    for no agent (the config's settings alone)."""
    if not name:
        return catalog.agent(DEFAULT_AGENT) if name is None else None
    profile = catalog.agent(name)
    if profile is None:
        raise UnknownAgentError(unknown_agent_message(name, catalog))
    return profile


def unknown_agent(name: str | None) -> str | None:
    """Why agent `name` cannot run (no file defines it: the sentence), None when it can or none is named (the
    front ends check `--agent` with it before they start)."""
    if not name:
        return None
    catalog = load_catalog()
    return None if catalog.agent(name) is not None else unknown_agent_message(name, catalog)


def unknown_agent_message(name: str, catalog: Catalog) -> str:
    """There is no agent `name`: the sentence, with the agents there are and where to see more."""
    known = ", ".join(sorted(catalog.agents)) or "none"
    return f"There is no agent {name!r}. The agents are: {known} (see `tui-agent agents`)."
