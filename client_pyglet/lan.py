"""
The hubs found on the LAN, for the start screen.

The browser is L{hub.client.discovery.HubBrowser} (DNS-SD, pyglet-free)
when this gamehub has it; the start screen only needs
L{defaultHubBrowser} and L{hubEntries}.
"""

from dataclasses import dataclass, field
from typing import Dict, Optional

from hub.client.i18n import _
from hub.client.net import parseURL


@dataclass
class HubEntry:
    """
    One hub on the LAN: a name, an address, a port per game and the
    port of its web face (None without one).
    """

    name: str
    host: str
    ports: Dict[str, int] = field(default_factory=dict)
    webPort: Optional[int] = None


def defaultHubBrowser(reactor, onChange):
    """
    Start browsing the LAN for hubs; C{onChange()} is called when the
    list changes.

    @return: the browser, or None when LAN discovery is not available.
    """
    try:
        from hub.client.discovery import HubBrowser
    except ImportError:
        return None
    browser = HubBrowser(reactor, onChange)
    start = getattr(browser, "start", None)
    if start is not None:
        start()
    return browser


def _field(obj, name, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def hubEntries(browser):
    """
    The hubs C{browser} knows now, as L{HubEntry}s sorted by name.
    """
    if browser is None:
        return []
    hubs = _field(browser, "hubs", None)
    if hubs is None:
        return []
    if callable(hubs):
        hubs = hubs()
    if isinstance(hubs, dict):
        hubs = hubs.values()
    entries = []
    for h in hubs:
        if isinstance(h, HubEntry):
            entries.append(h)
            continue
        host = (_field(h, "host") or _field(h, "address")
                or (_field(h, "addresses") or [None])[0])
        ports = dict(_field(h, "ports", None) or {})
        webPort = _field(h, "webPort")
        entries.append(HubEntry(str(_field(h, "name", host)), str(host),
                                {k: int(v) for k, v in ports.items()},
                                int(webPort) if webPort else None))
    return sorted(entries, key=lambda e: (e.name, e.host))


def parseAddress(text, game):
    """
    C{HOST:PORT}, C{HOST} or C{GAME://HOST:PORT} as C{(host, port)}, the
    port defaulting to C{game}'s usual one.

    @raise ValueError: for a malformed address.
    """
    text = text.strip()
    if not text:
        raise ValueError(_("type a server address, HOST:PORT"))
    if "://" not in text:
        text = "%s://%s" % (game, text)
    unused, host, port = parseURL(text)
    return host, port
