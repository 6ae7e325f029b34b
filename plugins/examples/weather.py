"""Weather plugin: the tutorial's `get_current_weather`, answered from deterministic offline data.

The same location always gets the same weather, so demos and tests are reproducible without a network.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from tui_agent.tools import tool

CONDITIONS = ("sunny", "partly cloudy", "cloudy", "light rain", "rain", "windy", "foggy", "snow")


@tool(approval="never", to_user=True, effect="read")
def get_current_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather in a given location.

    Args:
        location: The city and state or country, e.g. San Francisco, CA.
        unit: The temperature unit to use.
    """
    digest = hashlib.sha256(location.strip().lower().encode()).digest()
    celsius = digest[0] % 40 - 5
    condition = CONDITIONS[digest[1] % len(CONDITIONS)]
    if condition == "snow" and celsius > 2:
        condition = "cloudy"
    temperature = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    report = {
        "location": location,
        "temperature": temperature,
        "unit": unit,
        "forecast": condition,
        "humidity_percent": 30 + digest[2] % 60,
        "source": "offline demo data",
    }
    return json.dumps(report)
