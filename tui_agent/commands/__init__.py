"""Slash commands: the built-in ones' names, the user's and the project's Markdown commands, and how a `/name args`
prompt becomes the text sent (`catalogue`, `command_files`, `templates`)."""
