"""A profile resolved over the settings: what it sets wins, what it leaves unset keeps the settings' values."""

from __future__ import annotations

import pytest

from tui_agent.agents.apply import NO_KEY_ENV, UnknownAgentError, pick_agent, settings_for
from tui_agent.agents.profiles import AgentProfile, Catalog
from tui_agent.config import Settings

CONFIG = Settings(model="big", base_url="https://api.example/v1", max_tool_rounds=10, system_prompt=None)


def test_what_a_profile_sets_wins_and_what_it_leaves_unset_is_the_configs() -> None:
    profile = AgentProfile(name="r", system_prompt="Be careful.", max_tool_rounds=3, temperature=0.2)

    applied = settings_for(profile, CONFIG)

    assert (applied.system_prompt, applied.max_tool_rounds, applied.temperature) == ("Be careful.", 3, 0.2)
    assert (applied.model, applied.base_url, applied.max_tokens) == ("big", "https://api.example/v1", None)
    assert settings_for(None, CONFIG) is CONFIG


def test_a_config_prompt_wins_over_the_default_agents_only_when_asked() -> None:
    configured = CONFIG.model_copy(update={"system_prompt": "Mine."})
    profile = AgentProfile(name="assistant", system_prompt="Shipped.")

    assert settings_for(profile, configured, keep_prompt=True).system_prompt == "Mine."
    assert settings_for(profile, configured).system_prompt == "Shipped."
    assert settings_for(profile, CONFIG, keep_prompt=True).system_prompt == "Shipped."  # the config sets none


def test_another_endpoint_gets_only_its_own_key() -> None:
    local = AgentProfile(name="local", base_url="http://127.0.0.1:8080/v1", model="small")
    keyed = AgentProfile(name="keyed", base_url="https://other.example/v1", api_key_env="OTHER_KEY")

    assert settings_for(local, CONFIG).api_key_env == NO_KEY_ENV  # the config's key never goes to it
    assert settings_for(keyed, CONFIG).api_key_env == "OTHER_KEY"
    assert settings_for(local, CONFIG).model == "small"


def test_picking_an_agent_by_name_the_default_or_none() -> None:
    catalog = Catalog(agents={name: AgentProfile(name=name) for name in ("assistant", "researcher")})

    assert pick_agent(catalog, "researcher") is catalog.agents["researcher"]
    assert pick_agent(catalog, None) is catalog.agents["assistant"]
    assert pick_agent(catalog, "") is None  # no agent: the config's settings alone
    assert pick_agent(Catalog(), None) is None  # no default agent file: as before agents existed
    with pytest.raises(UnknownAgentError, match=r"no agent 'nope'\. The agents are: assistant, researcher"):
        pick_agent(catalog, "nope")
