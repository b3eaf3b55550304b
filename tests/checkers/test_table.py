"""
Tests for L{hub.tables.checkers}: the checkers table without transports
(actions in, a L{Clock} advanced, events out), its start policy, and the
replay of a whole game from its events.
"""

import json
import random

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.bots import botFor
from hub.tables.seatpilot import SeatPilot
from hub.thinkers.inline import InlineThinker
from hub.games import checkers as rules
from hub.ihub import ITable
from hub.lobby import Lobby, RoomObserver
from hub.sessions import Sessions
from hub.tables import events
from hub.tables.base import (
    EventRecorder, GameIsOver, IllegalAction, NotSeated, NotYourTurn,
    TableOptions)
from hub.tables.checkers import (
    CheckersStartPolicy, CheckersTable, positionOf, replay, restore)
from hub.tables.events import (
    GameEnded, GameStarted, SeatDropped, SeatEliminated,
    SeatTakenOver, SeatTimedOut, TurnStarted)

from .support import Server

START = 1000.0
A_STEP = ((-1, 5), (-1, 4))
C_STEP = ((5, -1), (4, -1))


def makeTable(count=2, **options):
    """
    A started table of C{count} seats with a 15 s turn clock plus 0.5 s
    grace, on a L{Clock} at L{START}, and an L{EventRecorder} on it.
    """
    clock = Clock()
    clock.advance(START)
    game = rules.CheckersGame(count)
    seats = [events.Seat(i, "p%d" % (i,), i + 1, game.regionOfSeat(i))
             for i in range(count)]
    options = TableOptions(**dict(dict(turnSeconds=15, turnGrace=0.5),
                                  **options))
    table = CheckersTable("t1", seats, game, clock, options)
    recorder = EventRecorder()
    table.addListener(recorder)
    table.start()
    return table, clock, recorder


def heard(recorder):
    """
    The events C{recorder} heard since the last call.
    """
    new = recorder.events[getattr(recorder, "read", 0):]
    recorder.read = len(recorder.events)
    return new


def snapshot(game):
    """
    What two equal checkers games share.
    """
    return (game.regions, [game.pieces(s) for s in range(game.seatCount)],
            game.finished, game.eliminated, game.currentSeat, game.isOver,
            game.ranking())


class StartTests(SynchronousTestCase):
    """
    A table announces the game and its first turn.
    """

    def test_interface(self):
        """
        A table provides L{ITable}.
        """
        table, clock, recorder = makeTable()
        self.assertTrue(verifyObject(ITable, table))

    def test_start(self):
        """
        GameStarted with the seats and a JSON-able position, then the
        first seat's turn until now + 15.5 s, with its clock running.
        """
        table, clock, recorder = makeTable(3)
        started, turn = heard(recorder)
        self.assertEqual(started, GameStarted(
            "checkers", "t1", table.seats, positionOf(table.game), START))
        self.assertEqual([s.role for s in started.seats], ["A", "C", "E"])
        position = json.loads(json.dumps(started.position))
        self.assertEqual(snapshot(restore(position)),
                         snapshot(rules.CheckersGame(3)))
        self.assertEqual(turn, TurnStarted(0, START + 15.5, START))
        self.assertEqual(len(clock.getDelayedCalls()), 1)

    def test_noClock(self):
        """
        Without C{turnSeconds} turns have no deadline and nothing is
        scheduled.
        """
        table, clock, recorder = makeTable(turnSeconds=None)
        self.assertEqual(heard(recorder)[-1], TurnStarted(0, None, START))
        self.assertEqual(clock.getDelayedCalls(), [])


class ActTests(SynchronousTestCase):
    """
    Seats act through L{CheckersTable.act}.
    """

    def test_move(self):
        """
        A legal move: ActionPlayed with the rules' result, then the next
        turn with a fresh deadline.
        """
        table, clock, recorder = makeTable()
        heard(recorder)
        clock.advance(3)
        table.act(0, A_STEP)
        played, turn = heard(recorder)
        self.assertEqual((played.seat, played.action, played.byBot,
                          played.at), (0, A_STEP, False, START + 3))
        self.assertEqual(played.detail,
                         rules.TurnResult(0, A_STEP, False, False, 1))
        self.assertEqual(turn, TurnStarted(1, START + 18.5, START + 3))
        self.assertEqual(len(clock.getDelayedCalls()), 1)

    def test_moveKeepsTheClock(self):
        """
        A move keeps the running turn clock, which rings at the first
        turn's deadline, is set again for the next turn's, and then rings
        for the next seat.
        """
        table, clock, recorder = makeTable()
        [call] = clock.getDelayedCalls()
        clock.advance(3)
        table.act(0, A_STEP)
        self.assertEqual(clock.getDelayedCalls(), [call])
        heard(recorder)
        clock.advance(12.5)
        self.assertEqual(heard(recorder), [])
        [again] = clock.getDelayedCalls()
        self.assertEqual(again.getTime(), START + 18.5)
        clock.advance(2.9)
        self.assertEqual(heard(recorder), [])
        clock.advance(0.1)
        self.assertEqual(heard(recorder)[0], SeatTimedOut(1, START + 18.5))

    def test_refusals(self):
        """
        Out of turn, without a seat, or an illegal path: a typed refusal,
        no event, nothing changed.
        """
        table, clock, recorder = makeTable()
        heard(recorder)
        self.assertRaises(NotYourTurn, table.act, 1, ((1, -5), (1, -4)))
        self.assertRaises(NotSeated, table.act, 2, A_STEP)
        self.assertRaises(NotSeated, table.act, None, A_STEP)
        e = self.assertRaises(IllegalAction, table.act, 0,
                              ((-1, 5), (-1, 3)))
        self.assertEqual(str(e), "no piece to jump over at (-1,4)")
        self.assertEqual(heard(recorder), [])
        self.assertEqual((table.game.currentSeat, table.game.plies), (0, 0))

    def test_illegalKeepsClock(self):
        """
        An illegal attempt does not reset the turn clock.
        """
        table, clock, recorder = makeTable(3)
        heard(recorder)
        clock.advance(10)
        self.assertRaises(IllegalAction, table.act, 0, ((-1, 5), (-1, 3)))
        clock.advance(5.5)
        self.assertEqual(heard(recorder)[:2], [
            SeatTimedOut(0, START + 15.5),
            SeatEliminated(0, events.TIMEOUT, START + 15.5)])

    def test_afterEnd(self):
        """
        Once the game is over every action is L{GameIsOver}.
        """
        table, clock, recorder = makeTable()
        clock.advance(15.5)
        self.assertTrue(table.over)
        self.assertRaises(GameIsOver, table.act, 1, ((1, -5), (1, -4)))


class TimeoutTests(SynchronousTestCase):
    """
    The turn clock eliminates the seat that runs out of time.
    """

    def test_timeoutTwo(self):
        """
        In two, a timeout ends the game: the other seat wins.
        """
        table, clock, recorder = makeTable()
        heard(recorder)
        clock.advance(15.4)
        self.assertEqual(heard(recorder), [])
        clock.advance(0.1)
        at = START + 15.5
        self.assertEqual(heard(recorder), [
            SeatTimedOut(0, at), SeatEliminated(0, events.TIMEOUT, at),
            GameEnded(events.TIMEOUT, (1, 0), 1, at)])
        self.assertEqual(table.ended, recorder.events[-1])
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_timeoutThree(self):
        """
        In three, the game goes on with the next seat; the eliminated
        seat's pieces are gone.
        """
        table, clock, recorder = makeTable(3)
        heard(recorder)
        clock.advance(15.5)
        at = START + 15.5
        self.assertEqual(heard(recorder), [
            SeatTimedOut(0, at), SeatEliminated(0, events.TIMEOUT, at),
            TurnStarted(1, at + 15.5, at)])
        self.assertEqual(table.game.pieces(0), [])
        self.assertFalse(table.over)


class DropTests(SynchronousTestCase):
    """
    A player who leaves keeps the seat until its turn.
    """

    def test_dropOnOwnTurn(self):
        """
        The seat to move drops: it is eliminated at once and the next
        seat's turn starts.
        """
        table, clock, recorder = makeTable(3)
        heard(recorder)
        clock.advance(2)
        table.drop(0)
        at = START + 2
        self.assertEqual(heard(recorder), [
            SeatDropped(0, at), SeatEliminated(0, events.FORFEIT, at),
            TurnStarted(1, at + 15.5, at)])

    def test_dropOnOthersTurn(self):
        """
        Another seat drops: nothing more until its turn, which starts
        without a deadline and eliminates it.
        """
        table, clock, recorder = makeTable(3)
        heard(recorder)
        table.drop(1)
        self.assertEqual(heard(recorder), [SeatDropped(1, START)])
        table.act(0, A_STEP)
        self.assertEqual(heard(recorder)[1:], [
            TurnStarted(1, None, START),
            SeatEliminated(1, events.FORFEIT, START),
            TurnStarted(2, START + 15.5, START)])
        self.assertEqual(len(clock.getDelayedCalls()), 1)

    def test_dropEndsTwo(self):
        """
        In two, the other seat's departure ends the game at its turn:
        the game ends by forfeit.
        """
        table, clock, recorder = makeTable()
        table.drop(1)
        table.act(0, A_STEP)
        self.assertEqual(recorder.events[-1],
                         GameEnded(events.FORFEIT, (0, 1), 0, START))

    def test_everyoneGone(self):
        """
        When every seat has dropped the game is abandoned, with nothing
        left on the clock.
        """
        table, clock, recorder = makeTable(3, takeover="bot")
        table.drop(1)
        table.act(0, A_STEP)
        self.assertTrue(table.takeover.pilots[1].pending)
        table.drop(2)
        table.drop(0)
        self.assertEqual(recorder.events[-1],
                         GameEnded(events.ABANDONED, (), None, START))
        self.assertEqual(clock.getDelayedCalls(), [])
        table.drop(0)
        self.assertEqual(len(recorder.ofType(GameEnded)), 1)


class TakeoverTests(SynchronousTestCase):
    """
    With C{takeover="bot"} a bot plays a departed seat.
    """

    def test_dropOnOwnTurn(self):
        """
        The seat to move drops: a bot takes it over and moves after its
        delay; no turn clock runs for it meanwhile.
        """
        table, clock, recorder = makeTable(takeover="bot", botDelay=1.0,
                                           botLevel=2)
        heard(recorder)
        table.drop(0)
        self.assertEqual(heard(recorder), [
            SeatDropped(0, START), SeatTakenOver(0, 2, START)])
        pilot = table.takeover.pilots[0]
        self.assertIsInstance(pilot, SeatPilot)
        self.assertEqual(pilot.level, 2)
        self.assertEqual(len(clock.getDelayedCalls()), 1)
        clock.advance(1)
        played, turn = heard(recorder)
        self.assertEqual((played.seat, played.byBot), (0, True))
        self.assertEqual(turn, TurnStarted(1, START + 16.5, START + 1))

    def test_dropOnOthersTurn(self):
        """
        Another seat drops: its bot takes over when its turn comes.
        """
        table, clock, recorder = makeTable(3, takeover="bot", botDelay=0.5)
        heard(recorder)
        table.drop(1)
        table.act(0, A_STEP)
        self.assertEqual(heard(recorder)[2:], [
            TurnStarted(1, None, START), SeatTakenOver(1, 2, START)])
        legal = table.game.legalActions(1)
        clock.advance(0.5)
        played, turn = heard(recorder)
        self.assertEqual((played.seat, played.byBot), (1, True))
        self.assertIn(played.action, legal)
        self.assertEqual(turn, TurnStarted(2, START + 16, START + 0.5))

    def test_seededBots(self):
        """
        The bot of a seat is asked of the options' C{thinker} with the
        game kind, the level and a seed made of the seat's.
        """
        made = []

        def botFactory(kind, level, seed):
            made.append((kind, level, seed))
            return botFor(kind, level, seed)

        table, clock, recorder = makeTable(
            3, takeover="bot", botLevel=3,
            thinker=InlineThinker(botFactory))
        table.drop(2)
        table.drop(0)
        self.assertEqual(made, [("checkers", 3, 0)])

    def test_takeOverSeated(self):
        """
        L{CheckersTable.takeOver} has a bot play a seat whose player is
        still there, on its turns, within the turn clock.
        """
        table, clock, recorder = makeTable(botDelay=2.0)
        table.takeOver(1)
        table.act(0, A_STEP)
        self.assertEqual(len(clock.getDelayedCalls()), 2)
        clock.advance(2)
        played = recorder.ofType(events.ActionPlayed)[-1]
        self.assertEqual((played.seat, played.byBot), (1, True))
        self.assertEqual(recorder.events[-1].seat, 0)

    def test_noBotsAmongThemselves(self):
        """
        Once nobody connected still plays, departed seats are eliminated
        at their turn instead of played.
        """
        table, clock, recorder = makeTable(3, takeover="bot")
        table.drop(1)
        table.drop(2)
        heard(recorder)
        clock.advance(15.5)
        at = START + 15.5
        self.assertEqual(heard(recorder), [
            SeatTimedOut(0, at), SeatEliminated(0, events.TIMEOUT, at),
            TurnStarted(1, None, at),
            SeatEliminated(1, events.FORFEIT, at),
            GameEnded(events.FORFEIT, (2, 1, 0), 2, at)])
        self.assertEqual(table.takeover.pilots, {})
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_noLegalMove(self):
        """
        A departed seat without a legal move is eliminated even with
        takeover.
        """
        table, clock, recorder = makeTable(3, takeover="bot")
        table.game = rules.CheckersGame.fromPosition("ACE", {
            0: [(7, -3), (7, -4), (6, -2), (-1, 5)],
            1: [(8, -4)], 2: [(6, -4), (-4, -1)]}, currentSeat=1)
        heard(recorder)
        table.drop(1)
        self.assertEqual(heard(recorder), [
            SeatDropped(1, START), SeatEliminated(1, events.FORFEIT, START),
            TurnStarted(2, START + 15.5, START)])


class PolicyTests(SynchronousTestCase):
    """
    L{CheckersStartPolicy} seats a room's members at a new table.
    """

    def test_newTable(self):
        """
        The lobby's start makes a table whose seats follow join order,
        sets each member's seat, and attaches the adapter's listener and
        the lobby's listeners.
        """
        clock = Clock()
        sessions, lobby = Sessions(clock), Lobby()
        adapter, records = EventRecorder(), EventRecorder()
        lobby.addTableListener(records)
        policy = CheckersStartPolicy(
            clock=clock, options=TableOptions(turnSeconds=15),
            listenerFor=lambda room: adapter)
        names = ["ann", "bob", "cy"]
        for name in names:
            session = sessions.connect("checkers", None)
            sessions.setRoomName(session, name)
            if lobby.room("checkers", "r") is None:
                room = lobby.createRoom("checkers", "r", session,
                                        RoomObserver(), policy, 6)
            else:
                lobby.join("checkers", "r", session, RoomObserver())
        for member in room.members:
            self.assertIsNone(member.seat)
            lobby.setReady(member.session, True)
        table = room.table
        self.assertIsInstance(table, CheckersTable)
        self.assertEqual([m.seat for m in room.members], [0, 1, 2])
        self.assertEqual(
            [(s.index, s.name, s.playerId, s.role) for s in table.seats],
            [(i, name, m.session.id, region) for i, (name, m, region)
             in enumerate(zip(names, room.members, "ACE"))])
        self.assertEqual(table.listeners, [adapter, records])
        self.assertEqual(adapter.events, records.events)
        self.assertEqual([type(e) for e in adapter.events],
                         [GameStarted, TurnStarted])


class ReplayTests(SynchronousTestCase):
    """
    A listener hears a whole game and replays it from the events alone.
    """

    def playRandomGame(self, seed):
        """
        Play a whole game with the level-1 bot choosing every move, some
        timeouts and departures (taken over by bots half the time), and
        at most 300 moves before timeouts end it.
        """
        rng = random.Random(seed)
        count = rng.choice([2, 3, 4, 6])
        takeover = "bot" if seed % 2 else None
        table, clock, recorder = makeTable(count, takeover=takeover,
                                           botLevel=1)
        bot = botFor("checkers", 1, seed)
        while not table.over:
            game = table.game
            seat = game.currentSeat
            legal = game.legalActions(seat)
            r = rng.random()
            if seat in table.departed or not legal or game.plies > 300:
                clock.advance(15.5)
            elif r < 0.02:
                clock.advance(15.5)
            elif r < 0.04:
                table.drop(rng.choice(sorted(
                    set(range(count)) - table.departed)))
            else:
                table.act(seat, bot.chooseAction(game.copy(), seat))
        self.assertEqual(clock.getDelayedCalls(), [])
        return table, recorder

    def test_replay(self):
        """
        Replaying the events of random whole games gives the same final
        position and the ranking the table announced.
        """
        for seed in range(16):
            table, recorder = self.playRandomGame(seed)
            ended = recorder.events[-1]
            self.assertIsInstance(ended, GameEnded)
            game = replay(recorder.events)
            if ended.reason == events.ABANDONED:
                self.assertEqual(ended.ranking, ())
            else:
                self.assertTrue(game.isOver, seed)
                self.assertEqual(tuple(game.ranking()), ended.ranking)
            self.assertEqual(snapshot(game), snapshot(table.game), seed)
            json.dumps(recorder.events[0].position)

    def test_replayFinishedGame(self):
        """
        A game of three played to its end by level-2 bots, who finish,
        replays into the same final position.
        """
        table, clock, recorder = makeTable(3)
        bots = [botFor("checkers", 2, seat) for seat in range(3)]
        while not table.over and table.game.plies < 1000:
            seat = table.game.currentSeat
            if table.game.legalActions(seat):
                table.act(seat, bots[seat].chooseAction(table.game.copy(),
                                                         seat))
            else:
                clock.advance(15.5)
        ended = recorder.events[-1]
        self.assertEqual(ended.reason, events.NORMAL)
        self.assertEqual(len(table.game.finished), 2)
        game = replay(recorder.events)
        self.assertEqual(snapshot(game), snapshot(table.game))
        self.assertEqual(tuple(game.ranking()), ended.ranking)

    def test_replayMoves(self):
        """
        A replay applies the moves as played: a few moves then a stop.
        """
        table, clock, recorder = makeTable(2)
        table.act(0, A_STEP)
        table.act(1, ((1, -5), (1, -4)))
        self.assertEqual(snapshot(replay(recorder.events)),
                         snapshot(table.game))
        self.assertIsNone(replay([]))


class HubStopTests(SynchronousTestCase):
    """
    Stopping the hub in the middle of games leaves nothing on the clock.
    """

    def test_stopMidGame(self):
        """
        One game waits on a takeover bot, another on a turn clock; the
        hub stops and no delayed call is left.
        """
        server = Server(takeover="bot")
        a, c, e = server.startGame(["a", "c", "e"], "r1")
        x, y = server.startGame(["x", "y"], "r2")
        c.disconnect()
        a.move("A", "-1 5 -1 4")
        self.assertTrue(server.table("r1").takeover.pilots[1].pending)
        self.assertTrue(server.pendingCalls())
        server.stop()
        self.assertEqual(server.pendingCalls(), [])
        server.clock.advance(100)
        self.assertEqual(x.received(), [])
