"""
What the records tests share: a fake table that plays random games of
L{hub.games} and emits the events a real table would, a reference replay
of those events, and the two databases (SQLite, PostgreSQL) as mixins of
one set of storage test classes.
"""

import os
import random
import shutil
import tempfile
import uuid

from twisted.internet import reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SkipTest

from hub.games import checkers, gomoku, splendor
from hub.records import db
from hub.tables import events

POSTGRES_ENV = "GAMEHUB_TEST_POSTGRES"


class FakeTable:
    """
    Just enough of a table to emit events to listeners.
    """

    def __init__(self, kind, name, seats, game, clock):
        self.kind = kind
        self.name = name
        self.seats = seats
        self.game = game
        self.clock = clock
        self.listeners = []

    def emit(self, event):
        for listener in self.listeners:
            listener.tableEvent(self, event)


def newGame(kind, rng, seatCount=None):
    """
    A fresh rules object of C{kind} and its JSON-able initial position.
    """
    if kind == "gomoku":
        return gomoku.GomokuGame(), {"size": gomoku.SIZE}
    if kind == "checkers":
        count = seatCount or rng.choice((2, 3, 6))
        game = checkers.CheckersGame(count)
        return game, {"regions": "".join(game.regions)}
    game = splendor.SplendorGame(seatCount or rng.choice((2, 3, 4)),
                                 random.Random(rng.random()))
    return game, {"bank": list(game.bank), "board": [list(r) for r
                                                      in game.board],
                  "decks": [list(d) for d in game.decks],
                  "nobles": list(game.nobles)}


def restore(kind, position, seatCount):
    """
    The rules object of C{kind} at the initial C{position}.
    """
    if kind == "gomoku":
        return gomoku.GomokuGame()
    if kind == "checkers":
        return checkers.CheckersGame(regions=position["regions"])
    game = splendor.SplendorGame(seatCount, random.Random(0))
    game.bank = list(position["bank"])
    game.board = [list(r) for r in position["board"]]
    game.decks = [list(d) for d in position["decks"]]
    game.nobles = list(position["nobles"])
    return game


def referenceReplay(tableEvents):
    """
    The final rules state of the events of a fake-table game: what the
    tables' own C{replay} does for real tables.
    """
    started = tableEvents[0]
    game = restore(started.kind, started.position, len(started.seats))
    for event in tableEvents[1:]:
        if isinstance(event, events.ActionPlayed):
            game.apply(event.seat, event.action)
        elif isinstance(event, events.SeatTimedOut):
            if started.kind == "checkers":
                game.timeout()
        elif isinstance(event, events.SeatDropped):
            if started.kind == "gomoku":
                game.forfeit(event.seat)
            elif started.kind == "checkers":
                game.eliminate(event.seat)
            else:
                game.retire(event.seat)
    return game


def snapshot(kind, game):
    """
    Everything that makes a position of C{kind}, comparable with ==.
    """
    if kind == "gomoku":
        return (list(game.board), list(game.moves), game.winnerSeat,
                game.isOver)
    if kind == "checkers":
        return (bytes(game._board), list(game.finished),
                list(game.eliminated), game.currentSeat, game.isOver)
    return (list(game.bank), [list(r) for r in game.board],
            [list(d) for d in game.decks], list(game.nobles),
            [(p.tokens[:], p.bonuses[:], p.points, p.purchased[:],
              p.reserved[:], p.nobles[:]) for p in game.players],
            game.currentSeat, game.phase, game.winner, game.retired[:])


def _choose(kind, game, seat, rng):
    actions = game.legalActions(seat)
    if kind == "checkers" and rng.random() < 0.8:
        # Mostly forward, so that random games end.
        return min(actions, key=lambda path: (
            _progressAfter(game, seat, path), rng.random()))
    if kind == "splendor" and rng.random() < 0.7:
        buys = [a for a in actions if a.kind == splendor.BUY_CARD]
        if buys:
            return rng.choice(buys)
    return rng.choice(actions)


def _progressAfter(game, seat, path):
    tip = checkers.TIPS[checkers.TARGET[game.regions[seat]]]
    return (checkers.cellDistance(path[-1], tip)
            - checkers.cellDistance(path[0], tip))


def _outcome(kind, game):
    if kind == "gomoku":
        if game.winnerSeat is None:
            return events.NORMAL, (), None
        return events.NORMAL, (), game.winnerSeat
    if kind == "checkers":
        ranking = game.ranking()
        return events.NORMAL, tuple(ranking), ranking[0]
    ranking = [s for s in game.ranking() if not game.retired[s]]
    return events.NORMAL, tuple(ranking), game.winner


def playRandomGame(kind, listeners, rng, clock=None, names=None,
                   seatCount=None, table=None, maxActions=2000,
                   incidents=True):
    """
    Play one random game of C{kind} at a fake table whose C{listeners}
    hear it all; now and then a seat drops, is taken over, times out.

    @return: the fake table (its C{game} is the final state).
    """
    clock = clock if clock is not None else Clock()
    game, position = newGame(kind, rng, seatCount)
    count = game.seatCount
    if names is None:
        names = ["p{}".format(rng.randrange(50)) for _ in range(count)]
        if kind == "splendor":
            names = ["player {}".format(rng.randrange(1000))
                     for _ in range(count)]
    roles = (list(game.regions) if kind == "checkers" else
             [gomoku.BLACK, gomoku.WHITE] if kind == "gomoku" else
             [None] * count)
    seats = tuple(events.Seat(i, names[i], 100 + i, roles[i],
                              bot=rng.random() < 0.2)
                  for i in range(count))
    fake = FakeTable(kind, table or "t{}".format(rng.randrange(10 ** 6)),
                     seats, game, clock)
    fake.listeners.extend(listeners)
    fake.emit(events.GameStarted(kind, fake.name, seats, position,
                                 clock.seconds()))
    taken = set()
    reason = None
    for _ in range(maxActions):
        if game.isOver:
            break
        seat = game.currentSeat
        clock.advance(rng.random() * 3)
        roll = rng.random() if incidents else 1.0
        if roll < 0.002:
            fake.emit(events.SeatDropped(seat, clock.seconds()))
            if kind == "gomoku":
                game.forfeit(seat)
                reason = events.FORFEIT
            elif kind == "checkers":
                game.eliminate(seat)
                fake.emit(events.SeatEliminated(seat, events.FORFEIT,
                                                clock.seconds()))
            else:
                for event in game.retire(seat):
                    _dealt(fake, event, clock)
            continue
        if roll < 0.004 and kind == "checkers":
            fake.emit(events.SeatTimedOut(seat, clock.seconds()))
            game.timeout()
            fake.emit(events.SeatEliminated(seat, events.TIMEOUT,
                                            clock.seconds()))
            continue
        if roll < 0.01 and seat not in taken:
            taken.add(seat)
            fake.emit(events.SeatTakenOver(seat, 2, clock.seconds()))
        action = _choose(kind, game, seat, rng)
        detail = game.apply(seat, action)
        fake.emit(events.ActionPlayed(seat, action, seat in taken, detail,
                                      clock.seconds()))
        if kind == "splendor":
            for event in detail:
                _dealt(fake, event, clock)
    if not game.isOver:
        fake.emit(events.GameEnded(events.ABANDONED, (), None,
                                   clock.seconds()))
        return fake
    outcome = _outcome(kind, game)
    if reason is not None:
        outcome = (reason,) + outcome[1:]
    fake.emit(events.GameEnded(*outcome, at=clock.seconds()))
    return fake


def _dealt(fake, event, clock):
    if isinstance(event, splendor.NewCard):
        fake.emit(events.CardDealt(event.level, event.card, clock.seconds()))


def postgresURL():
    """
    The PostgreSQL server of the tests (C{GAMEHUB_TEST_POSTGRES}); in CI
    (C{CI=true}) its absence is an error, elsewhere a skip.
    """
    url = os.environ.get(POSTGRES_ENV)
    if url:
        return url
    if os.environ.get("CI", "").lower() == "true":
        raise RuntimeError(
            "{} is not set: CI must run the PostgreSQL tests "
            "(.ci/postgres start)".format(POSTGRES_ENV))
    raise SkipTest("{} is not set (see README: Records)".format(
        POSTGRES_ENV))


def _withOption(url, option):
    joiner = "&" if "?" in url else "?"
    return url + joiner + "options=" + option


class SQLiteMixin:
    """
    A test case's database: a fresh SQLite file.
    """

    dialectName = "sqlite"

    def databaseURL(self):
        """
        A fresh database's C{--db} URL.
        """
        folder = tempfile.mkdtemp(prefix="gamehub-records-")
        self.addCleanup(shutil.rmtree, folder, True)
        return "sqlite:" + os.path.join(folder, "gamehub.sqlite")


class PostgreSQLMixin:
    """
    A test case's database: a fresh schema of the tests' PostgreSQL
    server, dropped at cleanup.
    """

    dialectName = "postgresql"

    def databaseURL(self):
        """
        A fresh database's C{--db} URL.
        """
        base = postgresURL()
        schema = "t_" + uuid.uuid4().hex[:12]
        import psycopg
        with psycopg.connect(base, autocommit=True) as connection:
            connection.execute("CREATE SCHEMA " + schema)

        def drop():
            with psycopg.connect(base, autocommit=True) as connection:
                connection.execute("DROP SCHEMA " + schema + " CASCADE")

        self.addCleanup(drop)
        return _withOption(base, "-csearch_path%3D" + schema)


def openDatabase(testCase, url, migrateFirst=True):
    """
    A L{db.Database} on C{url} over the real reactor, closed at cleanup.
    """
    parsed = db.parseURL(url)
    if migrateFirst:
        db.prepare(parsed)
    database = db.Database(parsed, reactor)
    testCase.addCleanup(database.close)
    return database


class Collector:
    """
    A table listener that keeps every event of every table, by table.
    """

    def __init__(self):
        self.byTable = {}

    def tableEvent(self, table, event):
        self.byTable.setdefault(table, []).append(event)


def stripDetail(tableEvents):
    """
    C{tableEvents} as a record gives them back: kept types only, actions
    without their detail, times to the millisecond after the start.
    """
    from hub.records import codec
    started = tableEvents[0]
    result = [started]
    for event in tableEvents[1:]:
        if not codec.isKept(event):
            continue
        if isinstance(event, events.ActionPlayed):
            event = events.ActionPlayed(event.seat, event.action,
                                        event.byBot, None, event.at)
        result.append(event)
    return result


class Proxy:
    """
    A TCP proxy in front of the tests' PostgreSQL server, that can go
    down (refusing and cutting connections) and come back on the same
    port: a database outage without touching the server.
    """

    def __init__(self, host, port):
        from twisted.protocols.portforward import ProxyFactory
        self.factory = ProxyFactory(host, port)
        self.port = None
        self.listening = None
        self.servers = []
        buildProtocol = self.factory.buildProtocol

        def tracking(addr):
            protocol = buildProtocol(addr)
            self.servers.append(protocol)
            return protocol

        self.factory.buildProtocol = tracking

    def up(self):
        self.listening = reactor.listenTCP(self.port or 0, self.factory,
                                           interface="127.0.0.1")
        self.port = self.listening.getHost().port

    def down(self):
        for protocol in self.servers:
            if protocol.transport is not None:
                protocol.transport.abortConnection()
        self.servers = []
        return self.listening.stopListening()
