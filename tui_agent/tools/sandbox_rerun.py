"""Provides `rerun_for`: what the user's answer to "the sandbox blocked this command: run it again?" means,
and the notes the call's result carries about it (for the model, the panel and history alike).

The runner asks only in a session where someone can answer (never in `-p`), once per call, after a sandboxed
run whose output shows a refusal (`tui_agent.sandbox.blocked_lines`). Yes (`ALLOW_ONCE`; "always" counts as
once: leaving the sandbox is never remembered) runs that one call again unconfined; `ALLOW_NETWORK` runs it
again in the sandbox with the network on; anything else keeps the blocked result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from tui_agent.sandbox import Policy
from tui_agent.tool_call import Decision

KEPT = "\n[not run again outside the sandbox: nobody allowed it]"
NETWORK = "[run in the OS sandbox with the network, as the user allowed for this call]\n"


@dataclass(frozen=True)
class Rerun:
    """How a blocked call runs once more: `policy` None is outside the sandbox."""

    policy: Policy | None
    note: str
    """The line the second run's result starts with, saying how it ran and what the first run met."""


def rerun_for(decision: Decision, policy: Policy, blocked: Sequence[str]) -> Rerun | None:
    """The second run the answer asks for, None to keep the blocked result."""
    met = "; ".join(line.removeprefix("blocked by the sandbox: ") for line in blocked)
    if decision in (Decision.ALLOW_ONCE, Decision.ALLOW_ALWAYS):
        return Rerun(None, f"[run again OUTSIDE the OS sandbox, as the user allowed; in it, it was blocked: {met}]\n")
    if decision == Decision.ALLOW_NETWORK and not policy.network:
        note = f"[run again in the OS sandbox with the network, as the user allowed; first it was blocked: {met}]\n"
        return Rerun(dataclasses.replace(policy, network=True), note)
    return None
