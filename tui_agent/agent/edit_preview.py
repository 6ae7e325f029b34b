"""Provides `preview` and `EDIT_TOOLS` for the approval dialog, re-exported from `tui_agent.tools.edit_preview`.

The UI never imports `tui_agent.tools` itself (an import-linter contract); the diff of an edit not yet made is
computed on the person's machine from the call's arguments, by the same planning code the edit tools write
with, so the diff approved is the diff written.
"""

from __future__ import annotations

from tui_agent.tools.edit_preview import EDIT_TOOLS as EDIT_TOOLS
from tui_agent.tools.edit_preview import preview as preview
