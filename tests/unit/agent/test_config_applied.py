"""The engine uses the resolved settings: the history redacts as `redact_secrets` says, whatever else the file holds."""

from __future__ import annotations

from tests.unit.agent.conftest import MakeAgent
from tui_agent import paths


async def test_the_history_redacts_as_the_resolved_setting_says(make_agent: MakeAgent) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("redact_secrets = true\n", encoding="utf-8")
    built = await make_agent(redact_secrets=False)  # e.g. resolved from another source than this file
    assert built.agent.store.redactor.token_shapes is False
    assert built.agent.store.redactor.text("ghp_" + "a" * 36) == "ghp_" + "a" * 36
