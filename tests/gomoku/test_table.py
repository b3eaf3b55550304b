"""
The gomoku table without transports: actions in, events out, on a
L{Clock}; its start policy; replays from the events alone; and the hub
stopping mid-game with no timer left.
"""

import random

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.games import gomoku as rules
from hub.ihub import IStartPolicy, ITable, ITableListener
from hub.lobby import Lobby, RoomObserver
from hub.protocols.gomoku_players import COLOUR_OF_SEAT, SEAT_OF_COLOUR
from hub.sessions import Sessions
from hub.tables import events
from hub.tables.base import (
    EventRecorder, GameIsOver, IllegalAction, NotSeated, NotYourTurn,
    TableOptions)
from hub.tables.gomoku import (
    DEFAULT_OPTIONS, OWNER_SEAT, GomokuStartPolicy, GomokuTable, replay,
    restore)
from hub.wire import gomoku as wire
from tests.gomoku.support import GomokuHarness

DELAY = 0.5
SEATS = (events.Seat(0, "bob", 2, rules.BLACK),
         events.Seat(1, "alice", 1, rules.WHITE))


def finalState(game):
    """
    What a replay must rebuild of C{game}.
    """
    return (game.board, game.moves, game.winner, game.winnerSeat,
            game.isDraw, game.isOver, game.isError)


class TableTestsMixin:
    """
    A table on a L{Clock} with an L{EventRecorder}.
    """

    def makeTable(self, **options):
        self.clock = Clock()
        self.clock.advance(100)
        if options:
            options.setdefault("maxIllegal", rules.MAX_ILLEGAL_MOVES)
            options.setdefault("botDelay", DELAY)
            tableOptions = TableOptions(**options)
        else:
            tableOptions = None
        self.table = GomokuTable("r", SEATS, self.clock, tableOptions)
        self.recorder = EventRecorder()
        self.table.addListener(self.recorder)
        self.table.start()
        return self.table

    def eventsSince(self, count):
        return self.recorder.events[count:]

    def assertReplays(self):
        """
        The recorded events rebuild the table's final position.
        """
        self.assertEqual(finalState(replay(self.recorder.events)),
                         finalState(self.table.game))


class PlayTests(TableTestsMixin, SynchronousTestCase):
    """
    Starting, moves, refusals and the normal ends.
    """

    def test_interfaces(self):
        """
        The table is an L{ITable}; the recorder an L{ITableListener}.
        """
        self.makeTable()
        self.assertTrue(verifyObject(ITable, self.table))
        self.assertTrue(verifyObject(ITableListener, self.recorder))

    def test_start(self):
        """
        GameStarted (with the empty board as its position), then black's
        turn without a clock; no timer is started.
        """
        self.makeTable()
        self.assertEqual(self.recorder.events, [
            events.GameStarted("gomoku", "r", SEATS,
                               {"size": 15, "moves": []}, 100),
            events.TurnStarted(0, None, 100)])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_move(self):
        """
        A legal move is one ActionPlayed with the canonical (x, y).
        """
        table = self.makeTable()
        self.clock.advance(3)
        table.act(0, (7, 7))
        self.assertEqual(self.eventsSince(2), [
            events.ActionPlayed(0, (7, 7), False, None, 103)])
        self.assertEqual(table.game.moves, [(7, 7)])

    def test_oneCellAMove(self):
        """
        A stone's C{(x, y)} is the board's own tuple for that cell, in the
        rules' moves, the event and the table's actions alike: however
        the player's cell was made, a move keeps no tuple of its own.
        """
        table = self.makeTable()
        table.act(0, (7, 7))
        table.act(1, [8, 8])
        for ply, (x, y) in enumerate([(7, 7), (8, 8)]):
            cell = rules.GomokuGame().legalActions(0)[y * rules.SIZE + x]
            self.assertIs(table.game.moves[ply], cell)
            self.assertIs(table.actions[ply][1], cell)
            self.assertIs(self.eventsSince(2)[ply].action, cell)

    def test_refusals(self):
        """
        Out of turn, unseated, illegal cells and moves after the end are
        refused with the matching L{TableError}, and nothing is told.
        """
        table = self.makeTable()
        self.assertRaises(NotYourTurn, table.act, 1, (0, 0))
        self.assertRaises(NotSeated, table.act, None, (0, 0))
        self.assertRaises(NotSeated, table.act, 2, (0, 0))
        self.assertRaises(IllegalAction, table.act, 0, (15, 0))
        self.assertRaises(IllegalAction, table.act, 0, None)
        table.act(0, (7, 7))
        self.assertRaises(IllegalAction, table.act, 1, (7, 7))
        self.assertEqual(len(self.recorder.events), 3)
        table.forfeit(1)
        self.assertRaises(GameIsOver, table.act, 1, (0, 0))

    def test_blackWins(self):
        """
        Five in a row: the last ActionPlayed, then GameEnded (normal) with
        the ranking and the winner.
        """
        table = self.makeTable()
        for i in range(4):
            table.act(0, (i, 0))
            table.act(1, (i, 1))
        table.act(0, (4, 0))
        self.assertEqual(self.eventsSince(10), [
            events.ActionPlayed(0, (4, 0), False, None, 100),
            events.GameEnded(events.NORMAL, (0, 1), 0, 100)])
        self.assertTrue(table.over)
        self.assertReplays()

    def test_whiteWins(self):
        """
        White's five ranks white first.
        """
        table = self.makeTable()
        table.act(0, (0, 5))
        for i in range(4):
            table.act(1, (i, 0))
            table.act(0, (i + 3, 9))
        table.act(1, (4, 0))
        self.assertEqual(table.ended,
                         events.GameEnded(events.NORMAL, (1, 0), 1, 100))
        self.assertReplays()

    def test_draw(self):
        """
        A full board without five ends with no winner and no ranking.
        """
        table = self.makeTable()
        cells = [(x, y) for y in range(15) for x in range(15)]
        blacks = [c for c in cells if ((c[0] // 2) + c[1]) % 2 == 0]
        whites = [c for c in cells if ((c[0] // 2) + c[1]) % 2 == 1]
        for i, cell in enumerate(blacks):
            table.act(0, cell)
            if i < len(whites):
                table.act(1, whites[i])
        self.assertEqual(table.ended,
                         events.GameEnded(events.NORMAL, (), None, 100))
        self.assertTrue(table.game.isDraw)
        self.assertReplays()


class IllegalLimitTests(TableTestsMixin, SynchronousTestCase):
    """
    The illegal-move limit of the seat to move.
    """

    def test_limit(self):
        """
        Five illegal moves in a row are refused; the sixth is refused too,
        after the game ended in error (no winner, no ranking).
        """
        table = self.makeTable()
        for _ in range(rules.MAX_ILLEGAL_MOVES):
            self.assertRaises(IllegalAction, table.act, 0, (99, 99))
        self.assertFalse(table.over)
        self.assertEqual(len(self.recorder.events), 2)
        self.assertRaises(IllegalAction, table.act, 0, (99, 99))
        self.assertEqual(self.eventsSince(2), [
            events.GameEnded(events.ILLEGAL, (), None, 100)])
        self.assertTrue(table.game.isError)
        self.assertReplays()

    def test_legalMoveResets(self):
        """
        A legal move starts the count again; moves out of turn do not
        count.
        """
        table = self.makeTable()
        for _ in range(rules.MAX_ILLEGAL_MOVES):
            self.assertRaises(IllegalAction, table.act, 0, (99, 99))
        table.act(0, (7, 7))
        for _ in range(10):
            self.assertRaises(NotYourTurn, table.act, 0, (99, 99))
        for _ in range(rules.MAX_ILLEGAL_MOVES):
            self.assertRaises(IllegalAction, table.act, 1, (7, 7))
        self.assertFalse(table.over)

    def test_option(self):
        """
        The limit is the options' C{maxIllegal}; None means no limit.
        """
        table = self.makeTable(maxIllegal=0)
        self.assertRaises(IllegalAction, table.act, 0, (99, 99))
        self.assertEqual(table.ended.reason, events.ILLEGAL)
        table = self.makeTable(maxIllegal=None)
        for _ in range(50):
            self.assertRaises(IllegalAction, table.act, 0, (99, 99))
        self.assertFalse(table.over)


class DropTests(TableTestsMixin, SynchronousTestCase):
    """
    Players gone for good, lost and back, without and with takeover.
    """

    def test_dropOnOwnTurn(self):
        """
        Without takeover the mover who is gone forfeits.
        """
        table = self.makeTable()
        table.drop(0)
        self.assertEqual(self.eventsSince(2), [
            events.SeatDropped(0, 100),
            events.GameEnded(events.FORFEIT, (1, 0), 1, 100)])
        self.assertReplays()

    def test_dropOnOtherTurn(self):
        """
        A player gone on the other seat's turn forfeits all the same.
        """
        table = self.makeTable()
        table.act(0, (7, 7))
        table.act(1, (8, 8))
        table.drop(1)
        self.assertEqual(self.eventsSince(4), [
            events.SeatDropped(1, 100),
            events.GameEnded(events.FORFEIT, (0, 1), 0, 100)])
        self.assertReplays()

    def test_dropAfterEnd(self):
        """
        Dropping a seat after the end tells nothing.
        """
        table = self.makeTable()
        table.forfeit(0)
        count = len(self.recorder.events)
        table.drop(1)
        self.assertEqual(len(self.recorder.events), count)

    def test_lostAndBack(self):
        """
        A lost player who comes back gives SeatReturned; one who was not
        lost gives nothing.
        """
        table = self.makeTable()
        table.seatResumed(1)
        table.seatLost(1)
        self.clock.advance(5)
        table.seatResumed(1)
        self.assertEqual(self.eventsSince(2),
                         [events.SeatReturned(1, 105)])

    def test_takeoverOnOtherTurn(self):
        """
        With takeover, the seat dropped on the other seat's turn is taken
        over; the bot answers each move after its delay.
        """
        table = self.makeTable(takeover="bot", botLevel=2)
        table.drop(1)
        self.assertEqual(self.eventsSince(2), [
            events.SeatDropped(1, 100), events.SeatTakenOver(1, 2, 100)])
        self.assertEqual(self.clock.getDelayedCalls(), [])
        for k in range(3):
            table.act(0, (k, 0))
            count = len(self.recorder.events)
            self.clock.advance(DELAY)
            [played] = self.eventsSince(count)
            self.assertEqual((played.seat, played.byBot), (1, True))
            self.assertEqual(table.game.moves[-1], played.action)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_takeoverOnOwnTurn(self):
        """
        A mover who is gone is replaced, and the bot moves after its
        delay.
        """
        table = self.makeTable(takeover="bot")
        table.drop(0)
        self.assertEqual(table.game.moves, [])
        self.clock.advance(DELAY)
        self.assertEqual(table.game.moves, [(7, 7)])
        self.assertEqual(self.recorder.events[-1],
                         events.ActionPlayed(0, (7, 7), True, None,
                                             100 + DELAY))

    def test_noTakeoverWhenOtherAway(self):
        """
        If the other seat's player is lost too, the seat forfeits.
        """
        table = self.makeTable(takeover="bot")
        table.seatLost(0)
        table.drop(1)
        self.assertEqual(table.ended.reason, events.FORFEIT)
        self.assertEqual(table.ended.winner, 0)
        self.assertEqual(self.recorder.ofType(events.SeatTakenOver), [])

    def test_forfeitAgainstBot(self):
        """
        The last human of a table gone for good forfeits to the bot, and
        the bot stops.
        """
        table = self.makeTable(takeover="bot")
        table.drop(0)
        self.clock.advance(DELAY)
        table.drop(1)
        self.assertEqual(table.ended,
                         events.GameEnded(events.FORFEIT, (0, 1), 0,
                                          100 + DELAY))
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertReplays()


class ReplayTests(TableTestsMixin, SynchronousTestCase):
    """
    Whole games heard by a listener, replayed from the events alone.
    """

    def test_botGames(self):
        """
        Level-1 bots play both seats of a table to the end: the events
        rebuild the same final position, and no timer is left.
        """
        for seed in range(8):
            table = self.makeTable(takeover="bot", botLevel=1)
            table.takeOver(0, seed=seed)
            table.takeOver(1, seed=seed + 100)
            for _ in range(rules.CELLS + 1):
                if table.over:
                    break
                self.clock.advance(DELAY)
            self.assertTrue(table.over)
            self.assertEqual(table.ended.reason, events.NORMAL)
            self.assertEqual(len(self.recorder.ofType(events.ActionPlayed)),
                             len(table.game.moves))
            self.assertReplays()
            self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_humanAndBot(self):
        """
        A player making random moves (legal and not) against a bot.
        """
        generator = random.Random(7)
        table = self.makeTable(takeover="bot", botLevel=1)
        table.drop(1)
        while not table.over:
            cell = (generator.randrange(16), generator.randrange(16))
            try:
                table.act(0, cell)
            except IllegalAction:
                continue
            self.clock.advance(DELAY)
        self.assertReplays()

    def test_restoreMidGame(self):
        """
        A position with stones restores them in order.
        """
        game = restore({"size": 15, "moves": [[7, 7], [8, 8], [0, 0]]})
        self.assertEqual(game.moves, [(7, 7), (8, 8), (0, 0)])
        self.assertEqual(game.at(8, 8), rules.WHITE)
        self.assertEqual(game.currentSeat, 1)
        self.assertRaises(ValueError, restore, {"size": 19, "moves": []})


class StartPolicyTests(SynchronousTestCase):
    """
    The start policy seats the members and attaches the listener.
    """

    def setUp(self):
        self.clock = Clock()
        self.lobby = Lobby()
        self.sessions = Sessions(self.clock)
        self.heard = []
        self.policy = GomokuStartPolicy(
            self.clock, listenerFor=self.listenerFor)

    def listenerFor(self, room, table):
        recorder = EventRecorder()
        self.heard.append((room, table, recorder))
        return recorder

    def room(self, ownerSeat=None):
        owner = self.sessions.connect("gomoku", None)
        self.sessions.claimName(owner, "alice")
        guest = self.sessions.connect("gomoku", None)
        self.sessions.claimName(guest, "bob")
        room = self.lobby.createRoom("gomoku", "r", owner, RoomObserver(),
                                     self.policy, 2)
        if ownerSeat is not None:
            room.settings[OWNER_SEAT] = ownerSeat
        self.lobby.join("gomoku", "r", guest, RoomObserver())
        return room

    def test_interface(self):
        """
        The policy is an L{IStartPolicy} and does not start by itself.
        """
        self.assertTrue(verifyObject(IStartPolicy, self.policy))
        self.assertFalse(self.policy.autoStart)
        self.assertIs(self.policy.options, DEFAULT_OPTIONS)

    def test_canStart(self):
        """
        A start needs a ready guest.
        """
        room = self.room()
        self.assertFalse(self.policy.canStart(room))
        room.members[1].ready = True
        self.assertTrue(self.policy.canStart(room))

    def test_ownerWhiteByDefault(self):
        """
        The owner plays white unless the room says otherwise; the table
        gets the seats in seat order and the adapter's listener.
        """
        room = self.room()
        table = self.policy.newTable(room)
        self.assertEqual([m.seat for m in room.members], [1, 0])
        self.assertEqual(table.seats, (
            events.Seat(0, "bob", room.members[1].session.id, rules.BLACK),
            events.Seat(1, "alice", room.members[0].session.id,
                        rules.WHITE)))
        [(heardRoom, heardTable, recorder)] = self.heard
        self.assertIs(heardRoom, room)
        self.assertIs(heardTable, table)
        table.start()
        self.assertEqual(len(recorder.events), 2)

    def test_ownerBlack(self):
        """
        An owner on the black seat is seat 0.
        """
        room = self.room(ownerSeat=rules.SEAT_BLACK)
        table = self.policy.newTable(room)
        self.assertEqual([m.seat for m in room.members], [0, 1])
        self.assertEqual(table.seats[0].name, "alice")


class ColourMappingTests(SynchronousTestCase):
    """
    The adapter's one meeting point of wire colours and rule seats.
    """

    def test_mapping(self):
        """
        Black and white map to their seats and back, and each seat's rule
        colour has the same value as its wire colour.
        """
        self.assertEqual(SEAT_OF_COLOUR, {wire.CHESS_BLACK: rules.SEAT_BLACK,
                                          wire.CHESS_WHITE: rules.SEAT_WHITE})
        self.assertEqual(COLOUR_OF_SEAT, {rules.SEAT_BLACK: wire.CHESS_BLACK,
                                          rules.SEAT_WHITE: wire.CHESS_WHITE})
        for seat, colour in COLOUR_OF_SEAT.items():
            self.assertEqual(rules.colourOfSeat(seat), colour)


class HubStopTests(SynchronousTestCase):
    """
    Stopping the hub mid-game leaves no delayed call.
    """

    def test_stopMidGame(self):
        """
        With a takeover bot about to move, a reconnect grace running and
        a game in another room, stopping the hub cancels everything.
        """
        hub = GomokuHarness(graceSeconds=30, takeover="bot", botDelay=DELAY)
        black, white, owner, guest = hub.playing()
        black.drop()
        hub.clock.advance(30)
        white.drop()
        other = hub.registered("carol")
        other.create("s")
        again = hub.registered("dave")
        again.join("s")
        again.ready()
        other.start()
        self.assertNotEqual(hub.pendingCalls(), [])
        hub.stop()
        self.assertEqual(hub.pendingCalls(), [])
