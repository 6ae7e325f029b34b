"""Run one program inside the sandbox from a fresh process: `python -m tui_agent.sandbox.run POLICY -- ARGV`.

For starts that take a command line and no `preexec_fn` (the MCP SDK's stdio transport): this process, still
single-threaded, builds the ruleset, applies it to itself and execs ARGV, which inherits it (bubblewrap and
sandbox-exec: it execs ARGV through their program). `wrapped(argv,
policy)` makes that command line; the private temp dir is the caller's (an exec never runs atexit cleanups).
Exit status 126, with the reason on stderr, when the sandbox cannot be applied: the program does not run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tui_agent.sandbox.launch import prepare
from tui_agent.sandbox.policy import Policy, private_temp_dir

CANNOT_RUN = 126


def wrapped(argv: Sequence[str], policy: Policy) -> list[str]:
    """The command line that runs `argv` in the sandbox under `policy` (writable: this process's temp dir)."""
    temp = str(private_temp_dir())
    spec = {"network": policy.network, "deny_read": policy.deny_read, "writable": [*policy.writable, temp]}
    return [sys.executable, "-m", "tui_agent.sandbox.run", json.dumps(spec), "--", *argv]


def main(args: Sequence[str]) -> int:
    if len(args) < 3 or args[1] != "--":
        print("usage: python -m tui_agent.sandbox.run POLICY_JSON -- PROGRAM [ARG...]", file=sys.stderr)
        return 2
    try:
        spec = json.loads(args[0])
        policy = Policy(
            network=bool(spec["network"]), deny_read=tuple(spec["deny_read"]), writable=tuple(spec["writable"])
        )
        temp = policy.writable[-1] if policy.writable else None
        launch = prepare(policy, Path.cwd())
        if launch.preexec_fn is not None:
            launch.preexec_fn()  # Landlock: this process, then everything it execs
    except Exception as error:  # a policy that cannot be applied: the program must not run unconfined
        print(f"tui-agent sandbox: cannot confine {args[2]}: {error}", file=sys.stderr)
        return CANNOT_RUN
    if temp is not None:
        os.environ.update(TMPDIR=temp, TMP=temp, TEMP=temp)
    try:
        argv = launch.argv(args[2:])  # bubblewrap, sandbox-exec: the program runs through theirs
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"tui-agent sandbox: cannot run {args[2]}: {error}", file=sys.stderr)
        return CANNOT_RUN


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
