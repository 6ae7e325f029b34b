"""The OpenAI-compatible client and the stream dispatcher."""
