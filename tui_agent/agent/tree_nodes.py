"""Provides the task tree's node events (the commander's), re-exported for the UI's task-tree view.

The UI follows the tree through the port (`ConversationPort.subscribe_tree`) and never imports the commander
itself (an import-linter contract in pyproject.toml); the events it is told are the commander's own frozen
values, named here for it. Apart from `tui_agent.agent.tree`, which the first frame imports: the event classes
load with the engine, after the first paint.
"""

from __future__ import annotations

from tui_agent.commander.events import NodeCancelled as NodeCancelled
from tui_agent.commander.events import NodeCreated as NodeCreated
from tui_agent.commander.events import NodeEnded as NodeEnded
from tui_agent.commander.events import NodeEvent as NodeEvent
from tui_agent.commander.events import NodeFailed as NodeFailed
from tui_agent.commander.events import NodeStarted as NodeStarted
from tui_agent.commander.events import NodeState as NodeState
