"""The built-in offline model and its OpenAI-protocol HTTP server."""
