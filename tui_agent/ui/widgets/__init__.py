"""The chat screen's widgets: messages, chat log, tool panels, prompt and status bar."""
