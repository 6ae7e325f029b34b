"""The commander package resolves its public names on first use: every name in `__all__` must resolve,
and to the object its home module defines."""

from __future__ import annotations

import importlib

import tui_agent.commander as commander


def test_every_public_name_resolves_from_its_home() -> None:
    assert set(commander._HOMES) == set(commander.__all__)
    for name in commander.__all__:
        home = importlib.import_module(f"tui_agent.commander.{commander._HOMES[name]}")
        assert getattr(commander, name) is getattr(home, "CommanderAsync" if name == "Commander" else name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        commander.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("an unknown name resolved")
