"""
Two client sessions (state machines, network, AI 托管, lobby pilot; no
window) play gomoku through C{twistd -n gamehub}; one connection is cut
mid-game and the client resumes with its token.
"""

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from hub.client import events as E
from hub.client import state as S
from hub.client.session import ClientSession, Options
from tests.endtoend import GamehubServer

RESULTS = {("win", "lose"), ("lose", "win"), ("draw", "draw")}


class GomokuReconnectTests(TestCase):
    """
    A dropped gomoku connection during a game.
    """

    timeout = 120

    def setUp(self):
        self.server = GamehubServer(self, games=("gomoku",))
        self.port = self.server.port("gomoku")

    def session(self, name):
        o = Options(game="gomoku", host="127.0.0.1", port=self.port,
                    name=name, room="cut", bot=2)
        s = ClientSession(reactor, reactor, o)
        s.autoplay.delay = 0.05
        over = defer.Deferred()
        s.onGameOver = lambda: over.callback(s)
        s.onFatal = lambda text: over.called or over.errback(
            AssertionError("%s: %s" % (name, text)))
        self.addCleanup(s.stop)
        return s, over

    @defer.inlineCallbacks
    def test_cutAndResume(self):
        """
        The cut client reconnects with its token (same token), the game
        goes on and ends with complementary results on both sides.
        """
        alice, aliceOver = self.session("alice")
        bob, bobOver = self.session("bob")
        cut = defer.Deferred()
        tokens = []

        def watch(event):
            st = alice.state
            if (isinstance(event, E.Moved) and st.phase == S.GAME
                    and st.moveCount >= 4 and not cut.called):
                tokens.append(st.token)
                cut.callback(None)
                reactor.callLater(
                    0, st._protocol.transport.abortConnection)
        alice.state.subscribe(watch)
        inRoom = defer.Deferred()

        def entered(event):
            if alice.state.phase == S.ROOM and not inRoom.called:
                inRoom.callback(None)
        alice.state.subscribe(entered)
        alice.start()
        # bob comes once alice has made the room (no fixed wait)
        yield inRoom
        bob.start()
        yield cut
        yield defer.gatherResults([aliceOver, bobOver])
        self.assertEqual(alice.state.token, tokens[0])
        self.assertIn(("info", "reconnected"), alice.state.messages)
        self.assertIn((alice.state.result, bob.state.result), RESULTS)
        self.assertEqual(alice.state.moveCount, bob.state.moveCount)
