"""
Fakes for Splendor protocol tests: the shared L{ServerHarness} with a
Splendor factory, connections speaking like the Unity client (compact
JSON, the client's gem order), and a L{Mirror} that follows the
broadcasts the way the Unity client does (deltas only) so tests can check
them against the server's game.
"""

import random

from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure

from hub.games import splendor as rules
from hub.protocols.splendor import SplendorFactory
from hub.wire import splendor as wire

from tests.harness import ServerHarness


def clientFrame(apiId, playerId, body=None):
    """
    A frame as the Unity client writes it (Newtonsoft compact JSON).
    """
    return wire.packClientFrame(apiId, playerId, body)


def operationBody(playerId, action):
    """
    The Unity client's request body for a game L{rules.Action}.

    @return: C{(apiId, body)}.
    """
    if action.kind == rules.GET_NOBLE:
        return (wire.PLAYER_GET_NOBLE,
                wire.nobleChoiceRequest(playerId, action.card))
    return wire.PLAYER_OPERATION, wire.operationRequest(
        playerId, action.kind, action.card, action.gems)


def sequenceOf(room):
    """
    The player ids of C{room}'s running table, in seat order.
    """
    return [seat.playerId for seat in room.table.seats]


class Harness:
    """
    A Splendor factory over the shared L{ServerHarness}.

    @param seed: seeds the factory's L{random.Random}.
    @param factoryOptions: more L{SplendorFactory} options (C{botDelay}
        is 1 by default).

    @ivar server: the L{ServerHarness}; C{clock}, C{hub}, C{lobby},
        C{sessions} and C{factory} are its own.
    """

    def __init__(self, seed=0, **factoryOptions):
        factoryOptions.setdefault("botDelay", 1.0)
        self.server = ServerHarness(SplendorFactory, rng=random.Random(seed),
                                    **factoryOptions)
        self.clock = self.server.clock
        self.hub = self.server.hub
        self.lobby = self.server.lobby
        self.sessions = self.server.sessions
        self.factory = self.server.factory
        self.connections = []

    def connect(self):
        """
        A new L{FakeConnection}.
        """
        conn = FakeConnection(*self.server.connect())
        self.connections.append(conn)
        return conn

    def stop(self):
        """
        Stop the hub.
        """
        return self.server.stop()

    def pendingCalls(self):
        """
        The delayed calls still on the clock.
        """
        return self.server.pendingCalls()

    def table(self, n, ready=True):
        """
        C{n} connections that sent INIT (and PLAYER_READY), read clean.
        """
        conns = [self.connect() for _ in range(n)]
        for c in conns:
            c.init()
            for other in conns:
                other.pump()
        if ready:
            for c in conns:
                c.ready()
                for other in conns:
                    other.pump()
        return conns


class FakeConnection:
    """
    One Unity-like client connection to the protocol under test.

    @ivar id: the allocated player id, once INIT_RESP came.
    @ivar received: every message received, in order.
    @ivar bursts: the messages received per read, in order.
    """

    def __init__(self, protocol, transport):
        self.protocol = protocol
        self.transport = transport
        self.reader = wire.FrameReader()
        self.id = None
        self.received = []
        self.bursts = []
        self.mirror = None

    def sendBytes(self, data, split=False):
        """
        Deliver raw bytes, at once or one byte at a time.
        """
        if split:
            for i in range(len(data)):
                self.protocol.dataReceived(data[i:i + 1])
        else:
            self.protocol.dataReceived(data)

    def send(self, apiId, playerId=None, body=None, split=False):
        """
        Deliver one message; the header id defaults to ours (0 before
        INIT_RESP).
        """
        if playerId is None:
            playerId = self.id or 0
        self.sendBytes(clientFrame(apiId, playerId, body), split)

    def init(self):
        """
        INIT, and remember the allocated id.
        """
        self.send(wire.INIT, 0)
        self.pump()

    def ready(self):
        """
        PLAYER_READY.
        """
        self.send(wire.PLAYER_READY)

    def act(self, action, split=False):
        """
        Send a game action the way the Unity client would.
        """
        apiId, body = operationBody(self.id, action)
        self.send(apiId, self.id, body, split)

    def raw(self):
        """
        Every byte the server wrote since the last call.
        """
        data = self.transport.value()
        self.transport.clear()
        return data

    def pump(self):
        """
        Read what arrived as one burst; return it as C{(apiId, playerId,
        body)} triples (body decoded, None when empty).
        """
        burst = []
        for apiId, playerId, raw in self.reader.feed(self.raw()):
            body = wire.decodeBody(raw)
            burst.append((apiId, playerId, body))
            if apiId == wire.INIT_RESP:
                self.id = body["allocated_player_id"]
            if self.mirror is not None or apiId == wire.GAME_START:
                if apiId == wire.GAME_START:
                    self.mirror = Mirror(self.id)
                self.mirror.receive(apiId, playerId, body)
        if burst:
            self.bursts.append(burst)
            self.received.extend(burst)
        return burst

    def messages(self):
        """
        Alias of L{pump}.
        """
        return self.pump()

    def drop(self):
        """
        The client's connection is lost.
        """
        self.protocol.connectionLost(Failure(ConnectionDone()))

    @property
    def closed(self):
        """
        Whether the server closed the connection.
        """
        return self.transport.disconnecting


class Mirror:
    """
    The table as a Unity client knows it: built from GAME_START and kept
    up to date with deltas only.
    """

    def __init__(self, me):
        self.me = me
        self.winner = None
        self.turn = None
        self.pendingDiscard = 0
        self.pendingNobles = ()
        self.deckSizes = [36, 26, 16]

    def receive(self, apiId, playerId, body):
        handler = getattr(self, "on%d" % (apiId,), None)
        if handler is not None:
            handler(playerId, body)

    def on4(self, header, body):
        pile = {2: 4, 3: 5}.get(body["players_number"], 7)
        self.bank = dict.fromkeys(rules.GEMS, pile)
        self.bank["golden"] = 5
        self.sequence = body["players_sequence"]
        self.nobles = list(body["nobles_info"])
        self.board = [list(body["levelOneCards_info"]),
                      list(body["levelTwoCards_info"]),
                      list(body["levelThreeCards_info"])]
        self.tokens = {p: dict.fromkeys(rules.TOKENS, 0)
                       for p in self.sequence}
        self.points = dict.fromkeys(self.sequence, 0)
        self.cards = {p: [] for p in self.sequence}
        self.reserved = {p: [] for p in self.sequence}

    def on5(self, header, body):
        self.turn = body["new_turn_player"]

    def move(self, player, colour, n):
        self.tokens[player][colour] += n
        self.bank[colour] -= n

    def on6(self, header, body):
        assert header == 0, header
        p = body["player_id"]
        kind = body["operation_type"]
        info = body["operation_info"]
        if kind == "get_gems":
            for e in info:
                self.move(p, e["gems_type"], e["gems_number"])
        elif kind == "discard_gems":
            for colour, n in info.items():
                self.move(p, colour, -n)
            if p == self.me:
                self.pendingDiscard = 0
        elif kind == "fold_card":
            self.takeFromBoard(info[0]["card_number"])
            self.reserved[p].append(info[0]["card_number"])
            self.move(p, "golden", info[1]["golden_number"])
        elif kind == "fold_card_unknown":
            self.reserved[p].append(info[0]["card_number"])
            self.deckSizes[info[0]["card_level"] - 1] -= 1
            self.move(p, "golden", info[0]["golden_number"])
        elif kind == "buy_card":
            card = info[0]["card_number"]
            for e in info[1:]:
                self.move(p, e["gems_type"], -e["gems_number"])
            level = rules.CARDS[card].level
            if card in self.board[level - 1]:
                self.takeFromBoard(card)
            elif card in self.reserved[p]:
                self.reserved[p].remove(card)
            else:
                self.reserved[p].remove(10000 + level)
            self.cards[p].append(card)
            self.points[p] += rules.CARDS[card].points
        else:
            raise AssertionError(kind)

    def takeFromBoard(self, card):
        row = self.board[rules.CARDS[card].level - 1]
        assert card in row, (card, row)
        row[row.index(card)] = 0

    def on10(self, header, body):
        card = body["card_number"]
        level = rules.CARDS[card].level
        row = self.board[level - 1]
        row[row.index(0)] = card
        self.deckSizes[level - 1] -= 1

    def on11(self, header, body):
        self.pendingDiscard = body["number_to_discard"]

    def on9(self, header, body):
        if len(body["noble_number"]) == 1:
            self.nobles.remove(body["noble_number"][0])
            self.points[body["player_id"]] += 3
            if body["player_id"] == self.me:
                self.pendingNobles = ()
        else:
            self.pendingNobles = tuple(body["noble_number"])

    def toGame(self):
        """
        A L{rules.SplendorGame} holding what this client knows, with this
        client to act: enough to list its legal actions.  Decks hold
        placeholder cards; other players' hidden reserves are
        placeholders too.
        """
        game = rules.SplendorGame(len(self.sequence), random.Random(0))
        game.bank = [self.bank[t] for t in rules.TOKENS]
        game.board = [row[:] for row in self.board]
        game.nobles = list(self.nobles)
        game.decks = [[0] * n for n in self.deckSizes]
        for seat, p in enumerate(self.sequence):
            player = game.players[seat]
            player.tokens = [self.tokens[p][t] for t in rules.TOKENS]
            player.points = self.points[p]
            player.reserved = list(self.reserved[p])
            player.purchased = list(self.cards[p])
            for card in self.cards[p]:
                player.bonuses[rules.CARDS[card].bonus] += 1
        game.currentSeat = self.sequence.index(self.me)
        if self.pendingDiscard:
            game.phase = rules.PHASE_DISCARD
            game.pendingDiscard = self.pendingDiscard
        elif self.pendingNobles:
            game.phase = rules.PHASE_NOBLE
            game.pendingNobles = self.pendingNobles
        return game

    def on12(self, header, body):
        self.winner = header

    def check(self, test, game, sequence):
        """
        Assert that this view matches the server's C{game}.
        """
        test.assertEqual(self.sequence, sequence)
        test.assertEqual([self.bank[t] for t in rules.TOKENS], game.bank)
        test.assertEqual(self.board, game.board)
        test.assertEqual(sorted(self.nobles), sorted(game.nobles))
        for seat, p in enumerate(sequence):
            player = game.players[seat]
            test.assertEqual([self.tokens[p][t] for t in rules.TOKENS],
                             player.tokens)
            test.assertEqual(self.points[p], player.points)
            test.assertEqual(self.cards[p], player.purchased)
            if p == self.me:
                test.assertEqual(self.reserved[p], player.reserved)
            else:
                test.assertEqual(len(self.reserved[p]),
                                 len(player.reserved))

