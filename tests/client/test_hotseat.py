"""
The hot seat: several people at one screen (offline checkers and
Splendor).  The screen shows the seat to move and a banner says whose
turn it is: L{hub.client.hotseat} on state machines fed the server's
messages, then the desktop client in a window, playing an offline game
with two people at the screen (both under AI 托管).
"""

import os
import shutil
import tempfile

from twisted.internet import defer, reactor
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.client import hotseat
from hub.client import state as S
from hub.client.session import Options
from hub.client.state_checkers import CheckersState
from hub.client.state_splendor import SplendorState
from hub.client.userdirs import UserConfig
from hub.wire import checkers as CW
from hub.wire import splendor as SW
from tests.client.test_splendor_state import START
from tests.client.test_windows import requireDisplay


class Seat:
    """
    A session at the screen: only its state matters here.
    """

    def __init__(self, state):
        self.state = state


def tell(seats, message):
    """
    Every state at the screen receives C{message}, as each one's own
    connection delivers it.
    """
    for seat in seats:
        seat.state.messageReceived(message)


class CheckersHotSeatTests(SynchronousTestCase):
    """
    Three regions, two of them people at this screen, one a bot.
    """

    def setUp(self):
        self.ann = Seat(CheckersState("ann"))
        self.bob = Seat(CheckersState("bob"))
        self.seats = [self.ann, self.bob]
        tell(self.seats, (CW.START_GAME_OP, "ann bob bot", "A C E"))

    def turn(self, region):
        tell(self.seats, (CW.START_TURN_OP, region, "1700000000"))

    def test_showsTheSeatToMove(self):
        """
        On ann's turn ann's view is shown, on bob's bob's; while the bot
        moves, whoever was shown stays.
        """
        self.turn("A")
        self.assertIs(hotseat.sessionToShow(self.bob, self.seats), self.ann)
        self.assertIs(hotseat.sessionToShow(self.ann, self.seats), self.ann)
        self.turn("C")
        self.assertIs(hotseat.sessionToShow(self.ann, self.seats), self.bob)
        self.turn("E")
        self.assertIs(hotseat.sessionToShow(self.bob, self.seats), self.bob)
        self.assertIs(hotseat.sessionToShow(self.ann, self.seats), self.ann)

    def test_banner(self):
        """
        The banner names the player to move, or says the view is theirs
        while others move.
        """
        self.turn("C")
        self.assertEqual(hotseat.bannerText(self.bob.state),
                         "Hot seat: bob to move")
        self.assertEqual(hotseat.bannerText(self.ann.state),
                         "Hot seat: ann's view, others moving")

    def test_beforeTheGame(self):
        """
        In the room nothing switches; one person alone is no hot seat.
        """
        ann = Seat(CheckersState("ann"))
        bob = Seat(CheckersState("bob"))
        self.assertIs(hotseat.sessionToShow(ann, [ann, bob]), ann)
        self.assertFalse(hotseat.isHotSeat([ann]))
        self.assertTrue(hotseat.isHotSeat(self.seats))
        self.turn("C")
        self.assertIs(hotseat.sessionToShow(self.ann, [self.ann]), self.ann)


class SplendorHotSeatTests(SynchronousTestCase):
    """
    Three Splendor players, two of them at this screen.
    """

    def setUp(self):
        self.seats = []
        for pid in (1, 2):
            state = SplendorState("p%d" % (pid,))
            state.messageReceived((SW.INIT_RESP, pid,
                                   {"allocated_player_id": pid}))
            self.seats.append(Seat(state))
        start = dict(START, players_number=3, players_sequence=[2, 3, 1])
        tell(self.seats, (SW.GAME_START, 0, start))

    def newTurn(self, pid):
        tell(self.seats, (SW.NEW_TURN, 0, {"new_turn_player": pid}))

    def test_showsTheSeatToMove(self):
        one, two = self.seats
        self.newTurn(2)
        self.assertIs(hotseat.sessionToShow(one, self.seats), two)
        self.assertEqual(hotseat.bannerText(two.state),
                         "Hot seat: p2 to move")
        self.newTurn(3)
        self.assertIs(hotseat.sessionToShow(two, self.seats), two)
        self.newTurn(1)
        self.assertIs(hotseat.sessionToShow(two, self.seats), one)
        self.assertEqual(hotseat.bannerText(two.state),
                         "Hot seat: p2's view, others moving")


class NoStop:
    """
    The real reactor, except that the app may not stop it.
    """

    running = False

    def stop(self):
        pass

    def __getattr__(self, name):
        return getattr(reactor, name)


class HotSeatWindowTests(TestCase):
    """
    An offline checkers game of three with two people at the screen
    (both under AI 托管) and a bot: whenever one of them is to move, the
    window shows that one's view, with the banner.
    """

    timeout = 90

    @defer.inlineCallbacks
    def test_checkersTwoPeople(self):
        from client_pyglet.app import App
        import pyglet
        requireDisplay(self)
        d = tempfile.mkdtemp(prefix="client-hotseat-")
        self.addCleanup(shutil.rmtree, d, True)
        app = App(NoStop(), reactor, Options(
            game=None, name="pat", offline="checkers", players=3, humans=2,
            bot=2, botDelay=0.01, records="none"),
            config=UserConfig(os.path.join(d, "c.json")))
        problems = []
        shownWhenToMove = set()
        enough = defer.Deferred()

        def check(*args, **details):
            humans = [s for s in app.connection.sessions
                      if s.state.phase == S.GAME and s.state.isMyTurn()]
            if len(humans) == 1:
                if app.session is not humans[0]:
                    problems.append((humans[0].state.name,
                                     app.session.state.name))
                shownWhenToMove.add(app.session.state.name)
            board = app.session.state.board if app.session else None
            if board is not None and board.plies >= 12 and \
                    not enough.called:
                enough.callback(None)
        addSession = app.connection.addSession

        def add(options):
            session = addSession(options)
            session.state.subscribe(check)
            return session
        app.connection.addSession = add
        app.start()
        self.addCleanup(app.stop, 0)
        yield enough.addTimeout(60, reactor)
        self.assertEqual(problems, [])
        self.assertEqual(shownWhenToMove, {"pat", "pat2"})
        self.assertTrue(app.connection.hotSeat)
        app.scene.invalidate()
        app.pumpOnce()
        texts = [o.text for o in app.scene._keep
                 if isinstance(o, pyglet.text.Label)]
        self.assertIn(hotseat.bannerText(app.session.state), texts)
        self.assertEqual(app.scene.turns, (
            "ABCDEF".index("D")
            - "ABCDEF".index(app.session.state.myRegion())) % 6)
