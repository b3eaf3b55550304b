"""
Watching a game from the web API without a window: the event stream
reader, the watch address, and L{hub.client.watch} following games of
every kind on a real loopback web face (a L{hub.service.Hub} whose
tables are played by the test), then replaying them.
"""

import random

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.client import ResponseDone

from hub.client import events as E
from hub.client import state as S
from hub.client import watchstate
from hub.client.watch import GameWatcher, WatchedGame, listGames
from hub.client.webapi import (
    EventStreamDecoder, EventStreamProtocol, WebAPI, WebAPIError,
    parseWatchURL)
from hub.client.state_gomoku import BLACK, WHITE
from hub.games import splendor as SG
from hub.games.checkers import CheckersGame
from hub.web.views import checkersView
from tests.web.support import WebHub, openRoom

TIMEOUT = 10


class FakeBodyTransport:
    """
    What a response body's protocol sees as its transport.
    """

    stopped = False
    disconnecting = False

    def stopProducing(self):
        self.stopped = True


class EventStreamTests(SynchronousTestCase):
    """
    Server-Sent Events, read line by line.
    """

    def decode(self, data):
        events = []
        reader = EventStreamProtocol(lambda *e: events.append(e))
        reader.makeConnection(FakeBodyTransport())
        reader.dataReceived(data)
        return events, reader

    def test_events(self):
        """
        Each message is its event name and its JSON data; comments,
        C{retry} and CR LF line ends are fine; a message cut in two
        packets waits for its end.
        """
        events = []
        reader = EventStreamProtocol(lambda *e: events.append(e))
        reader.makeConnection(FakeBodyTransport())
        reader.dataReceived(b"retry: 3000\n\n: a comment\n"
                            b"event: turn\r\ndata: {\"seat\": 1}\r\n\r\n"
                            b"event: action\ndata: {\"mo")
        self.assertEqual(events, [("turn", {"seat": 1})])
        reader.dataReceived(b"ve\": 2}\n\ndata: [1,\ndata: 2]\n\n")
        self.assertEqual(events[1:], [("action", {"move": 2}),
                                      ("message", [1, 2])])

    def test_tooLong(self):
        """
        A line longer than the limit stops the stream.
        """
        events, reader = self.decode(b"x" * (reader_limit() + 1))
        self.assertTrue(reader.transport.stopped)
        reader.connectionLost(Failure(ResponseDone()))
        self.assertFalse(self.successResultOf(reader.done))

    def test_done(self):
        """
        C{done} says whether the hub ended the stream itself.
        """
        events, reader = self.decode(b"")
        reader.connectionLost(Failure(ResponseDone()))
        self.assertTrue(self.successResultOf(reader.done))
        events, reader = self.decode(b"")
        reader.connectionLost(Failure(ConnectionError()))
        self.assertFalse(self.successResultOf(reader.done))

    def test_notJSON(self):
        """
        Data that is not JSON comes as text.
        """
        seen = []
        decoder = EventStreamDecoder(lambda *e: seen.append(e))
        for line in (b"event: x", b"data: hello", b""):
            decoder.lineReceived(line)
        self.assertEqual(seen, [("x", "hello")])


def reader_limit():
    return EventStreamProtocol.MAX_LENGTH


class WatchURLTests(SynchronousTestCase):
    """
    C{--watch} takes a game page's address.
    """

    def test_parse(self):
        self.assertEqual(parseWatchURL("http://h:8081/games/live-3"),
                         ("http://h:8081", "live-3"))
        self.assertEqual(parseWatchURL("http://h/games/12/"),
                         ("http://h:8080", "12"))
        self.assertEqual(parseWatchURL("http://h:9/api/games/12"),
                         ("http://h:9", "12"))
        for bad in ("gomoku://h:1", "http://h:1/players/x",
                    "http://h:x/games/1", "h:1/games/1"):
            self.assertRaises(ValueError, parseWatchURL, bad)


def until(game, condition, timeout=TIMEOUT):
    """
    A Deferred firing once C{condition()} holds after an event of
    C{game} (a L{WatchedGame}); it fails after C{timeout} seconds.
    """
    d = defer.Deferred()

    def check(event=None):
        if not d.called and condition():
            game.unsubscribe(check)
            d.callback(None)
    game.subscribe(check)
    check()
    return d.addTimeout(timeout, reactor)


class WatcherTests(TestCase):
    """
    L{GameWatcher} on a hub's real web face over loopback.
    """

    timeout = 60

    def setUp(self):
        self.web = WebHub(self)
        self.clock = Clock()

    def startGame(self, kind, names, name="room"):
        room, _ = openRoom(self.web.hub, kind, name, names)
        self.web.hub.lobby.start(room)
        live = self.web.web.spectating.gameOf(room.table)
        return room.table, live

    def watch(self, gameId):
        root = self.web.url("")
        watcher = GameWatcher(reactor, self.clock, root, gameId)
        self.addCleanup(watcher.stop)
        return watcher

    @defer.inlineCallbacks
    def test_gomokuLiveThenReplay(self):
        """
        A gomoku game joined mid-way: the stones so far, each move as it
        comes, the five at the end; then the replay from the empty board
        with step, jump and play.
        """
        table, live = self.startGame("gomoku", ["ann", "bob"])
        table.act(0, (7, 7))
        table.act(1, (0, 0))
        watcher = self.watch(live.id)
        yield watcher.start()
        game = watcher.game
        self.assertTrue(game.live)
        self.assertEqual(game.kind, "gomoku")
        st = game.mirror()
        self.assertEqual(st.phase, S.GAME)
        self.assertEqual((st.stone(7, 7), st.stone(0, 0)), (BLACK, WHITE))
        self.assertFalse(st.isMyTurn())
        self.assertFalse(st.send({"x": 1}))
        moved = []
        game.subscribe(lambda event: moved.append(event)
                       if isinstance(event, E.Moved) else None)
        yield until(game, lambda: watcher._reader is not None)
        table.act(0, (8, 7))
        yield until(game, lambda: moved)
        self.assertEqual(len(game.moves), 3)
        self.assertEqual(game.mirror().stone(8, 7), BLACK)
        self.assertEqual(moved[-1].action, [8, 7])
        for x in (9, 10, 11):
            table.act(1, (x, 0))
            table.act(0, (x, 7))
        yield until(game, lambda: game.steps is not None)
        self.assertFalse(game.live)
        self.assertEqual(game.resultText(), "ann (black) won (normal)")
        self.assertEqual(game.stepCount, 10)
        self.assertEqual(game.step, 9)
        self.assertTrue(game.atEnd)
        st = game.mirror()
        self.assertEqual(st.phase, S.OVER)
        self.assertEqual(st.lastMove, (11, 7))
        game.first()
        self.assertEqual(game.mirror().moveCount, 0)
        self.assertIsNone(game.lastAction())
        self.assertEqual(game.stepText(), "move 0 / 9")
        game.stepBy(1)
        self.assertEqual(game.mirror().stone(7, 7), BLACK)
        self.assertEqual(game.mirror().phase, S.GAME)
        self.assertEqual(game.lastAction(), [7, 7])
        game.stepBy(-5)
        self.assertEqual(game.step, 0)
        game.showStep(4)
        game.togglePlay()
        self.assertTrue(game.playing)
        self.clock.advance(0.7)
        self.assertEqual(game.step, 5)
        self.clock.pump([0.7] * 6)
        self.assertEqual(game.step, 9)
        self.assertFalse(game.playing)
        # play again from the end starts from the beginning
        game.togglePlay()
        self.assertEqual(game.step, 0)
        game.togglePlay()
        self.assertFalse(game.playing)

    @defer.inlineCallbacks
    def test_checkersLive(self):
        """
        A three-player checkers game: the pieces follow the table move by
        move (paths applied to the rules object), the region to move is
        shown, and the replay's positions match the table's history.
        """
        table, live = self.startGame("checkers", ["a", "b", "c"])
        rng = random.Random(3)
        for _ in range(4):
            table.playOne(rng)
        watcher = self.watch(live.id)
        yield watcher.start()
        game = watcher.game
        yield until(game, lambda: watcher._reader is not None)
        history = []
        for _ in range(12):
            table.playOne(rng)
            history.append([sorted(table.game.pieces(s))
                            for s in range(3)])
        yield until(game, lambda: len(game.moves) == 16)
        st = game.mirror()
        self.assertEqual([sorted(st.board.pieces(s)) for s in range(3)],
                         history[-1])
        self.assertEqual(st.regions, {"a": "A", "b": "C", "c": "E"})
        self.assertEqual(st.currentRegion,
                         table.game.regionOfSeat(table.game.currentSeat))
        self.assertIsNone(st.myRegion())
        self.assertFalse(st.isMyTurn())
        self.assertEqual(tuple(st.lastPath[-1]),
                         tuple(game.moves[-1]["action"][-1]))
        table.end("abandoned", (), None)
        yield until(game, lambda: game.steps is not None)
        self.assertEqual(game.stepCount, 17)
        for step in (5, 16):
            game.showStep(step)
            board = game.mirror().board
            self.assertEqual([sorted(board.pieces(s)) for s in range(3)],
                             history[step - 5])
        self.assertEqual(game.mirror().phase, S.OVER)
        self.assertEqual(game.resultText(), "game over (abandoned)")

    @defer.inlineCallbacks
    def test_splendor(self):
        """
        Splendor positions come as views: bank, rows, hands and points
        are shown; reserved cards stay face down (of the right level).
        """
        table, live = self.startGame("splendor", ["a", "b"])
        card = table.game.board[1][0]
        table.act(0, (SG.FOLD_CARD, card, ()))
        rng = random.Random(7)
        for _ in range(6):
            table.playOne(rng)
        watcher = self.watch(live.id)
        yield watcher.start()
        game = watcher.game
        st = game.mirror()
        t = st.table
        self.assertEqual(t.bank, table.game.bank)
        self.assertEqual(t.board, table.game.board)
        self.assertEqual(t.nobles, table.game.nobles)
        self.assertEqual([len(d) for d in t.decks],
                         [len(d) for d in table.game.decks])
        for seat in range(2):
            mine, theirs = t.players[seat], table.game.players[seat]
            self.assertEqual(mine.tokens, theirs.tokens)
            self.assertEqual(mine.points, theirs.points)
            self.assertEqual(len(mine.purchased), len(theirs.purchased))
            self.assertEqual(len(mine.reserved), len(theirs.reserved))
            self.assertEqual(st.hidden.get(seat, []), mine.reserved)
        self.assertEqual(SG.CARDS[t.players[0].reserved[0]].level, 2)
        self.assertEqual(st.sequence, [1, 2])
        self.assertEqual(st.seatOf(st.currentId), table.game.currentSeat)
        yield until(game, lambda: watcher._reader is not None)
        table.playOne(rng)
        yield until(game, lambda: len(game.moves) == 8)
        self.assertEqual(game.mirror().table.bank, table.game.bank)

    @defer.inlineCallbacks
    def test_listAndUnknown(self):
        """
        The hub's games are listed, running ones first; an unknown game
        is an error said to the observers in words, final (not tried
        again).
        """
        table, live = self.startGame("gomoku", ["ann", "bob"], "one")
        other, live2 = self.startGame("gomoku", ["cid", "dan"], "two")
        for x in range(4):
            other.act(0, (x, 0))
            other.act(1, (x, 1))
        other.act(0, (4, 0))
        games = yield listGames(WebAPI(reactor, self.web.url("")))
        self.assertEqual([g["id"] for g in games], [live.id, live2.id])
        self.assertEqual([g["over"] for g in games], [False, True])
        watcher = self.watch("live-99")
        errors = []
        watcher.game.subscribe(lambda event: errors.append(event)
                               if isinstance(event, E.WatchError) else None)
        yield watcher.start()
        self.assertEqual(errors, [E.WatchError(
            "This hub has no game live-99.", final=True)])
        self.assertFalse(watcher.game.loaded)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    @defer.inlineCallbacks
    def test_finishedGame(self):
        """
        A game already over opens on its replay, at the last position,
        and no stream is opened.
        """
        table, live = self.startGame("gomoku", ["ann", "bob"])
        for x in range(4):
            table.act(0, (x, 0))
            table.act(1, (x, 1))
        table.act(0, (4, 0))
        watcher = self.watch(live.id)
        yield watcher.start()
        game = watcher.game
        self.assertIsNone(watcher._reader)
        self.assertEqual(game.step, 9)
        self.assertEqual(game.mirror().phase, S.OVER)
        self.assertEqual(game.seatName(1), "bob (white)")


class ModelTests(SynchronousTestCase):
    """
    L{WatchedGame} fed by hand.
    """

    def test_badMessage(self):
        """
        A message that does not fit is said as an error, not raised.
        """
        game = WatchedGame(Clock(), "g")
        errors = []
        game.subscribe(errors.append)
        game.eventReceived("action", {"nomove": 1})
        game.eventReceived("action", "text")
        self.assertEqual([type(e) for e in errors], [E.WatchError])

    def test_unknownKind(self):
        game = WatchedGame(Clock(), "g")
        self.assertRaises(WebAPIError, game.loadGame,
                          {"kind": "chess", "live": True})

    def test_checkersSeatsOut(self):
        """
        A checkers view's finished and eliminated seats play on no more in
        the game rebuilt from it.
        """
        played = CheckersGame(3)
        played.eliminate(1)
        game = watchstate.checkersGame(checkersView(played))
        self.assertEqual(game.eliminated, [1])
        self.assertEqual(game.activeSeats(), [0, 2])
        self.assertEqual(game.currentSeat, played.currentSeat)
