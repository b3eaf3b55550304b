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

from hub.bots import botFor
from hub.games import checkers, gomoku, splendor
from hub.records import db
from hub.records.recorder import Recorder
from hub.tables import checkers as checkersTable
from hub.tables import events
from hub.tables import gomoku as gomokuTable
from hub.tables import splendor as splendorTable
from hub.tables.base import IllegalAction, TableOptions

POSTGRES_ENV = "GAMEHUB_TEST_POSTGRES"


TURN_SECONDS = 30.0
TURN_GRACE = 1.0
BOT_DELAY = 0.5
# The chance, per turn, of each incident (when incidents are on).
DROP = 0.003
TAKEOVER = 0.003
TIMEOUT = 0.004
ILLEGAL_BURST = 0.003
LOST_AND_BACK = 0.003
# The chance that a Splendor seat with a discard or a noble choice to make
# leaves instead.
DROP_PENDING = 0.03
MAX_ACTIONS = 500


def newTable(kind, name, seats, clock, options, rng):
    """
    A real table of C{kind} (L{hub.tables}) for C{seats}, not started.
    """
    if kind == "gomoku":
        return gomokuTable.GomokuTable(name, seats, clock, options)
    if kind == "checkers":
        return checkersTable.CheckersTable(
            name, seats, checkers.CheckersGame(len(seats)), clock, options)
    game = splendor.SplendorGame(len(seats),
                                 random.Random(rng.getrandbits(64)))
    return splendorTable.SplendorTable(name, seats, game, clock, options,
                                       random.Random(rng.getrandbits(32)))


def newSeats(kind, rng, names=None, seatCount=None, guests=()):
    """
    The L{events.Seat}s of a random game of C{kind}: one in five a bot
    client; the names in C{guests} are guests'.
    """
    if seatCount is None:
        seatCount = {"gomoku": 2, "checkers": rng.choice((2, 3, 6)),
                     "splendor": rng.choice((2, 3, 4))}[kind]
    if kind == "splendor":
        ids = rng.sample(range(1, 1000), seatCount)
        if names is None:
            names = [splendorTable.seatName(i) for i in ids]
    else:
        ids = [100 + seat for seat in range(seatCount)]
        if names is None:
            names = ["p{}".format(rng.randrange(50))
                     for _ in range(seatCount)]
    if kind == "gomoku":
        roles = [gomoku.colourOfSeat(seat) for seat in range(seatCount)]
    elif kind == "checkers":
        roles = list(checkers.CheckersGame(seatCount).regions)
    else:
        roles = [None] * seatCount
    return tuple(events.Seat(seat, names[seat], ids[seat], roles[seat],
                             bot=rng.random() < 0.2,
                             guest=names[seat] in guests)
                 for seat in range(seatCount))


def tableOptions(kind, takeover):
    """
    The options of the tables of random games: level-1 takeover bots,
    checkers' turn clock, gomoku's illegal-move limit.
    """
    return TableOptions(
        turnSeconds=TURN_SECONDS if kind == "checkers" else None,
        turnGrace=TURN_GRACE, takeover=takeover, botLevel=1,
        botDelay=BOT_DELAY,
        maxIllegal=gomoku.MAX_ILLEGAL_MOVES if kind == "gomoku" else None)


#: The distance of every checkers cell from each tip of the star, for
#: L{RandomPlayers}' forward steps (a look-up, not a computation, per
#: legal path: the random games' time was mostly this).
TIP_DISTANCES = {tip: {cell: checkers.cellDistance(cell, tip)
                       for cell in checkers.CELLS}
                 for tip in checkers.TIPS.values()}


class RandomPlayers:
    """
    The players of one random game: a level-1 bot's choices, except that
    checkers players mostly step forward and Splendor players mostly buy,
    so that games end.
    """

    def __init__(self, kind, rng):
        self.kind = kind
        self.rng = rng
        self.bot = botFor(kind, 1, seed=rng.getrandbits(32))

    def choose(self, game, seat):
        """
        The action of C{seat}, or None if it has none.
        """
        actions = game.legalActions(seat)
        if not actions:
            return None
        rng = self.rng
        if self.kind == "checkers" and rng.random() < 0.8:
            distance = TIP_DISTANCES[
                checkers.TIPS[checkers.TARGET[game.regions[seat]]]]
            return min(actions, key=lambda path: (
                distance[path[-1]] - distance[path[0]], rng.random()))
        if self.kind == "splendor" and rng.random() < 0.7:
            buys = [a for a in actions if a.kind == splendor.BUY_CARD]
            if buys:
                return rng.choice(buys)
        return self.bot.chooseAction(game, seat)


def playRandomGame(kind, listeners, rng, clock=None, names=None,
                   seatCount=None, table=None, maxActions=MAX_ACTIONS,
                   incidents=True, takeover=None, guests=()):
    """
    Play one random game of C{kind} at a real table (L{hub.tables}) whose
    C{listeners} hear it all.  With C{incidents}, now and then a seat
    drops, is taken over by a level-1 bot, times out (checkers), is lost
    and comes back, or plays illegal moves (gomoku).

    @param takeover: the tables' C{takeover} option; by default C{"bot"}
        for half of the games with incidents.
    @param maxActions: how many actions before the game is abandoned (the
        checkers bots of level 1 may never end a game).
    @return: the table (its C{game} is the final state).
    """
    clock = clock if clock is not None else Clock()
    seats = newSeats(kind, rng, names, seatCount, guests)
    if takeover is None and incidents and rng.random() < 0.5:
        takeover = "bot"
    name = table or "t{}".format(rng.randrange(10 ** 6))
    playing = newTable(kind, name, seats, clock,
                       tableOptions(kind, takeover), rng)
    for listener in listeners:
        playing.addListener(listener)
    players = RandomPlayers(kind, rng)
    game = playing.game
    dropped = set()
    played = 0
    playing.start()
    while True:
        if playing.over:
            return playing
        if played >= maxActions:
            playing.abandon()
            return playing
        seat = game.currentSeat
        if seat in playing.takeover:
            clock.advance(BOT_DELAY)
            played += 1
            continue
        roll = rng.random() if incidents else 1.0
        if roll < DROP or (roll < DROP_PENDING and kind == "splendor"
                           and game.phase != splendor.PHASE_ACT):
            # Any seat, or the seat to act (the one with a pending
            # discard or noble choice, which its retirement settles).
            gone = rng.choice((seat, rng.randrange(len(seats))))
            if gone not in dropped:
                dropped.add(gone)
                playing.drop(gone)
            continue
        roll -= DROP
        if roll < TAKEOVER:
            playing.takeOver(seat, rng.getrandbits(32))
            continue
        roll -= TAKEOVER
        if roll < TIMEOUT and kind == "checkers":
            clock.advance(TURN_SECONDS + TURN_GRACE)
            continue
        roll -= TIMEOUT
        if roll < ILLEGAL_BURST and kind == "gomoku":
            for _ in range(rng.randint(1, gomoku.MAX_ILLEGAL_MOVES + 1)):
                if playing.over:
                    break
                try:
                    playing.act(seat, (gomoku.SIZE, 0))
                except IllegalAction:
                    pass
            continue
        roll -= ILLEGAL_BURST
        if roll < LOST_AND_BACK and kind == "gomoku":
            playing.seatLost(seat)
            playing.seatResumed(seat)
            continue
        action = players.choose(game, seat)
        if action is None:
            # No legal move (checkers): the turn clock runs out.
            clock.advance(TURN_SECONDS + TURN_GRACE)
            continue
        clock.advance(rng.random() * 3)
        playing.act(seat, action)
        played += 1


def snapshot(kind, game):
    """
    Everything that makes a position of C{kind}, comparable with ==.
    """
    if kind == "gomoku":
        return (list(game.board), list(game.moves), game.winnerSeat,
                game.isOver, game.isError)
    if kind == "checkers":
        return (bytes(game._board), list(game.finished),
                list(game.eliminated), game.currentSeat, game.isOver,
                game.ranking())
    return (list(game.bank), [list(r) for r in game.board],
            [list(d) for d in game.decks], list(game.nobles),
            [(p.tokens[:], p.bonuses[:], p.points, p.purchased[:],
              p.reserved[:], p.nobles[:]) for p in game.players],
            game.currentSeat, game.phase, game.pendingDiscard,
            tuple(game.pendingNobles), game.winner, game.retired[:],
            game.turns)


def replayed(tableEvents):
    """
    The rules object that the table module of the game's kind rebuilds
    from C{tableEvents} (its C{replay}).
    """
    module = {"gomoku": gomokuTable, "checkers": checkersTable,
              "splendor": splendorTable}[tableEvents[0].kind]
    return module.replay(tableEvents)


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
    raise SkipTest("{} is not set (see docs/records.md)".format(
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


def recordGuestGames(database, count=2):
    """
    Record C{count} random gomoku games (seeded alike every time) between
    the name C{ann} and the guest C{bob} in C{database}.

    @return: a Deferred of the games' ids, in order.
    """
    recorder = Recorder(database, Clock())
    rng = random.Random(5)
    for _ in range(count):
        playRandomGame("gomoku", [recorder], rng, names=["ann", "bob"],
                       incidents=False, guests=("bob",))
    return recorder.whenIdle().addCallback(
        lambda _: sorted(recorder.confirmed))
