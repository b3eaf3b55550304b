"""
The Splendor client state machine, driven over a StringTransport.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.games import splendor as G
from hub.wire import splendor as wire

from hub.client import state as S
from hub.client.state_splendor import SplendorState
from tests.client.support import Recorder, connect, take

START = {"players_number": 2, "players_sequence": [2, 1],
         "nobles_info": [91, 97, 94],
         "levelOneCards_info": [5, 6, 7, 8],
         "levelTwoCards_info": [45, 62, 58, 41],
         "levelThreeCards_info": [77, 90, 81, 73]}


def frame(api, pid=0, body=None):
    return wire.packFrame(api, pid, body)


def sent(api, pid=0, body=None):
    """
    A frame as the client writes it (compact JSON, like Unity).
    """
    return wire.packClientFrame(api, pid, body)


class SplendorStateTests(SynchronousTestCase):
    """
    Table, game, dialogs and end as the spec's sequences describe.
    """

    def setUp(self):
        self.state = SplendorState("alice")
        self.events = Recorder(self.state)
        self.proto, self.transport = connect("splendor", self.state)

    def feed(self, *frames):
        self.proto.dataReceived(b"".join(frames))

    def test_initOnConnect(self):
        """
        The client starts with INIT: header 1, id 0, length 28.
        """
        self.assertEqual(take(self.transport),
                         bytes.fromhex("00000001" + "00" * 8 +
                                       "000000000000001c" + "00" * 8))

    def test_tableAndReady(self):
        """
        INIT_RESP, NEW_PLAYER and PLAYER_READY fill the table; ready is
        sent with our id.
        """
        take(self.transport)
        self.feed(frame(wire.INIT_RESP, 2, wire.initRespBody(2, [1])),
                  frame(wire.NEW_PLAYER, 2),
                  frame(wire.PLAYER_READY, 1))
        self.assertEqual(self.state.phase, S.ROOM)
        self.assertEqual(self.state.myId, 2)
        self.assertEqual(self.state.players, [[1, True], [2, False]])
        self.state.setReady()
        self.assertEqual(take(self.transport), sent(wire.PLAYER_READY, 2))

    def start(self, me=1):
        take(self.transport)
        self.feed(frame(wire.INIT_RESP, me, wire.initRespBody(me, [])),
                  frame(wire.GAME_START, 0, START),
                  frame(wire.NEW_TURN, 0, wire.newTurnBody(2)))

    def test_gameStart(self):
        """
        GAME_START lays out the table; the bank follows the player count.
        """
        self.start()
        t = self.state.table
        self.assertEqual(self.state.phase, S.GAME)
        self.assertEqual(t.board[0], [5, 6, 7, 8])
        self.assertEqual(t.nobles, [91, 97, 94])
        self.assertEqual(t.bank, [4, 4, 4, 4, 4, 5])
        self.assertEqual(len(t.decks[0]), 36)
        self.assertFalse(self.state.isMyTurn())

    def test_othersOperationApplied(self):
        """
        A broadcast get_gems moves tokens from the bank to the player.
        """
        self.start()
        self.feed(frame(wire.PLAYER_OPERATION, 0, wire.getGemsBody(
            2, [("diamond", 1), ("emerald", 1), ("ruby", 1)])),
            frame(wire.NEW_TURN, 0, wire.newTurnBody(1)))
        t = self.state.table
        self.assertEqual(t.players[0].tokenDict()["ruby"], 1)
        self.assertEqual(t.bank[G.TOKEN_INDEX["ruby"]], 3)
        self.assertTrue(self.state.isMyTurn())

    def myTurn(self):
        self.start()
        self.feed(frame(wire.PLAYER_OPERATION, 0, wire.getGemsBody(
            2, [("diamond", 1), ("emerald", 1), ("ruby", 1)])),
            frame(wire.NEW_TURN, 0, wire.newTurnBody(1)))
        take(self.transport)

    def test_takeGemsSent(self):
        """
        Our get_gems goes out with our id in the header and body.
        """
        self.myTurn()
        action = G.Action(G.GET_GEMS, 0, (("obsidian", 2),))
        self.assertIsNone(self.state.check(action))
        self.state.playAction(action)
        data = take(self.transport)
        self.assertEqual(data, sent(
            wire.PLAYER_OPERATION, 1,
            wire.getGemsBody(1, [("obsidian", 2)])))
        self.assertEqual(
            data[28:],
            b'{"player_id":1,"operation_type":"get_gems","operation_info":'
            b'[{"gems_type":"obsidian","gems_number":2}]}')
        self.assertTrue(self.state.awaitingReply)

    def test_reserveFaceUpAndNewCard(self):
        """
        fold_card takes the card and a gold; NEW_CARD fills the slot.
        """
        self.myTurn()
        self.state.playAction(G.Action(G.FOLD_CARD, 77))
        self.assertEqual(take(self.transport), sent(
            wire.PLAYER_OPERATION, 1,
            {"player_id": 1, "operation_type": "fold_card",
             "operation_info": [{"card_number": 77}]}))
        self.feed(frame(wire.PLAYER_OPERATION, 0,
                        wire.foldCardBody(1, 77, 1)),
                  frame(wire.NEW_CARD, 1, wire.newCardBody(72)))
        t = self.state.table
        self.assertEqual(t.players[1].reserved, [77])
        self.assertEqual(t.players[1].tokens[G.GOLD], 1)
        self.assertEqual(t.board[2], [72, 90, 81, 73])
        self.assertNotIn(72, t.decks[2])

    def test_reserveFromDeckRevealed(self):
        """
        fold_card_unknown: our broadcast names the real card we drew.
        """
        self.myTurn()
        self.state.playAction(G.Action(G.FOLD_CARD_UNKNOWN, 10002))
        self.assertEqual(take(self.transport), sent(
            wire.PLAYER_OPERATION, 1,
            {"player_id": 1, "operation_type": "fold_card_unknown",
             "operation_info": [{"card_level": 2,
                                 "card_number": 10002}]}))
        self.feed(frame(wire.PLAYER_OPERATION, 0,
                        wire.foldUnknownBody(1, 2, 50, 1)))
        t = self.state.table
        self.assertEqual(t.players[1].reserved, [50])
        self.assertNotIn(50, t.decks[1])
        self.assertEqual(len(t.decks[1]), 25)

    def test_othersBlindReserveThenBuy(self):
        """
        Another player's blind reserve is revealed when bought.
        """
        self.start()
        self.feed(frame(wire.PLAYER_OPERATION, 0,
                        wire.foldUnknownBody(2, 1, 10001, 1)))
        t = self.state.table
        self.assertEqual(len(t.players[0].reserved), 1)
        guess = t.players[0].reserved[0]
        # make the buy affordable in the mirror: card 31 costs 3 obsidian
        t.players[0].tokens[G.TOKEN_INDEX["obsidian"]] = 3
        t.currentSeat = 0
        real = 31 if guess != 31 else 32
        t.players[0].tokens[G.TOKEN_INDEX["sapphire"]] = 3
        pay = [("obsidian", 3)] if real == 31 else [("sapphire", 3)]
        self.feed(frame(wire.PLAYER_OPERATION, 0,
                        wire.buyCardBody(2, real, pay)))
        self.assertEqual(t.players[0].purchased, [real])
        self.assertEqual(t.players[0].reserved, [])
        self.assertNotIn(real, t.decks[0])

    def test_guessedCardDealtFaceUp(self):
        """
        When the card we guessed for another player's blind reserve is
        dealt face up, the guess becomes the card the refill took from
        our deck: every card stays in one place.
        """
        self.start()
        self.feed(frame(wire.PLAYER_OPERATION, 0,
                        wire.foldUnknownBody(2, 1, 10001, 1)),
                  frame(wire.NEW_TURN, 0, wire.newTurnBody(1)))
        t = self.state.table
        guess = t.players[0].reserved[0]
        # we buy card 5 (4 diamonds, face up in slot 0 of level 1)
        t.players[1].tokens[G.TOKEN_INDEX["diamond"]] = 4
        self.feed(frame(wire.PLAYER_OPERATION, 0,
                        wire.buyCardBody(1, 5, [("diamond", 4)])),
                  frame(wire.NEW_CARD, 0, wire.newCardBody(guess)))
        self.assertEqual(self.state.messages, [])
        self.assertEqual(t.board[0][0], guess)
        self.assertNotIn(guess, t.players[0].reserved)
        cards = [c for row in t.board for c in row if c]
        for deck in t.decks:
            cards.extend(deck)
        for player in t.players:
            cards.extend(player.reserved + player.purchased)
        self.assertEqual(sorted(cards), sorted(G.CARDS))

    def test_stalledGuessRevived(self):
        """
        If our guesses made the mirror end the game as stalled while the
        server goes on, NEW_TURN brings the game back.
        """
        self.start()
        t = self.state.table
        t.phase, t.stalled, t.winner, t.currentSeat = (
            G.PHASE_OVER, True, 0, None)
        self.feed(frame(wire.NEW_TURN, 0, wire.newTurnBody(1)))
        self.assertFalse(t.isOver)
        self.assertEqual(t.currentSeat, 1)
        self.assertTrue(self.state.isMyTurn())

    def test_invalid(self):
        """
        PLAYER_OPERATION_INVALID is a readable error and frees the turn.
        """
        self.myTurn()
        self.state.playAction(G.Action(G.GET_GEMS, 0, (("obsidian", 2),)))
        self.feed(frame(wire.PLAYER_OPERATION_INVALID, 1))
        self.assertFalse(self.state.awaitingReply)
        self.assertIn("refused", self.state.messages[-1][1])

    def test_discardDialog(self):
        """
        Past 10 tokens, DISCARD_GEMS asks us to give some back;
        discard_gems is sent as an object and ends the turn.
        """
        self.myTurn()
        t = self.state.table
        t.players[1].tokens = [2, 2, 2, 1, 1, 0]
        self.feed(frame(wire.PLAYER_OPERATION, 0, wire.getGemsBody(
            1, [("diamond", 1), ("obsidian", 1), ("sapphire", 1)])),
            frame(wire.DISCARD_GEMS, 1, wire.discardGemsBody(1)))
        self.assertEqual(t.phase, G.PHASE_DISCARD)
        self.assertEqual(self.state.discard, 1)
        self.assertTrue(self.state.isMyTurn())
        take(self.transport)
        action = G.Action(G.DISCARD_GEMS, 0, (("diamond", 1),))
        self.assertIsNone(self.state.check(action))
        self.state.playAction(action)
        self.assertEqual(take(self.transport), sent(
            wire.PLAYER_OPERATION, 1,
            {"player_id": 1, "operation_type": "discard_gems",
             "operation_info": {"diamond": 1}}))
        self.feed(frame(wire.PLAYER_OPERATION, 0, wire.discardBody(
            1, [("diamond", 1)])),
            frame(wire.NEW_TURN, 0, wire.newTurnBody(2)))
        self.assertEqual(t.players[1].tokenCount(), 10)
        self.assertEqual(self.state.discard, 0)
        self.assertFalse(self.state.isMyTurn())

    def test_nobleChoice(self):
        """
        A PLAYER_GET_NOBLE list offers a choice; ours goes back as a
        one-element list.
        """
        self.myTurn()
        t = self.state.table
        t.phase = G.PHASE_NOBLE
        t.pendingNobles = (91, 94)
        self.feed(frame(wire.PLAYER_GET_NOBLE, 1,
                        wire.nobleBody(1, [91, 94])))
        self.assertEqual(self.state.nobleChoice, (91, 94))
        take(self.transport)
        self.state.playAction(G.Action(G.GET_NOBLE, 94))
        self.assertEqual(take(self.transport), sent(
            wire.PLAYER_GET_NOBLE, 1, wire.nobleBody(1, [94])))
        self.feed(frame(wire.PLAYER_GET_NOBLE, 0, wire.nobleBody(1, [94])))
        self.assertEqual(t.players[1].nobles, [94])
        self.assertEqual(t.players[1].points, 3)
        self.assertEqual(self.state.nobleChoice, ())

    def test_winner(self):
        """
        WINNER ends the game with the winner's id.
        """
        self.start()
        self.feed(frame(wire.WINNER, 2))
        self.assertEqual(self.state.phase, S.OVER)
        self.assertEqual(self.state.winnerId, 2)

    def test_splitFrames(self):
        """
        Frames split into single bytes are reassembled.
        """
        take(self.transport)
        data = frame(wire.INIT_RESP, 3, wire.initRespBody(3, [1, 2]))
        for i in range(len(data)):
            self.proto.dataReceived(data[i:i + 1])
        self.assertEqual(self.state.myId, 3)
