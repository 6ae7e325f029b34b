"""tui-agent as an Agent Client Protocol agent (`tui-agent acp`), on the official `agent-client-protocol` SDK.

`cli` starts it on stdio, `server` answers the protocol's methods, `session` runs one editor session over a chat
of ours, `updates` and `prompt_blocks` translate between our values and ACP's, `permission` puts a tool call's
approval to the editor. docs/acp.md says how to use it from Zed and Toad.
"""
