"""The chat turn built from commander jobs and handlers."""
