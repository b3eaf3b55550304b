"""
Gomoku with C{takeover="bot"}: when a player lost mid-game is not back
within the grace, a bot plays their seat to the end of the game instead
of the forfeit, and the opponent only sees ordinary protocol frames.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.bots import botFor
from hub.games.gomoku import GomokuGame
from hub.tables.base import EventRecorder
from hub.tables.events import SeatTakenOver
from hub.wire import gomoku as wire

from tests.gomoku.support import GomokuHarness

DELAY = 0.5


class TakeoverTests(SynchronousTestCase):

    def setUp(self):
        self.hub = GomokuHarness(graceSeconds=30, takeover="bot",
                                 botDelay=DELAY)
        self.recorder = EventRecorder()
        self.hub.lobby.addTableListener(self.recorder)

    def ofType(self, messages, msgType):
        return [m for m in messages if m["msg_type"] == msgType]

    def test_botMovesWhenOpponentMoves(self):
        """
        White drops after black's first move; once the grace is over the
        bot answers each of black's moves with a msg_move after the bot
        delay, and black gets no msg_game.
        """
        black, white, owner, guest = self.hub.playing()
        black.move(7, 7)
        black.raw()
        white.drop()
        self.hub.clock.advance(30)
        self.assertEqual(black.messages(), [])
        self.assertIsNone(self.hub.sessions.byName("gomoku", "alice"))
        room = self.hub.lobby.roomOf(
            self.hub.sessions.byName("gomoku", "bob"))
        for k in range(3):
            self.hub.clock.advance(DELAY)
            moves = self.ofType(black.messages(), wire.MSG_MOVE)
            self.assertEqual(len(moves), 1)
            self.assertEqual(room.game.moves[-1],
                             (moves[0]["x"], moves[0]["y"]))
            self.assertEqual(room.game.currentSeat, 0)
            black.move(k, 0)
            self.assertEqual([m["status"] for m in black.messages()], [0])
        self.hub.clock.advance(DELAY / 2)
        self.assertEqual(black.messages(), [])

    def test_botMovesAtOnceOnItsTurn(self):
        """
        A player lost on their own turn: the bot moves as soon as the
        grace and the bot delay are over.
        """
        black, white, owner, guest = self.hub.playing()
        black.drop()
        self.hub.clock.advance(30)
        self.assertEqual(white.messages(), [])
        self.hub.clock.advance(DELAY)
        moves = self.ofType(white.messages(), wire.MSG_MOVE)
        self.assertEqual([(m["x"], m["y"]) for m in moves], [(7, 7)])

    def test_gameToTheEnd(self):
        """
        The opponent plays on against the bot until the game ends: the
        opponent gets msg_game(3) with a result, then the room exit
        frame as the bot leaves; the room keeps only the opponent.
        """
        black, white, owner, guest = self.hub.playing()
        white.drop()
        self.hub.clock.advance(30)
        mirror = GomokuGame()
        me = botFor("gomoku", 1, seed=4)
        messages = []
        for _ in range(300):
            self.hub.clock.advance(DELAY)
            messages = black.messages()
            for m in self.ofType(messages, wire.MSG_MOVE):
                mirror.apply(1, (m["x"], m["y"]))
            if mirror.isOver:
                break
            x, y = me.chooseAction(mirror, 0)
            mirror.apply(0, (x, y))
            black.move(x, y)
            messages = black.messages()
            if self.ofType(messages, wire.MSG_GAME):
                break
        self.hub.clock.advance(0)
        messages += black.messages()
        ended = self.ofType(messages, wire.MSG_GAME)
        self.assertEqual(len(ended), 1)
        self.assertEqual(ended[0]["state"], wire.GAME_STATE_END)
        # A random player against the bot: the bot wins.
        self.assertEqual(ended[0]["ex"], wire.GAME_RSLT_LOSE)
        self.assertTrue(mirror.isOver)
        rooms = self.ofType(messages, wire.MSG_ROOM)
        self.assertEqual([r["type"] for r in rooms], [wire.RI_PLAYER_EXIT])
        self.assertLess(messages.index(ended[0]), messages.index(rooms[0]))
        bob = self.hub.sessions.byName("gomoku", "bob")
        self.assertEqual(self.hub.lobby.roomOf(bob).names(), ["bob"])
        self.assertEqual(self.hub.clock.getDelayedCalls(), [])

    def test_opponentLostToo(self):
        """
        If the opponent is lost as well when the grace runs out, there is
        no bot: the first to expire forfeits as without takeover.
        """
        black, white, owner, guest = self.hub.playing()
        black.drop()
        self.hub.clock.advance(10)
        white.drop()
        self.hub.clock.advance(20)
        room = self.hub.lobby.roomOf(self.hub.sessions.byName("gomoku",
                                                              "alice"))
        self.assertFalse(room.running)
        self.assertEqual(self.recorder.ofType(SeatTakenOver), [])

    def test_opponentForfeitsAgainstBot(self):
        """
        An opponent who drops while the bot plays and stays away loses by
        forfeit; the bot leaves and the room closes.
        """
        black, white, owner, guest = self.hub.playing()
        black.drop()
        self.hub.clock.advance(30 + DELAY)
        white.drop()
        self.hub.clock.advance(30)
        self.hub.clock.advance(0)
        self.assertEqual(self.hub.lobby.rooms("gomoku"), [])
        self.assertEqual(len(self.hub.sessions), 0)
        self.assertEqual(self.hub.clock.getDelayedCalls(), [])

    def test_noTakeoverByDefault(self):
        """
        Without C{takeover="bot"} the lost player forfeits.
        """
        self.hub = GomokuHarness(graceSeconds=30)
        black, white, owner, guest = self.hub.playing()
        white.drop()
        self.hub.clock.advance(30)
        games = self.ofType(black.messages(), wire.MSG_GAME)
        self.assertEqual([(g["state"], g["ex"]) for g in games],
                         [(wire.GAME_STATE_END, wire.GAME_RSLT_WIN)])
