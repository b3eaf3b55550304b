"""
What the browser-play tests share: a hub on a L{Clock} with the three
legacy factories and a L{WebPlay} over them, in-memory browser
connections, and legacy connections on L{RecordingTransport}s.
"""

import json

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock

from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.service import Hub
from hub.tables.base import EventRecorder
from hub.web.live import HEARS, Spectating
from hub.web.play import PROTOCOL_VERSION, WebPlay, encodeAction, makeGames
from tests.harness import RecordingTransport


class Browser:
    """
    A browser's connection, in memory: what it is sent, decoded.

    @ivar messages: every message received, in order.
    """

    player = None
    visitor = None
    transport = None

    def __init__(self, play, host=None):
        self.play = play
        self.messages = []
        self.closed = False
        #: The client's address, as a trusted proxy says it (None: none).
        self.forwardedFor = host

    def peerAddress(self):
        # As the WebSocket's: the address a proxy forwarded, else the
        # transport's peer.
        if self.forwardedFor or self.transport is None:
            return self.forwardedFor
        return self.transport.getPeer().host

    def sendText(self, text):
        self.messages.append(json.loads(text))

    def close(self):
        self.closed = True

    def send(self, message):
        """
        Send C{message} (a dict) as the browser would.
        """
        self.play.received(self, json.dumps(message))

    def hello(self, name, resume=None):
        message = {"type": "hello", "version": PROTOCOL_VERSION}
        if name is not None:
            message["name"] = name
        if resume is not None:
            message["resume"] = resume
        self.send(message)
        return self.last("welcome")

    def drop(self):
        self.play.connectionLost(self)

    def of(self, type, event=None):
        """
        The messages of C{type} (and table C{event}), in order.
        """
        return [m for m in self.messages if m["type"] == type
                and (event is None or m.get("event") == event)]

    def last(self, type, event=None):
        found = self.of(type, event)
        return found[-1] if found else None

    def errors(self):
        return [m["code"] for m in self.of("error")]

    def clear(self):
        del self.messages[:]


class HubNowFeed:
    """
    A lobby feed (as L{hub.web.now.LobbyFeed}) built anew on each request
    (the web face's caches a second) from a L{PlayHub}.
    """

    def __init__(self, hub):
        self.hub = hub

    def now(self):
        from hub.web.live import Spectating
        from hub.web.now import hubNow
        return hubNow(self.hub.lobby, self.hub.sessions,
                      Spectating(self.hub.hub.clock))

    def encoded(self, encode):
        return encode(self.now())


def playGames(factories):
    """
    Browser play's game modules over the legacy C{factories} (by kind),
    as the composition root makes them (L{hub.tap.playGames}).
    """
    return makeGames({kind: factory.policy
                      for kind, factory in factories.items()},
                     factories["splendor"].seats)


class PlayHub:
    """
    A hub on a L{Clock} with the three legacy factories and browser play.

    @param director: called with the hub (once its factories are made),
        returns the tournament director browser play seats entrants for,
        or None.
    @param lobbyFeed: called with the hub, returns the lobby feed of the
        C{lobby} message, or None.
    """

    def __init__(self, checkersSizes=(2, 3, 6), graceSeconds=30,
                 takeover=None, botDelay=0.5, turnSeconds=15, names=None,
                 botLevel=2, directory=None, spectating=False,
                 director=None, lobbyFeed=None, thinker=None,
                 shares=None):
        self.clock = Clock()
        self.clock.advance(1000)
        self.hub = Hub(self.clock, graceSeconds=graceSeconds)
        self.hub.startService()
        self.lobby, self.sessions = self.hub.lobby, self.hub.sessions
        bots = {"takeover": takeover, "botDelay": botDelay,
                "botLevel": botLevel, "thinker": thinker}
        clock = self.hub.clock
        self.factories = {
            "gomoku": GomokuFactory(self.lobby, self.sessions, clock,
                                    **bots),
            "checkers": CheckersFactory(self.lobby, self.sessions, clock,
                                        sizes=checkersSizes,
                                        turnSeconds=turnSeconds, **bots),
            "splendor": SplendorFactory(self.lobby, self.sessions, clock,
                                        **bots),
        }
        self.recorder = EventRecorder()
        self.lobby.addTableListener(self.recorder)
        if names is not None:
            # A name service (hub.accounts.check) of this hub's sessions.
            names = names(self.clock, self.sessions)
        self.names = names
        self.spectating = None
        if spectating:
            # The web face's feed of every game (hub.web.live).
            self.spectating = Spectating(clock)
            self.lobby.addTableListener(self.spectating, hears=HEARS)
        self.director = director(self) if director is not None else None
        self.play = WebPlay(self.lobby, self.sessions, clock,
                            playGames(self.factories),
                            lobbyFeed(self) if lobbyFeed else None,
                            names=names, directory=directory,
                            spectating=self.spectating,
                            pairings=self.director, thinker=thinker,
                            shares=shares)
        if self.director is not None:
            self.director.addListener(self.play)
        self._port = 41000

    def browser(self, name=None, host=None):
        browser = Browser(self.play, host)
        if name is not None:
            browser.hello(name)
        return browser

    def legacy(self, kind):
        """
        A legacy connection of C{kind}: C{(protocol, transport)}.
        """
        self._port += 1
        protocol = self.factories[kind].buildProtocol(
            IPv4Address("TCP", "127.0.0.1", self._port))
        transport = RecordingTransport()
        protocol.makeConnection(transport)
        return protocol, transport

    def stop(self):
        self.play.stop()
        if self.spectating is not None:
            self.spectating.stop()
        return self.hub.stopService()


def playTurns(hub, browsers, limit=5000):
    """
    Advance the clock and have each browser play the first legal action
    whenever it is its turn, until the tables are over (or C{limit}
    steps).
    """
    for _ in range(limit):
        moved = False
        for browser in browsers:
            player = browser.player
            table = player.table if player is not None else None
            if table is None or table.over:
                continue
            if table.game.currentSeat == player.seat:
                legal = table.game.legalActions(player.seat)
                if legal:
                    browser.send({"type": "act", "action": encodeAction(
                        table.kind, legal[0])})
                    moved = True
        if not moved:
            if not hub.clock.getDelayedCalls():
                if all(b.player is None or b.player.table is None
                       for b in browsers):
                    return
            hub.clock.advance(0.5)

