"""
Tests for L{hub.tables.splendor}: the Splendor table without any
transport (feed actions, advance a clock, assert the events), its start
policy and seating, and the replay of a game from its events.
"""

import json
import random

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.bots import botFor
from hub.tables.seatpilot import SeatPilot
from hub.games import splendor as rules
from hub.games.splendor import Action
from hub.games import splendor_moves as moves
from hub.ihub import IStartPolicy, ITable
from hub.lobby import Lobby, RoomObserver
from hub.sessions import Sessions
from hub.tables import events
from hub.tables import splendor as tables
from hub.tables.base import (
    EventRecorder, GameIsOver, IllegalAction, NotSeated, NotYourTurn,
    TableOptions)

from .support import Harness
from .test_game import snapshot, tokens

TAKE = Action("get_gems", 0, (("emerald", 1), ("obsidian", 1), ("ruby", 1)))


def makeTable(seats=2, seed=1, **options):
    """
    A started table of C{seats} seats (player ids 1, 2, ...) on a fresh
    L{Clock}, and the L{EventRecorder} that heard it.
    """
    clock = Clock()
    game = rules.SplendorGame(seats, random.Random(seed))
    table = tables.SplendorTable(
        "table-1", [events.Seat(i, tables.seatName(i + 1), i + 1)
                    for i in range(seats)],
        game, clock, TableOptions(**options), random.Random(seed))
    recorder = EventRecorder()
    table.addListener(recorder)
    table.start()
    return table, recorder, clock


def withoutTimes(recorded):
    """
    The events with their times set to 0, to compare them whole.
    """
    return [event.__class__(**dict(
        ((a.name, getattr(event, a.name)) for a in event.__attrs_attrs__),
        at=0)) for event in recorded]


def state(game):
    """
    Everything the rules hold, retirements included.
    """
    return snapshot(game) + (game.retired[:],)


class StartTests(SynchronousTestCase):
    """
    The start: the whole deal, then the first turn.
    """

    def test_started(self):
        """
        GameStarted carries the seats and the whole deal (JSON-able, and
        enough to rebuild the game); TurnStarted names seat 0, without a
        deadline.
        """
        table, recorder, clock = makeTable(3)
        started, turn = recorder.events
        self.assertIsInstance(started, events.GameStarted)
        self.assertEqual((started.kind, started.table),
                         ("splendor", "table-1"))
        self.assertEqual([s.name for s in started.seats],
                         ["player 1", "player 2", "player 3"])
        self.assertEqual([s.playerId for s in started.seats], [1, 2, 3])
        position = json.loads(json.dumps(started.position))
        self.assertEqual(position, table.game.deal())
        self.assertEqual(state(tables.restore(position)),
                         state(table.game))
        self.assertEqual(turn, events.TurnStarted(0, None, 0))
        self.assertTrue(verifyObject(ITable, table))
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_dealIsFromTheStart(self):
        """
        The position is the deal as it was before the first move.
        """
        table, recorder, _ = makeTable(2)
        deal = json.loads(json.dumps(table.position()))
        table.act(0, Action("fold_card", table.game.faceUp(1)[0]))
        self.assertEqual(recorder.events[0].position, deal)
        self.assertNotEqual(table.game.deal(), deal)


class ActTests(SynchronousTestCase):
    """
    L{tables.SplendorTable.act}: what an action emits, and refusals.
    """

    def test_take(self):
        """
        A move: ActionPlayed (the rules' OperationDone as detail), then
        the next turn.
        """
        table, recorder, _ = makeTable(2)
        del recorder.events[:]
        table.act(0, TAKE)
        self.assertEqual(withoutTimes(recorder.events), [
            events.ActionPlayed(0, TAKE, False,
                                moves.OperationDone(0, TAKE), 0),
            events.TurnStarted(1, None, 0)])

    def test_reserve(self):
        """
        A reserve of a face-up card deals a new one: CardDealt.
        """
        table, recorder, _ = makeTable(2)
        del recorder.events[:]
        card = table.game.faceUp(2)[1]
        top = table.game.decks[1][-1]
        table.act(0, Action("fold_card", card))
        self.assertEqual(withoutTimes(recorder.events), [
            events.ActionPlayed(0, Action("fold_card", card), False,
                                moves.OperationDone(
                                    0, Action("fold_card", card), 1), 0),
            events.CardDealt(2, top, 0),
            events.TurnStarted(1, None, 0)])

    def test_refusals(self):
        """
        Out of turn, no such seat, an illegal action, after the end: each
        raises its L{TableError} and changes nothing.
        """
        table, recorder, _ = makeTable(2)
        before = state(table.game)
        count = len(recorder.events)
        self.assertRaises(NotYourTurn, table.act, 1, TAKE)
        self.assertRaises(NotSeated, table.act, 2, TAKE)
        self.assertRaises(NotSeated, table.act, None, TAKE)
        self.assertRaises(IllegalAction, table.act, 0,
                          Action("get_gems", 0, (("ruby", 2),
                                                 ("emerald", 1))))
        self.assertRaises(IllegalAction, table.act, 0, Action("get_noble",
                                                              91))
        self.assertEqual(state(table.game), before)
        self.assertEqual(len(recorder.events), count)
        table.drop(0)
        self.assertRaises(GameIsOver, table.act, 1, TAKE)

    def test_discard(self):
        """
        Past 10 tokens: DiscardRequired and no new turn until the
        discard.
        """
        table, recorder, _ = makeTable(2)
        tokens(table.game.players[0], diamond=3, sapphire=3, emerald=3)
        del recorder.events[:]
        table.act(0, TAKE)
        self.assertEqual(withoutTimes(recorder.events)[1:], [
            tables.DiscardRequired(0, 2, 0)])
        discard = Action("discard_gems", 0, (("diamond", 1), ("ruby", 1)))
        del recorder.events[:]
        table.act(0, discard)
        self.assertEqual(withoutTimes(recorder.events), [
            events.ActionPlayed(0, discard, False,
                                moves.OperationDone(0, discard), 0),
            events.TurnStarted(1, None, 0)])

    def test_nobles(self):
        """
        Two nobles earned: NobleOffered; the choice is an ActionPlayed
        (no detail) then NobleAwarded, chosen.  One noble earned:
        NobleAwarded by itself.
        """
        table, recorder, _ = makeTable(3)
        game = table.game
        game.nobles[:] = [91, 93, 97, 100]
        game.players[0].bonuses = [4, 3, 3, 0, 0]
        game.board[0][0] = 1
        tokens(game.players[0], ruby=4)
        game.bank[3] = 1
        table.act(0, Action("buy_card", 1, (("ruby", 4),)))
        self.assertEqual(withoutTimes(recorder.events)[-1],
                         tables.NobleOffered(0, (91, 93), 0))
        del recorder.events[:]
        table.act(0, Action("get_noble", 93))
        self.assertEqual(withoutTimes(recorder.events), [
            events.ActionPlayed(0, Action("get_noble", 93), False, None, 0),
            tables.NobleAwarded(0, 93, True, 0),
            events.TurnStarted(1, None, 0)])
        game.players[1].bonuses = [0, 0, 0, 4, 4]
        del recorder.events[:]
        table.act(1, TAKE)
        self.assertEqual(withoutTimes(recorder.events)[1:], [
            tables.NobleAwarded(1, 97, False, 0),
            events.TurnStarted(2, None, 0)])

    def test_turnSkipped(self):
        """
        A seat that cannot act passes: TurnSkipped, then the next turn.
        """
        table, recorder, _ = makeTable(3)
        game = table.game
        game.bank = [0, 0, 1, 1, 1, 0]
        game.players[1].reserved = [1, 2, 3]
        del recorder.events[:]
        table.act(0, TAKE)
        self.assertEqual(withoutTimes(recorder.events)[1:], [
            tables.TurnSkipped(1, 0), events.TurnStarted(2, None, 0)])

    def test_normalEnd(self):
        """
        The end of the last round: GameEnded, normal, every seat ranked.
        """
        table, recorder, _ = makeTable(2)
        table.game.players[1].points = 15
        table.act(0, TAKE)
        table.act(1, TAKE)
        self.assertEqual(recorder.events[-1],
                         events.GameEnded(events.NORMAL, (1, 0), 1, 0))
        self.assertTrue(table.over)


class DropTests(SynchronousTestCase):
    """
    A seat's player leaves: retirement, or takeover by a bot.
    """

    def test_offTurn(self):
        """
        Someone else's turn: SeatDropped and SeatEliminated, nothing
        more until the turn order skips the seat.
        """
        table, recorder, _ = makeTable(3)
        del recorder.events[:]
        table.drop(1)
        self.assertEqual(withoutTimes(recorder.events), [
            events.SeatDropped(1, 0),
            events.SeatEliminated(1, events.FORFEIT, 0)])
        del recorder.events[:]
        table.act(0, TAKE)
        self.assertEqual(recorder.events[-1], events.TurnStarted(2, None, 0))
        table.drop(1)
        self.assertEqual(len(recorder.events), 2)

    def test_onTurn(self):
        """
        The mover's own turn: the turn passes at once.
        """
        table, recorder, _ = makeTable(3)
        del recorder.events[:]
        table.drop(0)
        self.assertEqual(withoutTimes(recorder.events), [
            events.SeatDropped(0, 0),
            events.SeatEliminated(0, events.FORFEIT, 0),
            events.TurnStarted(1, None, 0)])

    def test_duringDiscard(self):
        """
        The mover drops with a discard pending: the first legal discard is
        played for them (by the server), then the next turn.
        """
        table, recorder, _ = makeTable(3)
        tokens(table.game.players[0], diamond=3, sapphire=3, emerald=3)
        table.act(0, TAKE)
        first = table.game.legalActions(0)[0]
        del recorder.events[:]
        table.drop(0)
        self.assertEqual(withoutTimes(recorder.events), [
            events.SeatDropped(0, 0),
            events.SeatEliminated(0, events.FORFEIT, 0),
            events.ActionPlayed(0, first, True,
                                moves.OperationDone(0, first), 0),
            events.TurnStarted(1, None, 0)])

    def test_twoSeatsDuringDiscard(self):
        """
        The same in a two-seat game: the discard is played, then the game
        ends, won by forfeit by the one left.
        """
        table, recorder, _ = makeTable(2)
        tokens(table.game.players[0], diamond=3, sapphire=3, emerald=3)
        table.act(0, TAKE)
        first = table.game.legalActions(0)[0]
        del recorder.events[:]
        table.drop(0)
        self.assertEqual(withoutTimes(recorder.events), [
            events.SeatDropped(0, 0),
            events.SeatEliminated(0, events.FORFEIT, 0),
            events.ActionPlayed(0, first, True,
                                moves.OperationDone(0, first), 0),
            events.GameEnded(events.FORFEIT, (1,), 1, 0)])
        self.assertEqual(table.game.players[0].tokenCount(), 10)

    def test_lastOneWins(self):
        """
        Two seats, one leaves: the other wins by forfeit at once.
        """
        table, recorder, _ = makeTable(2)
        table.game.players[0].points = 14
        table.drop(0)
        self.assertEqual(recorder.events[-1],
                         events.GameEnded(events.FORFEIT, (1,), 1, 0))
        table.drop(1)
        self.assertEqual(recorder.events[-1].__class__, events.GameEnded)

    def test_takeover(self):
        """
        With takeover, a bot of the configured level plays the seat one
        action per delay: SeatTakenOver, then ActionPlayed by the bot.
        """
        table, recorder, clock = makeTable(2, takeover="bot", botLevel=1,
                                           botDelay=0.5)
        del recorder.events[:]
        table.drop(0)
        self.assertEqual(withoutTimes(recorder.events), [
            events.SeatDropped(0, 0), events.SeatTakenOver(0, 1, 0)])
        pilot = table.takeover.pilots[0]
        self.assertIsInstance(pilot, SeatPilot)
        self.assertTrue(pilot.pending)
        clock.advance(0.5)
        played = recorder.events[2]
        self.assertIsInstance(played, events.ActionPlayed)
        self.assertEqual((played.seat, played.byBot, played.at),
                         (0, True, 0.5))
        self.assertEqual(recorder.events[-1],
                         events.TurnStarted(1, None, 0.5))
        self.assertEqual(clock.getDelayedCalls(), [])
        self.assertRaises(NotYourTurn, table.act, 0, TAKE)

    def test_takeoverOffTurn(self):
        """
        A seat taken over while another acts: its bot acts when its turn
        comes.
        """
        table, recorder, clock = makeTable(3, takeover="bot", botDelay=1)
        table.drop(1)
        self.assertEqual(clock.getDelayedCalls(), [])
        table.act(0, TAKE)
        clock.advance(1)
        self.assertEqual(recorder.events[-1], events.TurnStarted(2, None, 1))

    def test_abandoned(self):
        """
        With takeover, the game is abandoned when the last human leaves:
        GameEnded without a winner, and no bot acts any more.
        """
        table, recorder, clock = makeTable(2, takeover="bot")
        table.drop(0)
        table.drop(1)
        self.assertEqual(recorder.events[-1],
                         events.GameEnded(events.ABANDONED, (), None, 0))
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_stop(self):
        """
        Stopping the table cancels its bots and tells nobody.
        """
        table, recorder, clock = makeTable(3, takeover="bot")
        table.drop(0)
        count = len(recorder.events)
        table.stop()
        self.assertEqual(clock.getDelayedCalls(), [])
        self.assertEqual(len(recorder.events), count)


class ReplayTests(SynchronousTestCase):
    """
    A listener hears a whole game and L{tables.replay} rebuilds the same
    final position from the events alone.
    """

    def playWhole(self, seats, seed, drops=0, takeover=None):
        """
        Level-1 bots play every seat through L{act}; C{drops} players
        leave at random moments.
        """
        table, recorder, clock = makeTable(seats, seed, takeover=takeover,
                                           botLevel=1, botDelay=1)
        rng = random.Random(seed)
        bots = [botFor("splendor", 1, seed=seed * 10 + s)
                for s in range(seats)]
        dropAt = set(rng.sample(range(1, 120), drops))
        for step in range(5000):
            if table.over:
                break
            seat = table.game.currentSeat
            if step in dropAt:
                table.drop(rng.choice(
                    [s for s in range(seats) if s not in table.departed]))
            elif seat in table.departed:
                clock.advance(1)
            else:
                table.act(seat, bots[seat].chooseAction(
                    table.game.copy(), seat))
        self.assertTrue(table.over)
        self.assertEqual(state(tables.replay(recorder.events)),
                         state(table.game))
        return recorder

    def test_wholeGames(self):
        """
        Whole 2-, 3- and 4-seat games.
        """
        for seats in (2, 3, 4):
            for seed in range(3):
                recorder = self.playWhole(seats, seed)
                self.assertEqual(recorder.events[-1].reason, events.NORMAL)

    def test_withRetirements(self):
        """
        Games where players leave and their seats retire, pending
        discards and nobles settled on the way.
        """
        for seed in range(12):
            self.playWhole(2 + seed % 3, seed, drops=1 + seed % 2)

    def test_withTakeover(self):
        """
        Games where bots take departed seats over.
        """
        for seed in range(6):
            self.playWhole(2 + seed % 3, seed, drops=1, takeover="bot")

    def test_contradiction(self):
        """
        Events that do not fit together are refused.
        """
        self.assertRaises(ValueError, tables.replay, [])
        table, recorder, _ = makeTable(2)
        game = table.game
        while game.phase != rules.PHASE_DISCARD:
            table.act(game.currentSeat, game.legalActions(game.currentSeat)[0])
        table.drop(game.currentSeat)
        played = recorder.ofType(events.ActionPlayed)[-1]
        self.assertEqual(played.action.kind, rules.DISCARD_GEMS)
        self.assertTrue(played.byBot)
        self.assertEqual(state(tables.replay(recorder.events)),
                         state(table.game))
        forged = list(recorder.events)
        forged[forged.index(played)] = events.ActionPlayed(
            played.seat, Action("discard_gems", 0, (("golden", 9),)), True,
            None, 0)
        self.assertRaises(ValueError, tables.replay, forged)


class Observer(RoomObserver):
    """
    A room observer that remembers nothing.
    """


class SeatingTests(SynchronousTestCase):
    """
    L{tables.SplendorSeats} and L{tables.SplendorStartPolicy} over a real
    lobby.
    """

    def setUp(self):
        self.clock = Clock()
        self.lobby = Lobby()
        self.sessions = Sessions(self.clock)
        self.recorders = []
        self.policy = tables.SplendorStartPolicy(
            self.lobby, self.clock, random.Random(3),
            TableOptions(), self.listenerFor)
        self.seats = tables.SplendorSeats(self.lobby, self.policy)

    def listenerFor(self, room, table):
        recorder = EventRecorder()
        self.recorders.append(recorder)
        return recorder

    def player(self, ready=True):
        session = self.sessions.connect("splendor", object())
        self.seats.seat(session, Observer())
        if ready:
            self.lobby.setReady(session, True)
        return session

    def test_policy(self):
        """
        The policy is an L{IStartPolicy}; its table seats the members in
        a shuffled order (each member's C{seat}), with the adapter's
        listener.
        """
        self.assertTrue(verifyObject(IStartPolicy, self.policy))
        sessions = [self.player(ready=False) for _ in range(4)]
        for session in sessions[:3]:
            self.lobby.setReady(session, True)
        self.assertEqual(self.recorders, [])
        self.lobby.setReady(sessions[3], True)
        room = self.lobby.roomOf(sessions[0])
        table = room.table
        self.assertIsInstance(table, tables.SplendorTable)
        self.assertEqual(sorted(m.seat for m in room.members), [0, 1, 2, 3])
        for member in room.members:
            self.assertEqual(table.seats[member.seat].playerId,
                             member.session.id)
        self.assertNotEqual([s.playerId for s in table.seats],
                            [s.id for s in sessions])
        [recorder] = self.recorders
        self.assertIsInstance(recorder.events[0], events.GameStarted)

    def test_fullTableNotJoined(self):
        """
        Four fill a room; the fifth opens another.
        """
        sessions = [self.player(ready=False) for _ in range(5)]
        first, second = self.lobby.rooms("splendor")
        self.assertEqual(len(first.members), 4)
        self.assertIs(self.lobby.roomOf(sessions[4]), second)

    def test_startAfterDeparture(self):
        """
        The one not ready leaves: the rest start.
        """
        ready = [self.player(), self.player()]
        late = self.player(ready=False)
        self.seats.leave(late)
        room = self.lobby.roomOf(ready[0])
        self.assertTrue(room.running)
        self.assertEqual(room.table.game.seatCount, 2)

    def test_endDissolves(self):
        """
        When the game ends the room is dissolved: its members may sit
        again.
        """
        a, b = self.player(), self.player()
        seat = self.lobby.memberOf(b).seat
        self.seats.leave(a)
        self.assertIsNone(self.lobby.roomOf(b))
        self.assertEqual(self.lobby.rooms("splendor"), [])
        self.assertEqual(self.recorders[0].events[-1],
                         events.GameEnded(events.FORFEIT, (seat,), seat, 0))


class HubStopTests(SynchronousTestCase):
    """
    Stopping the hub mid-game leaves nothing on the clock.
    """

    def test_stopMidGame(self):
        """
        Two games, one with a takeover bot's action pending and paced
        frames waiting: stopping the hub cancels everything.
        """
        h = Harness(takeover="bot", botDelay=5, minGap=0.5)
        first = h.table(3)
        h.table(2)
        room = h.lobby.roomOf(first[0].protocol.session)
        seat0 = [c for c in first
                 if room.memberOf(c.protocol.session).seat == 0][0]
        seat0.drop()
        self.assertTrue(room.table.takeover.pilots[0].pending)
        self.assertTrue(any(c.protocol.pacer.pending for c in first))
        self.assertNotEqual(h.pendingCalls(), [])
        h.stop()
        self.assertEqual(h.pendingCalls(), [])
