"""Test doubles for the UI: a scripted chat port, in-memory sessions and a scripted task tree.

They live here, apart from the product code, so tests and `bench/` drive the real screens without an engine.
Nothing in the product imports this package.
"""
