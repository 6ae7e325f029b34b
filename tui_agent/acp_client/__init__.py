"""An external agent used by tui-agent: a program that speaks the Agent Client Protocol (ACP) over stdio.

An agent profile with `acp = ["command", "arg", ...]` names one (`tui_agent.agents.profiles.AgentProfile.acp`);
it then answers as a sub-agent or a team member instead of a model. `connection.ExternalAgent` starts the
program and holds its ACP session (on the official `agent-client-protocol` SDK, imported only when an external
agent is started: its schema alone takes a second or two to import); `values` turns what it sends into our
values (text, reasoning, `ToolCall`s, approval answers); `host.AgentHost` is what it tells them to, which the
agent layer binds to a turn (`tui_agent.agent.external_turn`).
"""
