"""Who a connection belongs to, and how many connections each client may hold.

A client is an address: an IPv4 address, or the /64 an IPv6 address is in (one host usually
has a whole /64). Behind a proxy listed in DIDAX_FORWARDED_ALLOW_IPS, uvicorn has already put
the X-Forwarded-For client into the connection's scope. The per-client limit on kernels held at
once lives in the KernelManager; this module limits connections (per client and in total).

Imports: the standard library only.
"""

from __future__ import annotations

import ipaddress
from collections import Counter


def client_key(host: str | None) -> str:
    """The client an address belongs to: the IPv4 address, or its IPv6 /64."""
    if not host:
        return "unknown"
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


class ConnectionLimiter:
    """Counts open connections per client; `admit` refuses beyond the limits."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client, self.total = per_client, total
        self._open: Counter[str] = Counter()

    def admit(self, client: str) -> str | None:
        """Count one more connection of `client`, or say why it is refused (not counted)."""
        if sum(self._open.values()) >= self.total:
            return f"the server has its maximum of {self.total} connections"
        if self._open[client] >= self.per_client:
            return f"at most {self.per_client} connections per client address"
        self._open[client] += 1
        return None

    def leave(self, client: str) -> None:
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]

    def count(self, client: str | None = None) -> int:
        return sum(self._open.values()) if client is None else self._open[client]
