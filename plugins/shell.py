"""Shell plugin: run a shell command in the working directory.

Asks for approval by default. It is command-like: "always" allows the exact command only, and config
patterns (`[tools.run_shell] allow = ["git status", "ls *"]`) can allow commands by shape. The command has
no stdin, its environment is scrubbed of variables named like secrets (`*KEY*`, `*TOKEN*`, `*SECRET*`,
`*PASSWORD*`), and its whole process group is killed when the call times out or is cancelled.
"""

from __future__ import annotations

from pathlib import Path

from tui_agent.tools import tool
from tui_agent.tools.process import run_program

OUTPUT_CAP = 30000
"""A little under the runner's default cap, leaving room for the exit status line."""


@tool(approval="ask", command="command")  # "always" allows one exact command; see [tools.run_shell] allow
async def run_shell(command: str) -> str:
    """Run a shell command in the current working directory and return its exit status and output.

    Args:
        command: The command line, run with /bin/sh -c. It gets no input; stdout and stderr are combined.
    """
    result = await run_program(command, cwd=Path.cwd(), output_cap=OUTPUT_CAP, shell=True)
    note = f"\n[truncated {result.truncated_bytes} bytes]" if result.truncated_bytes else ""
    return f"exit status {result.returncode}\n{result.output}{note}"
