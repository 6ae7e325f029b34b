"""Docstring parsing: summary paragraph and Google-style `Args:` entries."""

from __future__ import annotations

from tui_agent.tools.docstrings import parse_docstring


def test_summary_is_the_first_paragraph_joined() -> None:
    parsed = parse_docstring("""Get the weather
    in a place.

    More detail.
    """)
    assert parsed.summary == "Get the weather in a place."
    assert parsed.params == {}


def test_args_with_types_and_continuations() -> None:
    parsed = parse_docstring("""Summary.

    Args:
        location (str): The city,
            e.g. Paris.
        unit: The unit.

    Returns:
        ignored: not a parameter.
    """)
    assert parsed.params == {"location": "The city, e.g. Paris.", "unit": "The unit."}


def test_missing_docstring() -> None:
    parsed = parse_docstring(None)
    assert parsed.summary == "" and parsed.params == {}
