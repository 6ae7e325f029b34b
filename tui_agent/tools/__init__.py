"""Tool definitions, plugin discovery and the tool runner."""
