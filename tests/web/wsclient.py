"""
A browser-protocol client for tests and benchmarks: autobahn's Twisted
WebSocket client speaking L{hub.web.play}'s JSON, with bounded waits.
"""

import json

from autobahn.twisted.websocket import (
    WebSocketClientFactory, WebSocketClientProtocol, connectWS)
from twisted.internet import defer

TIMEOUT = 30


class PlayClientProtocol(WebSocketClientProtocol):
    """
    Hands each message to the factory's L{PlayClient}.
    """

    def onOpen(self):
        self.factory.client._opened(self)

    def onMessage(self, payload, isBinary):
        self.factory.client._received(json.loads(payload.decode("utf-8")))

    def onClose(self, wasClean, code, reason):
        self.factory.client._closed(code)


class PlayClient:
    """
    One browser-protocol connection.

    @ivar messages: every message received, in order.
    @ivar autoPlay: when true, the first legal action is played at once
        on each of our turns; when C{"hint"}, the hub's hint is.
    """

    def __init__(self, reactor, url, origin=None, headers=None):
        self.reactor = reactor
        self.messages = []
        self.protocol = None
        self.closeCode = None
        self.autoPlay = False
        self._waiters = []
        self._opened_d = defer.Deferred()
        self.closed = defer.Deferred()
        factory = WebSocketClientFactory(url, origin=origin,
                                         headers=headers, reactor=reactor)
        factory.protocol = PlayClientProtocol
        factory.client = self
        factory.setProtocolOptions(openHandshakeTimeout=0,
                                   closeHandshakeTimeout=0,
                                   serverConnectionDropTimeout=0)
        self.connector = connectWS(factory)

    def opened(self):
        """
        A Deferred firing once the WebSocket is open (failing with the
        close code if it is refused).
        """
        return self._opened_d

    def _opened(self, protocol):
        self.protocol = protocol
        self._opened_d.callback(self)

    def _closed(self, code):
        self.closeCode = code
        if not self._opened_d.called:
            self._opened_d.errback(ConnectionError(code))
        if not self.closed.called:
            self.closed.callback(code)

    def _received(self, message):
        self.messages.append(message)
        if (self.autoPlay and message.get("event") in (
                "TurnStarted", "DiscardRequired", "NobleOffered")
                and message.get("legal")):
            if self.autoPlay == "hint":
                self.send({"type": "hint"})
            else:
                self.send({"type": "act", "action": message["legal"][0]})
        elif self.autoPlay == "hint" and message["type"] == "hint":
            self.send({"type": "act", "action": message["action"]})
        for waiter in list(self._waiters):
            predicate, d, call = waiter
            if predicate(message):
                self._waiters.remove(waiter)
                call.cancel()
                d.callback(message)

    def send(self, message):
        self.protocol.sendMessage(json.dumps(message).encode("utf-8"))

    def waitFor(self, predicate, timeout=TIMEOUT, seen=True):
        """
        A Deferred of the first message (already received, if C{seen})
        for which C{predicate} is true, failing after C{timeout}.
        """
        if seen:
            for message in self.messages:
                if predicate(message):
                    return defer.succeed(message)
        d = defer.Deferred()

        def expire():
            self._waiters.remove(waiter)
            d.errback(AssertionError("no such message in {}s: {}".format(
                timeout, self.messages[-5:])))
        call = self.reactor.callLater(timeout, expire)
        waiter = (predicate, d, call)
        self._waiters.append(waiter)
        return d

    def waitType(self, type, event=None, **kwargs):
        return self.waitFor(lambda m: m["type"] == type and (
            event is None or m.get("event") == event), **kwargs)

    def close(self):
        if self.protocol is not None:
            self.protocol.dropConnection(abort=True)
        else:
            self.connector.disconnect()
        return self.closed


@defer.inlineCallbacks
def welcomed(testCase, reactor, server, name):
    """
    A L{PlayClient} of the web port of C{server} (a
    L{tests.endtoend.GamehubServer}), from the hub's own origin, that said
    C{hello} as C{name} and was welcomed; closed at C{testCase}'s cleanup.
    """
    web = server.port("web")
    client = PlayClient(reactor, "ws://127.0.0.1:{}/ws".format(web),
                        origin="http://127.0.0.1:{}".format(web))
    testCase.addCleanup(client.close)
    yield client.opened()
    client.send({"type": "hello", "version": 1, "name": name})
    yield client.waitType("welcome")
    return client
