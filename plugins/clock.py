"""Clock plugin: the current date and time in any IANA time zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tui_agent.tools import tool


@tool(approval="never", effect="read")
def current_time(timezone: str = "UTC") -> str:
    """Get the current date and time in a time zone.

    Args:
        timezone: An IANA time zone name such as Europe/Paris or America/New_York.
    """
    try:
        zone = ZoneInfo(timezone.strip())
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {timezone!r}; use an IANA name such as Europe/Paris or UTC") from exc
    now = datetime.now(zone)
    return f"{now:%A %d %B %Y, %H:%M:%S} {now.tzname()} (UTC{now:%z}) in {zone.key}; ISO 8601: {now.isoformat()}"
