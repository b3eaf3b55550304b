"""
L{ClientSession}'s connection on a fake clock and a fake endpoint: retries
with a backoff while the server cannot be reached, gomoku's reconnection
with its token, and peers that are not a server of the game.
"""

from twisted.internet.error import ConnectionDone, ConnectionLost
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from hub.client import net
from hub.client import state as S
from hub.client.session import ClientSession, Options, defaultRetryPolicy
from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire
from tests.client.support import FakeEndpoint, take

TOKEN = 77


class FakeReactor:
    """
    No threads, no processes: the bot thinks at once.
    """


def retryPolicy(failedAttempts):
    """
    A backoff without jitter: 1, 2, 4, ... seconds.
    """
    return 2.0 ** (failedAttempts - 1)


class SessionTests(SynchronousTestCase):

    def session(self, game="gomoku", refuse=False, **options):
        self.clock = Clock()
        self.endpoint = FakeEndpoint(refuse=refuse)
        o = Options(game=game, host="127.0.0.1", port=4242, name="alice",
                    **options)
        session = ClientSession(FakeReactor(), self.clock, o,
                                endpoint=self.endpoint,
                                retryPolicy=retryPolicy)
        self.fatal = []
        session.onFatal = self.fatal.append
        self.addCleanup(session.stop)
        session.start()
        return session

    def lose(self, reason=ConnectionLost):
        proto, transport = self.endpoint.links[-1]
        proto.connectionLost(Failure(reason()))

    def register(self, session):
        proto, transport = self.endpoint.links[-1]
        take(transport)
        proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, TOKEN, 1)))
        self.assertEqual(session.state.phase, S.LOBBY)
        take(transport)
        return proto, transport


class RetryTests(SessionTests):
    """
    No server: the session keeps trying, with a backoff, and says so.
    """

    def test_retriesWithBackoff(self):
        """
        Each refused attempt is followed by another after the policy's
        delay; the state's last message counts the attempts.
        """
        session = self.session(refuse=True)
        self.assertEqual(self.endpoint.attempts, 1)
        self.assertEqual(session.state.phase, S.CONNECTING)
        self.assertIn("(attempt 1: connection refused); trying again in "
                      "1.0 s",
                      session.state.messages[-1][1])
        self.clock.advance(0.9)
        self.assertEqual(self.endpoint.attempts, 1)
        self.clock.advance(0.1)
        self.assertEqual(self.endpoint.attempts, 2)
        self.clock.advance(2)
        self.assertEqual(self.endpoint.attempts, 3)
        self.clock.advance(4)
        self.assertEqual(self.endpoint.attempts, 4)
        self.assertEqual(session.attempts, 4)
        text = session.state.messages[-1][1]
        self.assertIn("cannot connect to 127.0.0.1:4242 (attempt 4", text)
        self.assertIn("trying again in 8.0 s (Esc quits)", text)
        self.assertEqual(self.fatal, [])

    def test_connectsLater(self):
        """
        Once the server is there, the session connects and greets it.
        """
        session = self.session(refuse=True)
        self.endpoint.refuse = False
        self.clock.advance(1)
        proto, transport = self.endpoint.links[-1]
        self.assertTrue(session.state.connected)
        self.assertEqual(session.state.messages[-1],
                         ("info", "connected to 127.0.0.1:4242"))
        self.assertEqual(gwire.decodeMessage(transport.value()[1:-1])
                         ["msg_type"], gwire.MSG_REG)

    def test_stopEndsRetries(self):
        """
        After C{stop} (Escape in the window) no attempt is made.
        """
        session = self.session(refuse=True)
        session.stop()
        self.clock.advance(100)
        self.assertEqual(self.endpoint.attempts, 1)
        self.assertFalse(session.service.running)

    def test_defaultPolicy(self):
        """
        The default backoff grows and stays within a few seconds, inside
        a gomoku server's reconnect grace.
        """
        policy = defaultRetryPolicy()
        delays = [policy(n) for n in range(1, 30)]
        self.assertLess(delays[0], 2)
        self.assertTrue(all(d <= 10 for d in delays))
        self.assertGreater(delays[-1], delays[0])


class ResumeTests(SessionTests):
    """
    A dropped connection: gomoku resumes with its token, the others end.
    """

    def test_gomokuResumes(self):
        """
        A gomoku player whose connection drops reconnects and sends
        C{msg_reg} with its name and token.
        """
        session = self.session()
        self.register(session)
        self.lose()
        self.assertEqual(session.state.phase, S.LOBBY)
        self.assertIn("reconnecting (attempt 1",
                      session.state.messages[-1][1])
        self.clock.advance(1)
        self.assertEqual(len(self.endpoint.links), 2)
        proto, transport = self.endpoint.links[-1]
        sent = gwire.decodeMessage(transport.value()[1:-1])
        self.assertEqual((sent["msg_type"], sent["name"], sent["token"]),
                         (gwire.MSG_REG, "alice", TOKEN))
        proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, TOKEN, sent["session"])))
        self.assertIn(("info", "reconnected"), session.state.messages)
        self.assertEqual(self.fatal, [])

    def test_gomokuResumeRetries(self):
        """
        While the server cannot be reached the resume is tried again.
        """
        session = self.session()
        self.register(session)
        self.endpoint.refuse = True
        self.lose()
        self.clock.advance(1)
        self.clock.advance(2)
        self.assertEqual(self.endpoint.attempts, 3)
        self.endpoint.refuse = False
        self.clock.advance(4)
        self.assertEqual(len(self.endpoint.links), 2)
        self.assertTrue(session.state.connected)

    def test_checkersEnds(self):
        """
        A dropped checkers connection ends the session: no reconnection.
        """
        session = self.session(game="checkers")
        proto, transport = self.endpoint.links[-1]
        proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_REPLY_OP, "", ""))
        self.lose()
        self.clock.advance(60)
        self.assertEqual(self.endpoint.attempts, 1)
        self.assertEqual(session.state.phase, S.CLOSED)
        self.assertEqual(self.fatal, ["connection closed"])

    def test_afterGameEnds(self):
        """
        A gomoku connection closed after the game is over is not taken
        up again, and is no failure.
        """
        session = self.session()
        proto, transport = self.register(session)
        session.state.setPhase(S.OVER)
        self.lose(ConnectionDone)
        self.clock.advance(60)
        self.assertEqual(self.endpoint.attempts, 1)
        self.assertEqual(self.fatal, [])


class WrongServerTests(SessionTests):
    """
    A gomoku client pointed at another game's port says so within a few
    seconds and stops.
    """

    def assertNoServer(self, session, reason):
        text = "no gomoku server at 127.0.0.1:4242: it " + reason
        self.assertEqual(session.state.messages[-1], ("error", text))
        self.assertEqual(session.state.phase, S.CLOSED)
        self.assertEqual(self.fatal, [text])
        self.assertFalse(session.service.running)
        self.clock.advance(60)
        self.assertEqual(self.endpoint.attempts, 1)

    def test_silent(self):
        """
        No answer to the registration within L{net.ANSWER_SECONDS}.
        """
        session = self.session()
        self.clock.advance(net.ANSWER_SECONDS - 0.1)
        self.assertEqual(session.state.phase, S.CONNECTING)
        self.clock.advance(0.1)
        proto, transport = self.endpoint.links[-1]
        self.assertTrue(transport.disconnecting)
        self.assertNoServer(session, "gave no answer in 5 s")

    def test_otherProtocolsBytes(self):
        """
        A checkers line (or any bytes outside gomoku frames) before any
        answer.
        """
        session = self.session()
        proto, transport = self.endpoint.links[-1]
        line = cwire.encode(cwire.ERROR_OP, "400006", "bad")
        proto.dataReceived(line)
        self.assertTrue(transport.disconnecting)
        self.assertNoServer(
            session, "sent bytes that are not gomoku "
                     "(%d bytes outside <...> frames)" % (len(line),))

    def test_closedWithoutAnswer(self):
        """
        The peer closes the connection before answering (the Splendor
        server does, on a gomoku frame).
        """
        session = self.session()
        self.lose(ConnectionDone)
        self.assertNoServer(session,
                            "closed the connection without an answer")

    def test_answerCancelsTimer(self):
        """
        A server that answers in time is a server: the timer is gone.
        """
        session = self.session()
        self.register(session)
        self.clock.advance(60)
        self.assertEqual(session.state.phase, S.LOBBY)
        self.assertEqual(self.fatal, [])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_splendorGetsGomoku(self):
        """
        A Splendor client that gets a gomoku frame where a header should
        be says there is no Splendor server.
        """
        session = self.session(game="splendor")
        proto, transport = self.endpoint.links[-1]
        proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(5, gwire.INVALID_U64, 1)))
        self.assertTrue(transport.disconnecting)
        self.assertTrue(session.state.messages[-1][1].startswith(
            "no splendor server at 127.0.0.1:4242: it sent bytes that are "
            "not splendor"), session.state.messages)
        self.assertFalse(session.service.running)

    def test_checkersJoinUnanswered(self):
        """
        Checkers sends nothing on connect; its first JOIN must be answered
        within L{net.ANSWER_SECONDS}.
        """
        session = self.session(game="checkers")
        self.clock.advance(60)
        self.assertEqual(session.state.phase, S.LOBBY)
        session.state.join("r1")
        self.clock.advance(net.ANSWER_SECONDS)
        self.assertEqual(
            session.state.messages[-1],
            ("error", "no checkers server at 127.0.0.1:4242: it gave no "
                      "answer in 5 s"))
        self.assertFalse(session.service.running)


class TournamentRoomTests(SessionTests):
    """
    A tournament's game (C{joinRoom}): the room the hub opened is joined
    as soon as the lobby is there, in gomoku too.
    """

    def test_gomokuJoinsTheRoom(self):
        session = self.session(room="3-1-2", joinRoom=True)
        proto, transport = self.register(session)
        self.clock.advance(0)
        sent = gwire.decodeMessage(take(transport)[1:-1])
        self.assertEqual(sent["msg_type"], gwire.roomOpMessage(
            None, gwire.RO_ROOM_JOIN, "3-1-2", "")["msg_type"])
        self.assertIn("3-1-2", repr(sent))

    def test_gomokuRoomAloneDoesNot(self):
        """
        C{--room} without C{--bot} leaves a gomoku lobby to the user, as
        before.
        """
        session = self.session(room="3-1-2")
        proto, transport = self.register(session)
        self.clock.advance(0)
        self.assertEqual(take(transport), b"")


class AttachedTests(SynchronousTestCase):
    """
    L{S.ClientState.isAttached}: the protocol a state sends through.
    """

    def test_newestOnly(self):
        """
        Only the protocol attached last is, until it is detached.
        """
        state, first, second = S.ClientState(), object(), object()
        self.assertFalse(state.isAttached(first))
        self.assertFalse(state.isAttached(None))
        state.attach(first)
        self.assertTrue(state.isAttached(first))
        state.attach(second)
        self.assertFalse(state.isAttached(first))
        self.assertTrue(state.isAttached(second))
        state.detach()
        self.assertFalse(state.isAttached(second))
