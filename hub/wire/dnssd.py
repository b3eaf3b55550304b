"""
How a hub describes itself on the LAN with DNS-SD: the service type and
the properties of its TXT record.

A hub is one service instance of type L{SERVICE_TYPE}.  Its TXT record
holds C{txtvers=1}, C{games} (the served game kinds, comma-separated, in
L{GAMES} order), one C{<kind>=<port>} per served game, and C{web=<port>}
when the hub serves its web pages.

Pure: no Twisted, no zeroconf.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, NamedTuple, Optional, Tuple, Union

#: The DNS-SD service type of a hub, fully qualified.
SERVICE_TYPE = "_gamehub._tcp.local."

#: The game kinds a hub may serve, in the order the TXT record lists them.
GAMES = ("checkers", "gomoku", "splendor")

#: The TXT key of the web port.
WEB = "web"

#: The version of this TXT layout.
TXT_VERSION = "1"


class HubRecord(NamedTuple):
    """
    What a hub's TXT record says.

    @ivar ports: game kind -> TCP port, for each game the hub serves.
    @ivar webPort: the port of its web pages, or None.
    """

    ports: Dict[str, int]
    webPort: Optional[int]


def encodeProperties(ports: Mapping[str, int],
                     webPort: Optional[int] = None) -> Dict[str, str]:
    """
    The TXT properties of a hub serving C{ports} (game kind -> port).

    @raise ValueError: an unknown game kind or a port out of range.
    """
    properties = {"txtvers": TXT_VERSION}
    games = []
    for kind in GAMES:
        if kind in ports:
            properties[kind] = str(_checkedPort(ports[kind]))
            games.append(kind)
    unknown = set(ports) - set(GAMES)
    if unknown:
        raise ValueError("unknown games %r" % (sorted(unknown),))
    properties["games"] = ",".join(games)
    if webPort is not None:
        properties[WEB] = str(_checkedPort(webPort))
    return properties


def _checkedPort(port: int) -> int:
    if not isinstance(port, int) or not 0 < port < 65536:
        raise ValueError("bad port %r" % (port,))
    return port


def _text(value: Union[bytes, str, None]) -> Optional[str]:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def _port(value: Optional[str]) -> Optional[int]:
    if value is None or not value.strip().isdigit():
        return None
    port = int(value)
    return port if 0 < port < 65536 else None


def decodeProperties(
        properties: Mapping[Any, Union[bytes, str, None]]) -> HubRecord:
    """
    The L{HubRecord} of TXT C{properties} (keys and values as bytes or
    str, as zeroconf gives them).  Unknown keys, games without a valid
    port and a bad web port are left out; nothing raises.
    """
    text = {_text(k): _text(v) for k, v in properties.items()}
    listed: Tuple[str, ...] = tuple(
        g.strip() for g in (text.get("games") or "").split(","))
    ports = {}
    for kind in GAMES:
        port = _port(text.get(kind))
        if kind in listed and port is not None:
            ports[kind] = port
    return HubRecord(ports, _port(text.get(WEB)))


__all__ = ["SERVICE_TYPE", "GAMES", "WEB", "HubRecord", "encodeProperties",
           "decodeProperties"]
