"""Finds passages in the user's files: an incremental index of folders, ranked with BM25 (SQLite FTS5)."""
