"""The SQLite history store."""
