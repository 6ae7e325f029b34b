"""MCP servers as a tool source: one owner task per server, stderr to a log file, start-up in the background.

`servers.McpServers` is the entry point and imports no SDK: the `mcp` package (about a second to import)
is loaded in a thread by the first server start, never before the first frame. `session` is the only
module that talks to the SDK; `server` owns one server's life; `specs` makes its tools `ToolSpec`s.
"""
