"""Provides `risky_options`: the options in a command that make a reading tool run a program or write a file.

An `allow` pattern such as `find *` or `git log *` means "let it look around", but `find . -exec CMD {} +`
runs anything, `find . -delete` deletes, `git log --output=FILE` and `sort -o FILE` write, `rg --pre CMD`
runs a program per file. Such an option keeps a command from matching a pattern (it is asked about instead)
unless the pattern spells the option out itself (`find . -name *.tmp -delete`).

Options are read as the shell and the programs read them: the command is split with shell quoting
(`-e'x'ec` is `-exec`), a GNU long option matches when abbreviated (`--out=F` is `--output`) or given a value
(`--output=F`), and a short option matches alone, inside a cluster (`-uo F`) or with its value attached
(`-oF`). Every program named in the command is checked, not only the first word, so a wrapper (`nice find
...`, `timeout 5 git ...`) does not hide one. This is a list of known dangers, not a sandbox: a program that
runs what it is given (`sh`, `python`, `awk`, `xargs`, `env`) does so whatever its options, and a `*` the
shell expands can become an option if a file is named like one (`-delete`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """One program's options that run a program or write a file."""

    words: tuple[str, ...] = ()
    """Whole-word options with one dash (find's `-exec`), matched exactly or, ending in `*`, by prefix."""
    long: tuple[str, ...] = ()
    """GNU long options, without their dashes."""
    short: str = ""
    """Single-letter options."""


_FIND = Options(words=("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint*", "-fls"))
_FD = Options(long=("exec", "exec-batch"), short="xX")
_SSH = Options(long=(), short="oFS")
RISKY: dict[str, Options] = {
    "find": _FIND,
    "gfind": _FIND,
    "fd": _FD,
    "fdfind": _FD,
    "git": Options(
        long=(
            "output",  # log, diff, show, archive: write to a file
            "output-directory",  # format-patch
            "open-files-in-pager",  # grep -O: runs the pager given
            "upload-pack",  # fetch, clone, ls-remote: run a program
            "receive-pack",
            "exec",  # rebase --exec, push --exec
            "exec-path",
            "config-env",
            "ext-diff",
            "textconv",
        ),
        short="coxO",  # -c key=value (core.pager, core.sshCommand...), -o, rebase -x, grep -O
    ),
    "sort": Options(long=("output", "compress-program"), short="o"),
    "shuf": Options(long=("output",), short="o"),
    "sed": Options(long=("in-place",), short="i"),
    "rg": Options(long=("pre",)),
    "less": Options(long=("log-file", "LOG-FILE"), short="oO"),
    "man": Options(long=("pager", "html"), short="PH"),
    "curl": Options(long=("output", "remote-name", "remote-name-all", "upload-file", "config"), short="oOTK"),
    "wget": Options(
        long=("output-document", "output-file", "append-output", "directory-prefix", "execute", "post-file"),
        short="oOaPe",
    ),
    "tar": Options(
        long=(
            "to-command",
            "checkpoint-action",
            "use-compress-program",
            "info-script",
            "new-volume-script",
            "rsh-command",
        ),
        short="IF",
    ),
    "rsync": Options(long=("rsh", "rsync-path"), short="e"),
    "zip": Options(long=("unzip-command",), short="T"),
    "ssh": _SSH,
    "scp": _SSH,
    "sftp": Options(short="oFSD"),
}


def risky_options(command: str) -> frozenset[str]:
    """The risky options `command` gives (as written, quotes removed), or `{command}` itself when it cannot
    be split as the shell would (an unclosed quote): what cannot be read is not allowed by a pattern."""
    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError:
        return frozenset({command})
    found: set[str] = set()
    for program in {_program(word) for word in words} & RISKY.keys():
        found.update(word for word in words if _is_risky(word, RISKY[program]))
    return frozenset(found)


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _is_risky(word: str, options: Options) -> bool:
    if word.startswith("--"):
        name = word[2:].split("=", 1)[0]
        return bool(name) and any(option.startswith(name) for option in options.long)
    if not word.startswith("-") or word == "-":
        return False
    if any(word == option or (option.endswith("*") and word.startswith(option[:-1])) for option in options.words):
        return True
    return not options.words and any(letter in options.short for letter in word[1:])
