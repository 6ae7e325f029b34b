"""tui-agent: a terminal chat application for LLM agents.

Provides the package version; everything else lives in the subpackages (see shared/DESIGN.md).
Importing this package does no work and pulls in no UI code.
"""

__version__ = "0.1.0"
