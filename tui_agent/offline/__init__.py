"""The built-in offline model and its OpenAI-protocol HTTP server.

`OfflineServer` (asyncio) and `BackgroundServer` (own thread) live in `tui_agent.offline.server`; scenarios
in `tui_agent.offline.scenario`. Nothing is imported here so the package costs nothing to import.
"""
