"""Broken on purpose: raises at import."""

raise RuntimeError("this plugin is broken on purpose")
