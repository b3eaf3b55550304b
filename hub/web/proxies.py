"""
Who the client of a web request is, behind a reverse proxy.

A request whose TCP peer is one of the C{--trusted-proxies} comes from
the client the proxy names: the right-most address of
C{X-Forwarded-For} (else of the C{for=} values of C{Forwarded}) that is
not itself a trusted proxy, and the scheme of C{X-Forwarded-Proto} (else
the C{proto=} of that C{Forwarded} element).  From any other peer these
headers are ignored: the peer is the client.  L{hub.web.errors.
HubRequest} asks L{ClientResolver} once per request, and everything
that uses an address reads it from there (docs/deploy.md, "Behind a
proxy").
"""

from __future__ import annotations

import ipaddress
from typing import Any, Sequence

import attr

#: What C{--health-from} allows by default: loopback and the private
#: ranges (an orchestrator's probes come from there).
PRIVATE_RANGES = ("127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12",
                  "192.168.0.0/16", "fc00::/7", "fe80::/10")


def parseAddress(text: str) -> Any:
    """
    The L{ipaddress} address of C{text}, or None: an IPv4 or IPv6
    address, optionally with a port (C{192.0.2.1:80}, C{[2001:db8::1]:80})
    and in quotes; an IPv4-mapped IPv6 address is its IPv4 one.
    """
    text = text.strip().strip('"').strip()
    if text.startswith("["):
        text, bracket, _ = text[1:].partition("]")
        if not bracket:
            return None
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address


class Networks:
    """
    A set of address ranges (CIDRs), such as C{--trusted-proxies} or
    C{--health-from}.

    @param cidrs: the ranges, as text (an address alone is its own
        range).
    @raise ValueError: one is no address or range.
    """

    def __init__(self, cidrs: Sequence[Any] = ()) -> None:
        self.networks = tuple(ipaddress.ip_network(c.strip(), strict=False)
                              for c in cidrs)

    @classmethod
    def fromOption(cls, value: Any) -> Any:
        """
        The ranges of a comma-separated option's C{value} (empty or
        C{none}: none).

        @raise ValueError: with the part that is not a range.
        """
        parts = [p.strip() for p in (value or "").split(",") if p.strip()]
        if parts == ["none"]:
            parts = []
        for part in parts:
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError("{!r} is not an address or CIDR".format(
                    part[:60]))
        return cls(parts)

    def __bool__(self) -> Any:
        return bool(self.networks)

    def contains(self, host: Any) -> Any:
        """
        Whether the address C{host} (text, an L{ipaddress} address, or
        None) is in one of the ranges.
        """
        if not self.networks or host is None:
            return False
        address = host if not isinstance(host, str) else parseAddress(host)
        if address is None:
            return False
        return any(address in network for network in self.networks)


@attr.s(frozen=True)
class Client:
    """
    The client of a request.

    @ivar host: its address (text), or None when the peer has none.
    @ivar secure: True or False when a trusted proxy said which scheme
        the client used, else None (the connection's own says).
    """

    host = attr.ib()
    secure = attr.ib(default=None)


def _headerValues(headers: Any, name: bytes) -> Any:
    values = headers.getRawHeaders(name) or ()
    return ",".join(v.decode("latin-1") for v in values)


def forwardedElements(value: Any) -> Any:
    """
    The C{(for, proto)} of each element of a C{Forwarded} header's
    C{value} (RFC 7239), in order; missing parts are None.
    """
    elements = []
    for element in value.split(","):
        found = {}
        for pair in element.split(";"):
            name, sep, text = pair.partition("=")
            if sep:
                found[name.strip().lower()] = text.strip().strip('"')
        if found:
            elements.append((found.get("for"), found.get("proto")))
    return elements


class ClientResolver:
    """
    Finds the client of a request from its TCP peer and its headers.

    @param proxies: the trusted proxies (L{Networks}).
    """

    def __init__(self, proxies: Any = None) -> None:
        self.proxies = proxies if proxies is not None else Networks()

    def trusts(self, host: Any) -> Any:
        """
        Whether the peer C{host} (text or None) is a trusted proxy.
        """
        return self.proxies.contains(host)

    def client(self, peerHost: Any, headers: Any) -> Any:
        """
        The L{Client} of a request from the TCP peer C{peerHost} with the
        L{twisted.web.http_headers.Headers} C{headers}.
        """
        if not self.trusts(peerHost):
            return Client(peerHost)
        chain = _headerValues(headers, b"x-forwarded-for")
        if chain.strip():
            hops = [(part, None) for part in chain.split(",")]
        else:
            hops = forwardedElements(_headerValues(headers, b"forwarded"))
        proto = _headerValues(headers, b"x-forwarded-proto")
        protos = [p.strip() for p in proto.split(",") if p.strip()]
        scheme = protos[-1] if protos else None
        host = peerHost
        for hop, hopProto in reversed(hops):
            address = parseAddress(hop or "")
            if address is None:
                # An unknown or obfuscated hop: nothing left of it is
                # believed; the client is the last trusted one's.
                break
            host = str(address)
            if hopProto is not None and not protos:
                scheme = hopProto
            if not self.proxies.contains(address):
                break
        secure = None
        if scheme is not None:
            secure = scheme.strip().lower() == "https"
        return Client(host, secure)
