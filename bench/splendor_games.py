"""
Splendor benchmark: whole random games, pure and through the protocol.

    python bench/splendor_games.py [--quick]

Prints, for 2, 3 and 4 players:
  - simulated games per second: L{SplendorGame} alone, every action chosen
    uniformly from C{legalActions} (which lists every payment and every
    discard, so random play buys often and games end);
  - the mean cost of one C{legalActions} call in those games;
  - games per second through L{SplendorFactory} on L{StringTransport}:
    INIT, PLAYER_READY, then the same random play sent as Unity-shaped
    frames, every broadcast written and read back by the fake clients.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from twisted.internet.address import IPv4Address  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from hub.games import splendor as rules  # noqa: E402
from hub.lobby import Lobby  # noqa: E402
from hub.protocols.splendor import SplendorFactory  # noqa: E402
from hub.sessions import Sessions  # noqa: E402
from hub.wire import splendor as wire  # noqa: E402


def simulate(seats, games, seed=0):
    """
    Play C{games} random games.

    @return: C{(seconds, actions, legalSeconds, legalCalls)}.
    """
    rng = random.Random(seed)
    actions = legalCalls = 0
    legalSeconds = 0.0
    start = time.perf_counter()
    for _ in range(games):
        game = rules.SplendorGame(seats, random.Random(rng.random()))
        while not game.isOver:
            seat = game.currentSeat
            t = time.perf_counter()
            legal = game.legalActions(seat)
            legalSeconds += time.perf_counter() - t
            legalCalls += 1
            game.apply(seat, rng.choice(legal))
            actions += 1
    return time.perf_counter() - start, actions, legalSeconds, legalCalls


def clientFrame(apiId, playerId, body=None):
    return wire.packClientFrame(apiId, playerId, body)


def request(playerId, action):
    """
    The Unity client's frame for C{action}.
    """
    if action.kind == rules.GET_NOBLE:
        return clientFrame(wire.PLAYER_GET_NOBLE, playerId,
                           wire.nobleChoiceRequest(playerId, action.card))
    return clientFrame(wire.PLAYER_OPERATION, playerId,
                       wire.operationRequest(playerId, action.kind,
                                             action.card, action.gems))


def throughProtocol(seats, games, seed=0):
    """
    Play C{games} random games through the protocol.

    @return: C{(seconds, actions, bytesSent)}.
    """
    rng = random.Random(seed)
    clock = Clock()
    lobby = Lobby()
    sessions = Sessions(clock)
    factory = SplendorFactory(lobby, sessions, clock,
                              rng=random.Random(seed))
    actions = sent = 0
    start = time.perf_counter()
    for _ in range(games):
        conns = []
        for i in range(seats):
            proto = factory.buildProtocol(
                IPv4Address("TCP", "127.0.0.1", 40000 + i))
            transport = StringTransport()
            proto.makeConnection(transport)
            proto.dataReceived(clientFrame(wire.INIT, 0))
            conns.append((proto, transport, wire.FrameReader()))
        for proto, _, _ in conns:
            proto.dataReceived(clientFrame(wire.PLAYER_READY,
                                           proto.session.id))
        room = lobby.roomOf(conns[0][0].session)
        game = room.game
        byId = {p.session.id: p for p, _, _ in conns}
        sequence = [seat.playerId for seat in room.table.seats]
        while not game.isOver:
            seat = game.currentSeat
            action = rng.choice(game.legalActions(seat))
            byId[sequence[seat]].dataReceived(
                request(sequence[seat], action))
            actions += 1
            for _, transport, reader in conns:
                data = transport.value()
                transport.clear()
                sent += len(data)
                for _, _, raw in reader.feed(data):
                    wire.decodeBody(raw)
        for proto, transport, _ in conns:
            transport.loseConnection()
            proto.connectionLost(None)
    return time.perf_counter() - start, actions, sent


def main(argv):
    quick = "--quick" in argv
    games = 20 if quick else 200
    protoGames = 10 if quick else 100
    print("Splendor, CPython %s" % (sys.version.split()[0],))
    for seats in (2, 3, 4):
        seconds, actions, legalSeconds, calls = simulate(seats, games)
        print("%d players, pure rules: %.0f games/s (%d games, %.0f "
              "actions/game, %.0f actions/s); legalActions %.1f us mean"
              % (seats, games / seconds, games, actions / games,
                 actions / seconds, legalSeconds / calls * 1e6))
    for seats in (2, 3, 4):
        seconds, actions, sent = throughProtocol(seats, protoGames)
        print("%d players, protocol on StringTransport: %.0f games/s "
              "(%d games, %.0f actions/game, %.0f messages handled/s, "
              "%.0f KB sent/game)"
              % (seats, protoGames / seconds, protoGames,
                 actions / protoGames, actions / seconds,
                 sent / protoGames / 1000.0))


if __name__ == "__main__":
    main(sys.argv[1:])
