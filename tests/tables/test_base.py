"""
Tests for what every table shares: the tracked clock, the hub service,
the listeners and the takeover of departed seats.
"""

from twisted.internet.task import Clock
from twisted.trial import unittest
from zope.interface.verify import verifyObject

from hub.clock import TrackedClock
from hub.ihub import ITable, ITableListener
from hub.service import Hub
from hub.tables import events
from hub.tables.base import (
    EventRecorder, GameIsOver, NotSeated, NotYourTurn, Table, TableOptions)
from hub.thinkers.inline import InlineThinker


class CountingGame:
    """
    A rules object of two seats that take turns adding one to a count;
    the game is over at C{limit}.
    """

    seatCount = 2

    def __init__(self, limit=4):
        self.count = 0
        self.limit = limit

    @property
    def isOver(self):
        return self.count >= self.limit

    @property
    def currentSeat(self):
        return None if self.isOver else self.count % 2

    def legalActions(self, seat):
        return [1] if seat == self.currentSeat else []

    def apply(self, seat, action):
        self.count += action

    def copy(self):
        game = CountingGame(self.limit)
        game.count = self.count
        return game


class FirstLegalBot:
    """
    Plays the first legal action.
    """

    level = 1

    def chooseAction(self, state, seat):
        return state.legalActions(seat)[0]


class CountingTable(Table):
    """
    The smallest table: a turn clock that ends the game on a timeout.
    """

    kind = "counting"

    def position(self):
        return {"count": self.game.count}

    def act(self, seat, action, byBot=False):
        self.checkTurn(seat)
        self.game.apply(seat, action)
        self.playedAction(seat, action, byBot, None, self.now())
        if self.game.isOver:
            self.end(events.NORMAL, [1, 0], 1)
        else:
            self.startTurn()

    def botAct(self, seat, action):
        self.act(seat, action, byBot=True)

    def timedOut(self):
        seat = self.game.currentSeat
        self.emit(events.SeatTimedOut(seat, self.now()))
        self.end(events.TIMEOUT, [1 - seat, seat], 1 - seat)


def makeTable(clock, **options):
    seats = [events.Seat(0, "ann", 1), events.Seat(1, "ben", 2)]
    options.setdefault("thinker", InlineThinker(
        lambda kind, level, seed: FirstLegalBot()))
    table = CountingTable("t1", seats, CountingGame(), clock,
                          TableOptions(**options))
    recorder = EventRecorder()
    table.addListener(recorder)
    return table, recorder


class TrackedClockTests(unittest.TestCase):
    """
    L{TrackedClock} keeps the calls it made until they run or are
    cancelled, and cancels the rest on demand.
    """

    def test_runsAndForgets(self):
        clock = Clock()
        tracked = TrackedClock(clock)
        ran = []
        tracked.callLater(1, ran.append, "a")
        self.assertEqual(len(tracked.getDelayedCalls()), 1)
        clock.advance(1)
        self.assertEqual(ran, ["a"])
        self.assertEqual(tracked.getDelayedCalls(), [])

    def test_cancelAll(self):
        clock = Clock()
        tracked = TrackedClock(clock)
        for delay in range(100):
            tracked.callLater(delay + 1, lambda: None)
        tracked.callLater(5, lambda: None).cancel()
        tracked.cancelAll()
        self.assertEqual(clock.getDelayedCalls(), [])
        self.assertEqual(tracked.getDelayedCalls(), [])

    def test_loopsStopped(self):
        """
        A L{LoopingCall} made by C{loop} runs on the tracked clock and is
        stopped (its Deferred fired, no call left) by C{cancelAll}; one
        stopped by its owner first is left alone.
        """
        clock = Clock()
        tracked = TrackedClock(clock)
        ran = []
        loop = tracked.loop(ran.append, "tick")
        done = loop.start(1, now=True)
        other = tracked.loop(lambda: None)
        other.start(1)
        other.stop()
        clock.advance(1)
        self.assertEqual(ran, ["tick", "tick"])
        self.assertEqual(len(tracked.getDelayedCalls()), 1)
        tracked.cancelAll()
        self.assertFalse(loop.running)
        self.assertIs(self.successResultOf(done), loop)
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_cancelSome(self):
        """
        C{cancel(calls)} cancels those of C{calls} still pending and
        leaves the calls made since.
        """
        clock = Clock()
        tracked = TrackedClock(clock)
        early = tracked.callLater(1, lambda: None)
        ran = tracked.callLater(1, lambda: None)
        before = tracked.getDelayedCalls()
        ran.cancel()
        later = tracked.callLater(5, lambda: None)
        tracked.cancel(before)
        self.assertFalse(early.active())
        self.assertEqual(tracked.getDelayedCalls(), [later])

    def test_cancelledCallsAreNotKept(self):
        """
        Calls cancelled by their owner are pruned, so the set stays
        bounded however many are made.
        """
        tracked = TrackedClock(Clock())
        for _ in range(10000):
            tracked.callLater(1, lambda: None).cancel()
        self.assertLess(len(tracked._calls), 200)

    def test_seconds(self):
        clock = Clock()
        clock.advance(12.5)
        self.assertEqual(TrackedClock(clock).seconds(), 12.5)


class HubTests(unittest.TestCase):
    """
    Stopping the L{Hub} leaves nothing on the reactor.
    """

    def test_stopCancelsTimers(self):
        clock = Clock()
        hub = Hub(clock)
        hub.startService()
        table, _ = makeTable(hub.clock, turnSeconds=10, takeover="bot")
        table.start()
        table.takeOver(0)
        self.assertNotEqual(clock.getDelayedCalls(), [])
        hub.stopService()
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_sessionsAreAChild(self):
        hub = Hub(Clock())
        self.assertIs(hub.getServiceNamed("sessions"), hub.sessions)
        self.assertIs(hub.sessions.clock, hub.clock)


class TableTests(unittest.TestCase):
    """
    The base L{Table}: events in order, the turn clock, refusals,
    takeover.
    """

    def setUp(self):
        self.clock = Clock()
        self.clock.advance(100)

    def test_interfaces(self):
        table, recorder = makeTable(self.clock)
        verifyObject(ITable, table)
        verifyObject(ITableListener, recorder)

    def test_startAndTurns(self):
        table, recorder = makeTable(self.clock, turnSeconds=10,
                                    turnGrace=0.5)
        table.start()
        started, turn = recorder.events
        self.assertEqual(started, events.GameStarted(
            "counting", "t1", table.seats, {"count": 0}, 100))
        self.assertEqual(turn, events.TurnStarted(0, 110.5, 100))
        self.clock.advance(3)
        table.act(0, 1)
        self.assertEqual(recorder.events[2:], [
            events.ActionPlayed(0, 1, False, None, 103),
            events.TurnStarted(1, 113.5, 103)])

    def test_actionsKept(self):
        """
        The table keeps its game's actions, each the tuple of its
        L{events.ActionPlayed}'s fields, added before the event is told:
        a listener finds the action it hears at the end of the list.
        """
        table, recorder = makeTable(self.clock)
        heard = []

        class Reader:
            def tableEvent(self, table, event):
                if type(event) is events.ActionPlayed:
                    heard.append((event, list(table.actions)))

        table.addListener(Reader())
        self.assertEqual(list(table.actions), [])
        table.start()
        table.act(0, 1)
        self.clock.advance(2)
        table.act(1, 1, byBot=True)
        self.assertEqual(list(table.actions), [(0, 1, False, None, 100),
                                               (1, 1, True, None, 102)])
        for event, actions in heard:
            self.assertEqual(events.ActionPlayed(*actions[-1]), event)
        self.assertEqual([len(actions) for _, actions in heard], [1, 2])

    def test_actionsKeepNoDetail(self):
        """
        An action's C{detail}, which its players heard when it was played,
        is not kept in the table's actions.
        """
        table, recorder = makeTable(self.clock)
        table.start()
        table.playedAction(0, 1, False, ("heard",), 100)
        self.assertEqual(recorder.events[-1],
                         events.ActionPlayed(0, 1, False, ("heard",), 100))
        self.assertEqual(list(table.actions), [(0, 1, False, None, 100)])

    def test_refusals(self):
        table, _ = makeTable(self.clock)
        table.start()
        self.assertRaises(NotYourTurn, table.act, 1, 1)
        self.assertRaises(NotSeated, table.act, 2, 1)
        self.assertRaises(NotSeated, table.act, None, 1)
        for seat in (0, 1, 0, 1):
            table.act(seat, 1)
        self.assertRaises(GameIsOver, table.act, 0, 1)

    def test_timeout(self):
        table, recorder = makeTable(self.clock, turnSeconds=10,
                                    turnGrace=0.5)
        table.start()
        self.clock.advance(10.4)
        self.assertFalse(table.over)
        self.clock.advance(0.1)
        self.assertEqual(recorder.events[-2:], [
            events.SeatTimedOut(0, 110.5),
            events.GameEnded(events.TIMEOUT, (1, 0), 1, 110.5)])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_actionCancelsTheClock(self):
        table, _ = makeTable(self.clock, turnSeconds=10)
        table.start()
        self.clock.advance(9)
        table.act(0, 1)
        self.clock.advance(9)
        self.assertFalse(table.over)
        self.assertEqual(len(self.clock.getDelayedCalls()), 1)

    def test_clockSetAgainRingsAtTheDeadline(self):
        """
        A move keeps the turn clock; rung at the earlier turn's deadline,
        it is set again to ring no later than the new one, and rings for
        the next seat once the clock gets there.
        """
        for start in (0.1, 208.44687571249474, 1e9 + 0.3):
            clock = Clock()
            clock.advance(start)
            table, recorder = makeTable(clock, turnSeconds=10)
            table.start()
            clock.advance(2.7)
            table.act(0, 1)
            deadline = clock.seconds() + 10
            clock.advance(8)
            self.assertFalse(table.over)
            [call] = clock.getDelayedCalls()
            self.assertLessEqual(call.getTime(), deadline)
            self.assertAlmostEqual(call.getTime(), deadline, places=6)
            clock.advance(deadline - clock.seconds())
            for _ in range(3):
                # Short of the deadline by a hair's float: set again for
                # the hair, then rung.
                if table.over:
                    break
                clock.advance(max(0.0, deadline - clock.seconds()) or 1e-9)
            self.assertTrue(table.over)
            self.assertEqual(type(recorder.events[-2]), events.SeatTimedOut)
            self.assertEqual(recorder.events[-2].seat, 1)
            self.assertEqual(clock.getDelayedCalls(), [])

    def test_takeover(self):
        """
        A bot plays a taken-over seat after its delay, as the player
        would have; its actions are marked C{byBot}.
        """
        table, recorder = makeTable(self.clock, takeover="bot",
                                    botDelay=1.0, botLevel=3)
        table.start()
        table.takeOver(1)
        self.assertEqual(recorder.events[-1],
                         events.SeatTakenOver(1, 3, 100))
        table.act(0, 1)
        self.clock.advance(1)
        self.assertEqual(recorder.ofType(events.ActionPlayed)[-1],
                         events.ActionPlayed(1, 1, True, None, 101))

    def test_takeoverOnItsTurn(self):
        table, recorder = makeTable(self.clock, botDelay=0.5)
        table.start()
        table.takeOver(0)
        self.clock.advance(0.5)
        self.assertEqual(recorder.ofType(events.ActionPlayed),
                         [events.ActionPlayed(0, 1, True, None, 100.5)])

    def test_endStopsBots(self):
        table, recorder = makeTable(self.clock, botDelay=0.5)
        table.start()
        table.takeOver(0)
        table.abandon()
        self.assertEqual(recorder.events[-1],
                         events.GameEnded(events.ABANDONED, (), None, 100))
        self.assertEqual(self.clock.getDelayedCalls(), [])
        table.abandon()
        self.assertEqual(len(recorder.ofType(events.GameEnded)), 1)

    def test_listenerHears(self):
        """
        A listener added with C{hears} is told only of events of those
        types, in its place among the others; added again, it keeps its
        place and hears what it now asks; removed, nothing.
        """
        table, recorder = makeTable(self.clock)
        some, last = EventRecorder(), EventRecorder()
        told = []
        for each in (recorder, some, last):
            each.tableEvent = (lambda each: lambda table, event: told.append(
                (each, type(event))))(each)
        table.addListener(some, hears=[events.ActionPlayed])
        table.addListener(last)
        table.start()
        table.act(0, 1)
        self.assertEqual(told, [
            (recorder, events.GameStarted), (last, events.GameStarted),
            (recorder, events.TurnStarted), (last, events.TurnStarted),
            (recorder, events.ActionPlayed), (some, events.ActionPlayed),
            (last, events.ActionPlayed),
            (recorder, events.TurnStarted), (last, events.TurnStarted)])
        del told[:]
        table.addListener(some)
        table.act(1, 1)
        self.assertEqual(table.listeners, [recorder, some, last])
        self.assertEqual([who for who, kind in told
                          if kind is events.TurnStarted],
                         [recorder, some, last])
        del told[:]
        table.removeListener(some)
        table.act(0, 1)
        self.assertNotIn(some, [who for who, kind in told])

    def test_failingListener(self):
        """
        A listener that raises is logged; the others still hear.
        """
        table, recorder = makeTable(self.clock)

        class Broken:
            def tableEvent(self, table, event):
                raise RuntimeError("broken")

        table.listeners.insert(0, Broken())
        table.start()
        self.assertEqual(len(recorder.events), 2)
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 2)

    def test_stop(self):
        table, recorder = makeTable(self.clock, turnSeconds=10)
        table.start()
        table.takeOver(0)
        before = len(recorder.events)
        table.stop()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertEqual(len(recorder.events), before)


class CopyStateTests(unittest.TestCase):
    """
    L{hub.games.state.copyState} copies every field, present and future.
    """

    def test_newFieldsAreCopied(self):
        from hub.games.gomoku import GomokuGame
        from hub.games.state import copyState
        game = GomokuGame()
        game.addedLater = [[1, 2], [3]]
        game.alsoLater = {"a": [1]}
        other = copyState(game)
        other.addedLater[0].append(9)
        other.alsoLater["a"].append(9)
        other.board[0] = 7
        self.assertEqual(game.addedLater, [[1, 2], [3]])
        self.assertEqual(game.alsoLater, {"a": [1]})
        self.assertEqual(game.board[0], 0)

    def test_slots(self):
        from hub.games.splendor import PlayerState
        player = PlayerState()
        player.tokens[0] = 3
        other = player.copy()
        other.tokens[0] = 5
        other.reserved.append(1)
        self.assertEqual(player.tokens[0], 3)
        self.assertEqual(player.reserved, [])
