"""Provides `refusal`: why a fetch may not reach an address (private, loopback, link-local...), or None.

A page on the web may redirect or resolve to the machine itself, the local network or the cloud's metadata
service (169.254.169.254); a model fetching it would read what only this machine may read (SSRF). Only
globally routable addresses are reached, unless `[web] allow_private` names the host or the address range.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from fnmatch import fnmatchcase

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def kind_of(address: Address) -> str | None:
    """What makes `address` non-public, in words; None for a globally routable one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return kind_of(address.ipv4_mapped)  # ::ffff:127.0.0.1 is 127.0.0.1
    checks = (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("private", address.is_private),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
    )
    named = next((name for name, hit in checks if hit), None)
    return named or (None if address.is_global else "non-public")


def allowed_by(allow: Sequence[str], host: str, address: Address) -> bool:
    """Whether `[web] allow_private` lets `host` at `address` through: an entry is a host pattern
    (`intranet.example`, `*.corp`), an address or a range (`127.0.0.1`, `10.0.0.0/8`)."""
    for entry in allow:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            if fnmatchcase(host.lower(), entry.lower()):
                return True
    return False


def refusal(host: str, address: Address, allow: Sequence[str]) -> str | None:
    """Why `host` resolving to `address` may not be fetched, or None when it may."""
    kind = kind_of(address)
    if kind is None or allowed_by(allow, host, address):
        return None
    return (
        f"{host} is at a {kind} address ({address}); web_fetch reaches only public addresses "
        f'(allow it with `[web] allow_private = ["{host}"]`)'
    )
