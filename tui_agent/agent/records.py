"""Provides the stored values a screen shows and the file helpers its prompt box uses, re-exported from history.

The UI talks to the engine through the port (`tui_agent.agent.port`) and never imports `tui_agent.history`
itself (an import-linter contract in pyproject.toml); what the port's methods take and return are history's
plain values (a `Message`, a `Session`, an `Attachment`...), so they are named here for it. They stay defined
in history because history stores them and the agent builds its requests from them: a second copy would drift.
The functions are the few the UI runs itself, on the person's machine rather than on the engine: reading a file
to attach (`load_attachment`, `image_mime`, `human_size`), writing an export (`write_private`), nesting
sub-agents' sessions under their parents' (`nest`) and the prompt box's recall file (`PromptHistory`). An MCP
server's request for input (`Question`, with its form's `Field`s) and the user's `Answer`, and its request that
the model answer a prompt (`SamplingRequest`, answered with a `Verdict`), and the resources the @-picker offers
(`ResourcePick`, a template's URI `filled_uri`) come from the tools.
All are light (dataclasses over the standard library); the UI imports this module after the first frame.
"""

from __future__ import annotations

from tui_agent.history.attachments import Attachment as Attachment
from tui_agent.history.attachments import AttachmentError as AttachmentError
from tui_agent.history.attachments import AttachmentRef as AttachmentRef
from tui_agent.history.attachments import human_size as human_size
from tui_agent.history.attachments import image_mime as image_mime
from tui_agent.history.attachments import load_attachment as load_attachment
from tui_agent.history.export import ExportFormat as ExportFormat
from tui_agent.history.export import write_private as write_private
from tui_agent.history.models import PART_BREAK as PART_BREAK
from tui_agent.history.models import Message as Message
from tui_agent.history.models import Session as Session
from tui_agent.history.models import ToolCall as ToolCall
from tui_agent.history.nesting import nest as nest
from tui_agent.history.peek import SessionPeek as SessionPeek
from tui_agent.history.prompts import PromptHistory as PromptHistory
from tui_agent.history.session_glance import SessionGlance as SessionGlance
from tui_agent.history.session_search import SessionMatch as SessionMatch
from tui_agent.history.team_runs import TeamStop as TeamStop
from tui_agent.tools.mcp.elicitation import Answer as Answer
from tui_agent.tools.mcp.elicitation import Field as Field
from tui_agent.tools.mcp.elicitation import Question as Question
from tui_agent.tools.mcp.elicitation import values_of as values_of
from tui_agent.tools.mcp.resource_picks import ResourcePick as ResourcePick
from tui_agent.tools.mcp.resource_picks import filled_uri as filled_uri
from tui_agent.tools.mcp.sampling import SamplingRequest as SamplingRequest
from tui_agent.tools.mcp.sampling import Verdict as Verdict
from tui_agent.tools.mcp.sampling import shown_messages as shown_messages
