"""`TeamError`: a team that cannot run (its own module: `-p` and the JSON input catch it without importing the
team's machinery, which a run without a team never needs)."""

from __future__ import annotations

from tui_agent.errors import UserError


class TeamError(UserError, ValueError):
    """A team that cannot run (unknown, or naming agents that do not exist)."""
