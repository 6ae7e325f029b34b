"""Test doubles of the port for the UI: a scripted chat backend, in-memory sessions and a scripted task tree.

They live in the package, not under tests/, because `bench/` uses them too (`bench/render.py` and
`bench/subagents.py` drive the real screens with `ScriptedBackend`, which holds a `MemorySessions` and a
`ScriptedTree`). Each implements only the concerns of `tui_agent.agent.port` it stands in for: `MemorySessions`
a `SessionLibrary`, `ScriptedTree` the task tree's feed, `ScriptedBackend` the whole `ChatBackend` (an app needs
all of it). Nothing in the product imports this package (an import-linter contract).
"""
