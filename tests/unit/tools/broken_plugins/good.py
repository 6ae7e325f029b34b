"""A healthy plugin next to the broken ones."""

from tui_agent.tools import tool


@tool(approval="never")
def healthy(word: str) -> str:
    """Echo a word.

    Args:
        word: The word to echo.
    """
    return word
