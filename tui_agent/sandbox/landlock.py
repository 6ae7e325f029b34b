"""A small, audited ctypes wrapper of Linux Landlock: build a ruleset in the parent, apply it in the child.

The ruleset (what a sandboxed command may read, write and connect to) is built in the parent process, where
a failure is an ordinary exception; the child, between fork and exec, does only two system calls —
`prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self` — so almost no Python runs in the forked child.
A domain, once applied, is inherited by every descendant and can never be lifted: a child that re-execs
itself, a symlink, `/proc/self/root` or a `..` all resolve to an inode, and Landlock checks the inode's place
in the tree. Hard links and renames across directories need `REFER` (ABI 2), which no rule here grants to a
place that would gain rights by it.

Landlock can only allow; "read everywhere except ~/.ssh" is built by allowing every sibling on the way
from `/` down to each denied folder (`roots_without`), and the same for a writable folder holding one.
Symlinks among those siblings are skipped: a rule on a symlink would allow its target, and whatever they
point to is covered by its own place.

Constants and struct layouts: include/uapi/linux/landlock.h (kernel 6.x); the three system calls have the
same numbers on every architecture (444–446).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import platform
import stat
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (ABI in brackets where later than 1).
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # [2], [3], [5]
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # [4]
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # [6]

FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The only rights a rule on a file (not a directory) may carry."""
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
"""Devices a command may write to (`> /dev/null`), whatever else is denied."""


class LandlockError(OSError):
    """The kernel refused to build or apply the ruleset."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the kernel's header: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@functools.cache
def _c_library() -> ctypes.CDLL | None:
    """The C library, looked up on first use: `find_library` runs `ldconfig -p` in a child process, a cost
    every start of `-p` paid at import although only a sandboxed command needs the library."""
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True) if os.name == "posix" else None


def _syscall(number: int, *args: object) -> int:
    libc = _c_library()
    if libc is None:
        raise LandlockError(0, "no C library")
    result = int(libc.syscall(ctypes.c_long(number), *args))
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, os.strerror(errno))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI (1 and up), 0 when Landlock is missing or disabled."""
    if platform.system() != "Linux":
        return 0
    try:
        return _syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except LandlockError:
        return 0


@dataclass(frozen=True)
class Rules:
    """What the sandboxed process may reach: paths readable, paths writable (and readable), TCP allowed."""

    readable: tuple[str, ...]
    listable: tuple[str, ...]
    writable: tuple[str, ...]
    network: bool


def roots_without(top: str, denied: Iterable[str]) -> tuple[list[str], list[str]]:
    """Paths whose rules together cover `top`'s whole tree except `denied` (resolved, existing ones), and the
    folders on the way to a denied one (listable: `READ_DIR` only, which Landlock grants beneath them too —
    so names inside a denied folder can be listed, never its files read or written).

    For each denied path under `top`, every sibling on the way down to it is allowed instead of the parent;
    a parent on the way to another denied path is split again. Symlinks are never allowed (see the module).
    `top` inside a denied folder: nothing.
    """
    top = os.path.realpath(top)
    resolved = {os.path.realpath(path) for path in denied if os.path.lexists(path)}
    if any(top == path or top.startswith(path.rstrip("/") + "/") for path in resolved):
        return [], []
    cut = {path for path in resolved if path.startswith(top.rstrip("/") + "/")}
    if not cut:
        return [top], []
    on_the_way = {top}
    for path in cut:
        while (path := os.path.dirname(path)) != top:
            on_the_way.add(path)
    roots: list[str] = []
    listed: list[str] = []
    pending = [top]
    while pending:
        folder = pending.pop()
        listed.append(folder)
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.path in cut or entry.is_symlink():
                        continue
                    (pending if entry.path in on_the_way else roots).append(entry.path)
        except OSError:
            continue
    return roots, listed


class Ruleset:
    """A Landlock ruleset fd built in the parent; `apply_in_child` is the `preexec_fn` that enforces it (any
    number of times: a ruleset is reused while what it was built from is unchanged)."""

    def __init__(self, rules: Rules, abi: int) -> None:
        fs = FS_RIGHTS_BY_ABI.get(abi, FS_RIGHTS_BY_ABI[5])
        attr = _RulesetAttr(fs, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 and not rules.network else 0, 0)
        size = 8 if abi < 4 else 16 if abi < 6 else 24
        if abi >= 6:
            attr.scoped = SCOPE_SIGNAL | (0 if rules.network else SCOPE_ABSTRACT_UNIX_SOCKET)
        self.fd = _syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
        try:
            for path in rules.readable:
                self._allow(path, READ_RIGHTS & fs)
            for path in rules.listable:
                self._allow(path, READ_DIR)
            for path in rules.writable:  # already split around denied paths (`roots_without`)
                self._allow(path, fs)
            for device in DEVICES:
                self._allow(device, (READ_FILE | WRITE_FILE | IOCTL_DEV) & fs)
        except BaseException:
            os.close(self.fd)
            raise
        self.close = weakref.finalize(self, os.close, self.fd)
        """Close the fd now (else when the ruleset is collected: a launch in progress keeps it alive)."""
        # Resolved now, in the parent: the child calls them without looking anything up.
        libc = _c_library()
        self._prctl: Callable[..., int] = libc.prctl if libc is not None else _missing
        self._syscall: Callable[..., int] = libc.syscall if libc is not None else _missing

    def _allow(self, path: str, rights: int) -> None:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # gone since it was listed, or unreadable: nothing to allow
        try:
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                rights &= FILE_RIGHTS
            attr = _PathBeneathAttr(rights, fd)
            _syscall(
                SYS_ADD_RULE,
                ctypes.c_int(self.fd),
                ctypes.c_int(RULE_PATH_BENEATH),
                ctypes.byref(attr),
                ctypes.c_uint32(0),
            )
        finally:
            os.close(fd)

    def apply_in_child(self) -> None:
        """Run between fork and exec (subprocess calls it before closing fds; the ruleset's fd is close-on-exec):
        no new privileges (setuid binaries stay powerless), then the domain."""
        zero = ctypes.c_ulong(0)  # prctl reads unsigned longs: no stray upper bits from a 32-bit int
        if self._prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), zero, zero, zero) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if self._syscall(ctypes.c_long(SYS_RESTRICT_SELF), ctypes.c_int(self.fd), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")


def _missing(*_args: object) -> int:
    raise OSError("no C library")
