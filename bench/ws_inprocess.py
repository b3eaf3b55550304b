"""
The hub's own CPU per gomoku move, in process: two players over the
WebSocket (C{/ws} in the web face's site, autobahn's framing) and two
over the TCP protocol, on in-memory transports and a L{Clock}, playing
C{bench/gomoku_load.py}'s 225-move draw again and again.  No system
calls and no load generator: what is left is the hub's work for a move,
from the bytes read to the bytes written to both players.

    python bench/ws_inprocess.py --games 40
    python bench/ws_inprocess.py --games 40 --profile /tmp/ws.prof

Not a test: it prints figures (the best of C{--rounds} rounds, CPU time
of this process).
"""

import argparse
import cProfile
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from gomoku_load import SEQUENCE  # noqa: E402

from hub.protocols.gomoku import GomokuFactory  # noqa: E402
from hub.wire import gomoku as wire  # noqa: E402
from tests.harness import RecordingTransport  # noqa: E402
from tests.web.test_ws import Face, clientFrame, socketOf  # noqa: E402
from twisted.internet.address import IPv4Address  # noqa: E402


class SocketPair:
    """
    An owner (seat 0, first to move) and a guest over C{/ws}.
    """

    def __init__(self, face, index):
        self.face = face
        self.name = "w%d" % (index,)
        self.conns = []
        for role in ("owner", "guest"):
            channel, transport = face.connect(address="10.0.%d.%d" % (
                index // 250, index % 250 + 1))
            socket = socketOf(transport)
            socket.dataReceived(clientFrame(json.dumps(
                {"type": "hello", "version": 1,
                 "name": "%s%d" % (role[0], index)})))
            self.conns.append((socket, transport))
        self.send(0, {"type": "create", "kind": "gomoku", "room": self.name,
                      "seat": 0})
        self.send(1, {"type": "join", "kind": "gomoku", "room": self.name})
        # Each player's moves, framed (and masked) before any is timed.
        self.frames = [clientFrame(json.dumps(
            {"type": "act", "action": [x, y]}, separators=(",", ":")))
            for x, y in SEQUENCE]

    def send(self, who, message):
        self.conns[who][0].dataReceived(clientFrame(json.dumps(message)))

    def start(self):
        self.send(1, {"type": "ready"})
        self.send(0, {"type": "start"})
        self.clear()

    def movers(self):
        """
        C{(dataReceived, frame)} of each move of a game, in turn.
        """
        owner, guest = self.conns[0][0], self.conns[1][0]
        return [((owner if i % 2 == 0 else guest).dataReceived, frame)
                for i, frame in enumerate(self.frames)]

    def clear(self):
        for socket, transport in self.conns:
            transport.clear()
            del transport.writes[:]

    def played(self):
        """
        How many C{ActionPlayed} the guest was sent since the last clear.
        """
        return self.conns[1][1].value().count(b'"ActionPlayed"')


class TCPPair:
    """
    An owner (white, as the original client) and a guest (black, first to
    move) over gomoku's TCP protocol.
    """

    def __init__(self, face, factory, index):
        self.connect(face, factory, index)
        self.rooms()

    def connect(self, face, factory, index):
        """
        Connect the owner and the guest, and register their names.
        """
        self.name = "r%d" % (index,)
        self.conns = []
        for role in ("owner", "guest"):
            face.port += 1
            protocol = factory.buildProtocol(
                IPv4Address("TCP", "127.0.0.1", face.port))
            transport = RecordingTransport()
            protocol.makeConnection(transport)
            self.conns.append([protocol, transport, 0])
            self.send(len(self.conns) - 1, wire.regMessage(
                "t%s%d" % (role[0], index), None))

    def rooms(self):
        """
        Make the pair's room and its moves' frames.
        """
        self.send(0, wire.roomOpMessage(wire.RO_ROOM_CREATE, self.name, "",
                                        None))
        self.send(1, wire.roomOpMessage(wire.RO_ROOM_JOIN, self.name, "",
                                        None))
        self.frames = []
        for i, (x, y) in enumerate(SEQUENCE):
            conn = self.conns[1 - i % 2]
            conn[2] += 1
            self.frames.append(wire.encodeMessage(dict(
                wire.moveMessage(wire.CHESS_BLANK, x, y, None, None),
                session=conn[2])))

    def send(self, who, message):
        conn = self.conns[who]
        conn[2] += 1
        message["session"] = conn[2]
        conn[0].dataReceived(wire.encodeMessage(message))

    def start(self):
        self.send(1, wire.stateMessage(wire.PLAYER_STATE_READY, None))
        self.send(0, wire.requestMessage(wire.REQ_GAME_START, None))
        self.clear()

    def movers(self):
        guest, owner = self.conns[1][0], self.conns[0][0]
        return [((guest if i % 2 == 0 else owner).dataReceived, frame)
                for i, frame in enumerate(self.frames)]

    def clear(self):
        for protocol, transport, session in self.conns:
            transport.clear()
            del transport.writes[:]

    def played(self):
        return self.conns[0][1].value().count(b'{"chess":')


class BareAutobahn:
    """
    autobahn alone: its Twisted server protocol, with the hub's options
    and masker (put in place for the process by the web face, made
    first: C{webSite}),
    reading the WebSocket pairs' move frames into an C{onMessage} that
    does nothing (the frames' parse, unmasking and delivery: the floor
    of a WebSocket move above a TCP one, as the JSON echo is the TCP
    move's).
    """

    def __init__(self, frames):
        from autobahn.twisted.websocket import (
            WebSocketServerFactory, WebSocketServerProtocol)

        class Silent(WebSocketServerProtocol):
            def onMessage(self, payload, isBinary):
                pass

        factory = WebSocketServerFactory("ws://127.0.0.1:8080")
        factory.protocol = Silent
        factory.setProtocolOptions(
            openHandshakeTimeout=0, closeHandshakeTimeout=0,
            autoPingInterval=0, utf8validateIncoming=False)
        self.protocol = factory.buildProtocol(
            IPv4Address("TCP", "127.0.0.1", 40000))
        self.transport = RecordingTransport()
        self.protocol.makeConnection(self.transport)
        self.protocol.dataReceived(
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n")
        if b" 101 " not in self.transport.value():
            raise RuntimeError("no upgrade: %r" % (self.transport.value(),))
        self.frames = frames

    def start(self):
        self.clear()

    def movers(self):
        return [(self.protocol.dataReceived, frame) for frame in self.frames]

    def clear(self):
        self.transport.clear()

    def played(self):
        return len(self.frames)


def measure(pairs, games, profiler=None):
    """
    CPU seconds a move over C{games} games of each of C{pairs}.
    """
    spent = moves = 0
    for _ in range(games):
        for pair in pairs:
            pair.start()
            movers = pair.movers()
            if profiler is not None:
                profiler.enable()
            began = time.process_time()
            for dataReceived, frame in movers:
                dataReceived(frame)
            spent += time.process_time() - began
            if profiler is not None:
                profiler.disable()
            moves += len(movers)
            if pair.played() < len(movers) // 2:
                raise RuntimeError("the moves were not played: %r" % (
                    pair.conns[0][1].value()[-300:],))
            pair.clear()
    return spent / moves


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20,
                   help="games of each pair a round")
    p.add_argument("--pairs", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--profile", metavar="FILE",
                   help="cProfile the WebSocket moves, stats to FILE")
    options = p.parse_args(argv)
    face = Face()
    factory = GomokuFactory(face.hub.lobby, face.hub.sessions, face.clock)
    sockets = [SocketPair(face, i) for i in range(options.pairs)]
    tcps = [TCPPair(face, factory, i) for i in range(options.pairs)]
    bare = [BareAutobahn(pair.frames) for pair in sockets]
    results = {"tcp": [], "ws": [], "autobahn": []}
    for _ in range(options.rounds):
        results["tcp"].append(measure(tcps, options.games))
        results["ws"].append(measure(sockets, options.games))
        results["autobahn"].append(measure(bare, options.games))
    tcp, ws = min(results["tcp"]), min(results["ws"])
    alone = min(results["autobahn"])
    print("in process, hub CPU a move: TCP %.1f us, WebSocket %.1f us: "
          "%.2fx (rounds: TCP %s, WebSocket %s)" % (
              tcp * 1e6, ws * 1e6, ws / tcp,
              " ".join("%.1f" % (r * 1e6,) for r in results["tcp"]),
              " ".join("%.1f" % (r * 1e6,) for r in results["ws"])))
    print("autobahn alone, a move's frame read into an onMessage that does "
          "nothing: %.1f us; TCP plus that: %.2fx TCP (rounds: %s)" % (
              alone * 1e6, (tcp + alone) / tcp,
              " ".join("%.1f" % (r * 1e6,) for r in results["autobahn"])))
    if options.profile:
        profiler = cProfile.Profile()
        measure(sockets, options.games, profiler)
        profiler.dump_stats(options.profile)
    face.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
