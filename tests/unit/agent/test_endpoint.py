"""Which endpoint a run talks to: flags > environment > config file, offline when nothing is set."""

from __future__ import annotations

from tui_agent.agent.endpoint import OFFLINE_LABEL, OPENAI_URL, choose_endpoint
from tui_agent.agent.services import missing_key_message
from tui_agent.config import load_settings


def test_nothing_configured_means_offline_model() -> None:
    choice = choose_endpoint(load_settings({}, environ={}), environ={})
    assert choice.offline and choice.label == OFFLINE_LABEL
    assert missing_key_message(choice) is None


def test_api_key_alone_means_openai() -> None:
    choice = choose_endpoint(load_settings({}, environ={}), environ={"OPENAI_API_KEY": "sk-test"})
    assert choice.base_url == OPENAI_URL and choice.api_key == "sk-test"
    assert choice.label == "api.openai.com"


def test_flag_beats_environment_beats_file() -> None:
    environ = {"OPENAI_BASE_URL": "http://env.example/v1", "TUI_AGENT_MODEL": "env-model"}
    file_values = {"base_url": "http://file.example/v1", "model": "file-model"}
    from_env = choose_endpoint(load_settings(file_values, environ=environ), environ=environ)
    assert (from_env.base_url, from_env.model) == ("http://env.example/v1", "env-model")
    flags = {"base_url": "http://flag.example/v1/", "model": "flag-model"}
    from_flag = choose_endpoint(load_settings(file_values, environ=environ, flags=flags), environ=environ)
    assert (from_flag.base_url, from_flag.model) == ("http://flag.example/v1", "flag-model")


def test_offline_flag_wins_over_an_endpoint() -> None:
    environ = {"OPENAI_BASE_URL": "http://env.example/v1"}
    choice = choose_endpoint(load_settings({}, environ=environ, flags={"offline": True}), environ=environ)
    assert choice.offline


def test_endpoint_without_key_explains_how_to_fix_it() -> None:
    environ = {"OPENAI_BASE_URL": "http://localhost:1/v1"}
    choice = choose_endpoint(load_settings({}, environ=environ), environ=environ)
    assert missing_key_message(choice) == "No API key: set OPENAI_API_KEY or run with --offline."


def test_key_is_not_in_the_choice_repr() -> None:
    choice = choose_endpoint(load_settings({}, environ={}), environ={"OPENAI_API_KEY": "sk-canary-123"})
    assert "sk-canary-123" not in repr(choice)
