"""
Hostile players' text (markup, NUL, ESC, a right-to-left override, a lone
surrogate) in the event streams and on the pages: the streams escape
markup as the JSON API does, and the pages show every name isolated in a
C{<bdi>} with its hidden characters replaced, in the title too.
"""

import re

from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.web.text import FSI, PDI, REPLACEMENT, displayText
from tests.web.support import TIMEOUT, WebHub, openRoom

#: A room's name and players' names with markup, NUL, ESC and an
#: unclosed right-to-left override.
ROOM = "<script>alert(1)</script>\x00\x1b[31m\u202eroom"
PLAYERS = ["<img src=x onerror=alert(1)>\u202eann", "b\x00o\x1bb&"]

#: What may never appear raw on a page (as UTF-8).
HIDDEN = [b"\x00", b"\x1b", "\u202e".encode(), "\u202a".encode(),
          "\u2066".encode()]


class RawStream(protocol.Protocol):
    """
    Reads an event stream's raw bytes until C{count} frames of C{event}
    came (or the stream ends).
    """

    def __init__(self, path, event, count=1):
        self.path = path
        self.marker = b"event: " + event.encode("ascii") + b"\n"
        self.count = count
        self.received = b""
        self.done = defer.Deferred()

    def connectionMade(self):
        self.transport.write(b"GET " + self.path.encode("ascii")
                             + b" HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")

    def dataReceived(self, data):
        self.received += data
        frames = self.received.split(self.marker)[1:]
        if len([f for f in frames if b"\n\n" in f]) >= self.count:
            self.transport.abortConnection()

    def connectionLost(self, reason):
        self.done.callback(self.received)


@defer.inlineCallbacks
def rawStream(web, path, event):
    """
    The raw bytes of C{web}'s stream at C{path} up to its first C{event}
    frame (headers included).
    """
    factory = protocol.Factory.forProtocol(lambda: RawStream(path, event))
    factory.noisy = False
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                  web.port.getHost().port)
    client = yield endpoint.connect(factory)
    received = yield client.done.addTimeout(TIMEOUT, reactor)
    return received


def title(page):
    """
    The text of C{page}'s C{<title>}, as UTF-8 bytes.
    """
    return re.search(rb"<title>(.*?)</title>", page, re.S).group(1)


class StreamTests(TestCase):
    """
    The event streams escape markup as C{/api} does.
    """

    @defer.inlineCallbacks
    def test_lobbyStream(self):
        """
        C{/api/hub/events} with a room and players named with markup,
        NUL, ESC and U+202E: no raw C{<}, C{>}, C{&} or hidden character
        in the stream, and the names decode exactly.
        """
        web = WebHub(self)
        openRoom(web.hub, "gomoku", ROOM, PLAYERS)
        raw = yield rawStream(web, "/api/hub/events", "hub")
        headers, body = raw.split(b"\r\n\r\n", 1)
        self.assertIn(b"event: hub\ndata: ", body)
        for character in [b"<", b">", b"&"] + HIDDEN:
            self.assertNotIn(character, body)
        self.assertIn(b"\\u003cscript\\u003e", body)
        code, now = yield web.getJSON("/api/hub")
        [room] = now["kinds"]["gomoku"]["rooms"]
        self.assertEqual(room["name"], ROOM)
        self.assertEqual([m["name"] for m in room["members"]], PLAYERS)

    @defer.inlineCallbacks
    def test_gameStream(self):
        """
        A game's stream, whose players are named with markup, has no raw
        C{<} either.
        """
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", ROOM, PLAYERS)
        web.hub.lobby.start(room)
        game = web.web.spectating.gameOf(room.table)
        raw = yield rawStream(web, "/api/games/%s/events" % (game.id,),
                              "snapshot")
        headers, body = raw.split(b"\r\n\r\n", 1)
        self.assertIn(b"event: snapshot\ndata: ", body)
        for character in [b"<", b">", b"&"] + HIDDEN:
            self.assertNotIn(character, body)


class PageTests(TestCase):
    """
    The pages show players' text in C{<bdi>}, hidden characters replaced.
    """

    @defer.inlineCallbacks
    def test_lobbyPage(self):
        """
        The lobby with a hostile room and players: no raw markup, NUL,
        ESC or U+202E in the page, and each name in a C{<bdi>}, its hidden
        characters replaced by U+FFFD.
        """
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", ROOM, PLAYERS)
        code, headers, page = yield web.get("/")
        self.assertEqual(code, 200)
        for character in HIDDEN:
            self.assertNotIn(character, page)
        self.assertNotIn(b"<script>alert", page)
        self.assertNotIn(b"<img", page)
        self.assertIn(("<bdi>&lt;script&gt;alert(1)&lt;/script&gt;"
                       "\ufffd\ufffd[31m\ufffdroom</bdi>").encode(), page)
        self.assertIn(("<bdi>&lt;img src=x onerror=alert(1)&gt;\ufffdann"
                       "</bdi>").encode(), page)
        self.assertIn("<bdi>b\ufffdo\ufffdb&amp;</bdi>".encode(), page)

    @defer.inlineCallbacks
    def test_gamePage(self):
        """
        A game of hostile players: its title isolates each name with
        U+2068 ... U+2069, and neither title nor page has raw hidden
        characters; the heading and the table's name are in C{<bdi>}s.
        """
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", ROOM, PLAYERS)
        web.hub.lobby.start(room)
        game = web.web.spectating.gameOf(room.table)
        code, headers, page = yield web.get("/games/" + game.id)
        self.assertEqual(code, 200)
        for character in HIDDEN:
            self.assertNotIn(character, page)
        self.assertNotIn(b"<img", page)
        self.assertEqual(title(page).decode("utf-8"), (
            "gomoku: " + FSI + "&lt;img src=x onerror=alert(1)&gt;\ufffdann"
            + PDI + " vs " + FSI + "b\ufffdo\ufffdb&amp;" + PDI
            + " - gamehub"))
        self.assertIn(("<h1>gomoku: <bdi>&lt;img src=x onerror=alert(1)&gt;"
                       "\ufffdann</bdi> vs <bdi>b\ufffdo\ufffdb&amp;</bdi>"
                       "</h1>").encode(), page)
        self.assertIn(b"<b><bdi>&lt;script&gt;", page)

    @defer.inlineCallbacks
    def test_loneSurrogate(self):
        """
        A name with a lone surrogate (a gomoku client may send one, in
        JSON) is shown as U+FFFD; the lobby page still renders.
        """
        web = WebHub(self)
        openRoom(web.hub, "gomoku", "room \ud800", ["ann \udfff"])
        code, headers, page = yield web.get("/")
        self.assertEqual(code, 200)
        self.assertIn("<bdi>room \ufffd</bdi>".encode(), page)
        self.assertIn("<bdi>ann \ufffd</bdi>".encode(), page)


class DisplayTextTests(SynchronousTestCase):
    """
    L{displayText}.
    """

    def test_replaced(self):
        """
        C0 and C1 controls, DEL, bidi embeddings, overrides and isolates
        and lone surrogates become U+FFFD; the rest is kept.
        """
        hidden = ("\x00\x09\x0a\x1b\x1f\x7f\x80\x9f\u202a\u202b\u202c"
                  "\u202d\u202e\u2066\u2067\u2068\u2069\ud800\udfff")
        self.assertEqual(displayText("a" + hidden + "b"),
                         "a" + REPLACEMENT * len(hidden) + "b")
        kept = "ann é 中文 עברית <b>&amp; \u200f \U0001f600"
        self.assertEqual(displayText(kept), kept)
        self.assertIsNone(displayText(None))
