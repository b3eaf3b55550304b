"""
Tests for L{hub.protocols.splendor} on L{StringTransport}.
"""

import random

from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.tables.seatpilot import SeatPilot
from hub.bots import botFor
from hub.games import splendor as rules
from hub.games.splendor import Action
from hub.ihub import IStartPolicy
from hub.connection.pacing import MAX_PACED
from hub.protocols.splendor import KIND, RULE_OPERATIONS, WIRE_OPERATIONS
from hub.tables.splendor import CAPACITY, SplendorStartPolicy
from hub.thinkers.inline import InlineThinker
from hub.wire import splendor as wire

from tests.idletimeout import IdleTimeoutTestsMixin
from .support import Harness, clientFrame, operationBody, sequenceOf

TAKE = Action("get_gems", 0, (("emerald", 1), ("obsidian", 1), ("ruby", 1)))


def roomOf(h, conn):
    return h.lobby.roomOf(conn.protocol.session)


def kinds(messages):
    return [m[0] for m in messages]


def current(h, conns):
    """
    The connection whose player must act, and the game.
    """
    room = roomOf(h, conns[0])
    game = room.game
    pid = sequenceOf(room)[game.currentSeat]
    return [c for c in conns if c.id == pid][0], game


def detach(h):
    """
    Stop following the game in the clients' mirrors: the test is about to
    edit the server's game by hand.
    """
    for c in h.connections:
        c.mirror = None


def pumpAll(conns):
    return [c.pump() for c in conns]


class ProtocolTestCase(SynchronousTestCase):

    def assertNoRepeatedKinds(self, conn):
        """
        No read brought two messages of one kind (the Unity client's
        per-frame queue would throw).
        """
        for burst in conn.bursts:
            self.assertEqual(len(set(kinds(burst))), len(burst), burst)

    def playRandom(self, h, conns, seed, split=False, maxSteps=4000,
                   gap=None):
        """
        Drive the table with random legal actions through the protocol,
        checking every client's view after each message.

        @return: the finished game.
        """
        rng = random.Random(seed)
        room = roomOf(h, conns[0])
        game = room.game
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        for c in conns:
            c.mirror.check(self, game, sequence)
        steps = 0
        while not game.isOver:
            self.assertLess(steps, maxSteps)
            seat = game.currentSeat
            actor = byId[sequence[seat]]
            legal = game.legalActions(seat)
            self.assertEqual(actor.mirror.toGame().legalActions(seat), legal)
            actor.act(rng.choice(legal), split=split)
            pumpAll(conns)
            while gap and h.clock.getDelayedCalls():
                h.clock.advance(gap)
                pumpAll(conns)
            for c in conns:
                c.mirror.check(self, game, sequence)
                if not game.isOver and game.phase == rules.PHASE_ACT:
                    self.assertEqual(c.mirror.turn,
                                     sequence[game.currentSeat])
            steps += 1
        winnerId = sequence[game.winner]
        for c in conns:
            self.assertEqual(c.mirror.winner, winnerId)
            self.assertEqual(c.received[-1], (wire.WINNER, winnerId, None))
            self.assertNotIn(wire.PLAYER_OPERATION_INVALID,
                             kinds(c.received))
            self.assertNoRepeatedKinds(c)
            self.assertEqual(c.protocol.state, "NEW")
        self.assertIsNone(roomOf(h, conns[0]))
        self.assertEqual(h.lobby.rooms(KIND), [])
        return game


class LobbyTests(ProtocolTestCase):
    """
    INIT, NEW_PLAYER, PLAYER_READY, GAME_START and the choice of table.
    """

    def test_initAndReadyBytes(self):
        """
        The byte sequence of spec section 5.8 for two players.
        """
        h = Harness()
        c1, c2 = h.connect(), h.connect()
        c1.send(wire.INIT, 0)
        self.assertEqual(
            c1.raw(),
            wire.HEADER.pack(2, 1, 77, 0)
            + b'{"allocated_player_id": 1, "other_player_id": []}'
            + wire.HEADER.pack(8, 1, 28, 0))
        c2.send(wire.INIT, 0)
        self.assertEqual(
            c2.raw(),
            wire.packFrame(wire.INIT_RESP, 2, {"allocated_player_id": 2,
                                               "other_player_id": [1]})
            + wire.packFrame(wire.NEW_PLAYER, 2))
        self.assertEqual(c1.raw(), wire.packFrame(wire.NEW_PLAYER, 2))
        c1.id, c2.id = 1, 2
        c1.ready()
        ready1 = bytes.fromhex("00000003" "0000000000000001"
                               "000000000000001c" "0000000000000000")
        self.assertEqual(c1.raw(), ready1)
        self.assertEqual(c2.raw(), ready1)
        c2.ready()
        for c in (c1, c2):
            burst = c.pump()
            self.assertEqual(kinds(burst), [wire.PLAYER_READY,
                                            wire.GAME_START, wire.NEW_TURN])
            self.assertEqual(burst[0][1], 2)
        room = roomOf(h, c1)
        game = room.game
        sequence = sequenceOf(room)
        self.assertEqual(sorted(sequence), [1, 2])
        self.assertEqual(c1.protocol.session.state, "GAME")
        start = c1.received[-2]
        self.assertEqual(start, (wire.GAME_START, 0, {
            "players_number": 2, "players_sequence": sequence,
            "nobles_info": game.nobles,
            "levelOneCards_info": game.faceUp(1),
            "levelTwoCards_info": game.faceUp(2),
            "levelThreeCards_info": game.faceUp(3)}))
        self.assertEqual(c2.received[-1], (wire.NEW_TURN, 0,
                                           {"new_turn_player":
                                            sequence[0]}))

    def test_noDelay(self):
        """
        Accepted connections get TCP_NODELAY.
        """
        self.assertTrue(Harness().connect().transport.noDelay)

    def test_idsUniqueNeverZero(self):
        """
        Player ids are unique, from 1.
        """
        h = Harness()
        conns = [h.connect() for _ in range(9)]
        for c in conns:
            c.init()
        ids = [c.id for c in conns]
        self.assertEqual(ids, list(range(1, 10)))

    def test_fourPerTable(self):
        """
        Four players fill a table; the fifth opens a new one, and the
        tables do not hear each other.
        """
        h = Harness()
        conns = h.table(5, ready=False)
        first, second = h.lobby.rooms(KIND)
        self.assertEqual([m.session.id for m in first.members],
                         [1, 2, 3, 4])
        self.assertEqual([m.session.id for m in second.members], [5])
        self.assertEqual(conns[4].received[0],
                         (wire.INIT_RESP, 5, {"allocated_player_id": 5,
                                              "other_player_id": []}))
        conns[4].ready()
        pumpAll(conns)
        for c in conns[:4]:
            self.assertEqual(c.bursts[-1][-1][0], wire.NEW_PLAYER)
        self.assertEqual(kinds(conns[4].bursts[-1]), [wire.PLAYER_READY])
        self.assertFalse(second.running)

    def test_startedTableNotJoined(self):
        """
        A started table is not joined: INIT opens a new one, and two
        games run side by side.
        """
        h = Harness()
        a = h.table(2)
        b = h.table(3)
        self.assertEqual(len(h.lobby.rooms(KIND)), 2)
        self.assertTrue(all(r.running for r in h.lobby.rooms(KIND)))
        self.assertEqual(roomOf(h, b[0]).game.seatCount, 3)
        actor, game = current(h, a)
        actor.act(TAKE)
        pumpAll(a + b)
        self.assertTrue(all(c.bursts[-1][0][0] == wire.PLAYER_OPERATION
                            for c in a))
        self.assertTrue(all(c.bursts[-1][-1][0] == wire.NEW_TURN
                            for c in b))

    def test_newestOpenTable(self):
        """
        INIT picks the newest table that has not started and has room.
        """
        h = Harness()
        conns = h.table(5, ready=False)
        conns[1].drop()
        late = h.connect()
        late.init()
        self.assertIs(roomOf(h, late), roomOf(h, conns[4]))
        tables = h.lobby.rooms(KIND)
        self.assertEqual([len(t.members) for t in tables], [3, 2])

    def test_readyEchoOnce(self):
        """
        Each PLAYER_READY is echoed once to everyone, sender included;
        one player alone never starts.
        """
        h = Harness()
        c1 = h.table(1, ready=False)[0]
        c1.ready()
        self.assertEqual(kinds(c1.pump()), [wire.PLAYER_READY])
        self.assertFalse(roomOf(h, c1).running)

    def test_policy(self):
        """
        L{SplendorStartPolicy} starts 2 to 4 ready players by itself.
        """
        h = Harness()
        policy = h.factory.policy
        self.assertIsInstance(policy, SplendorStartPolicy)
        self.assertTrue(verifyObject(IStartPolicy, policy))
        self.assertTrue(policy.autoStart)
        self.assertEqual(CAPACITY, 4)
        for n in (2, 3, 4):
            conns = h.table(n)
            room = roomOf(h, conns[0])
            self.assertTrue(room.running)
            self.assertEqual(room.game.seatCount, n)
            self.assertEqual(sorted(m.seat for m in room.members),
                             list(range(n)))


class GameTests(ProtocolTestCase):
    """
    Whole games and every operation through the protocol.
    """

    def test_fullGames(self):
        """
        Random legal 2-, 3- and 4-player games through the protocol: every
        client's view follows the server to WINNER.
        """
        for n in (2, 3, 4):
            for seed in range(3):
                h = Harness(seed=seed)
                conns = h.table(n)
                self.playRandom(h, conns, seed * 10 + n)

    def test_byteByByte(self):
        """
        A whole game whose every client message arrives one byte at a
        time.
        """
        h = Harness(seed=3)
        conns = [h.connect() for _ in range(3)]
        for c in conns:
            c.send(wire.INIT, 0, split=True)
            pumpAll(conns)
        for c in conns:
            c.send(wire.PLAYER_READY, split=True)
            pumpAll(conns)
        self.playRandom(h, conns, 5, split=True)

    def test_mergedFrames(self):
        """
        INIT and PLAYER_READY in one write, and two operations in one
        write, are all handled in order.
        """
        h = Harness(seed=4)
        c1, c2 = h.connect(), h.connect()
        c1.sendBytes(clientFrame(wire.INIT, 0) + clientFrame(
            wire.PLAYER_READY, 1))
        self.assertEqual(kinds(c1.pump()), [wire.INIT_RESP, wire.NEW_PLAYER,
                                            wire.PLAYER_READY])
        c2.sendBytes(clientFrame(wire.INIT, 0) + clientFrame(
            wire.PLAYER_READY, 2))
        self.assertEqual(kinds(c2.pump()), [
            wire.INIT_RESP, wire.NEW_PLAYER, wire.PLAYER_READY,
            wire.GAME_START, wire.NEW_TURN])
        c1.pump()
        actor, game = current(h, [c1, c2])
        detach(h)
        game.players[game.currentSeat].tokens = [3, 3, 3, 0, 0, 0]
        game.bank = [1, 1, 1, 4, 4, 5]
        api, body = operationBody(actor.id, TAKE)
        api2, body2 = operationBody(actor.id, Action(
            "discard_gems", 0, (("diamond", 1), ("emerald", 1))))
        actor.sendBytes(clientFrame(api, actor.id, body)
                        + clientFrame(api2, actor.id, body2))
        self.assertEqual(kinds(actor.pump()), [
            wire.PLAYER_OPERATION, wire.DISCARD_GEMS,
            wire.PLAYER_OPERATION, wire.NEW_TURN])
        self.assertEqual(game.turns, 1)
        self.assertEqual(game.players[0].tokens, [2, 3, 3, 1, 1, 0])


    def test_spoofedHeader(self):
        """
        A header id that is not the connection's gets
        PLAYER_OPERATION_INVALID (to the sender only) and changes nothing.
        """
        h = Harness()
        conns = h.table(3)
        actor, game = current(h, conns)
        others = [c for c in conns if c is not actor]
        spy = others[0]
        api, body = ((wire.PLAYER_OPERATION,
                      {"player_id": actor.id, "operation_type": "get_gems",
                       "operation_info": [
                           {"gems_type": "emerald", "gems_number": 1},
                           {"gems_type": "obsidian", "gems_number": 1},
                           {"gems_type": "ruby", "gems_number": 1}]}))
        before = game.bank[:]
        spy.send(api, actor.id, body)
        actor.send(api, spy.id, body)
        actor.send(api, 0, body)
        body["player_id"] = spy.id
        actor.send(api, actor.id, body)
        spy.send(wire.PLAYER_READY, actor.id)
        self.assertEqual(game.bank, before)
        self.assertEqual(spy.pump(), [(wire.PLAYER_OPERATION_INVALID,
                                       spy.id, None)] * 2)
        self.assertEqual(actor.raw(), clientInvalid(actor.id) * 3)
        self.assertEqual(others[1].pump(), [])
        self.assertEqual(game.turns, 0)

    def test_invalidOperations(self):
        """
        Each kind of bad operation gets PLAYER_OPERATION_INVALID to the
        sender only, leaves the game unchanged, and the player may retry.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        other = [c for c in conns if c is not actor][0]
        own = game.faceUp(1)[0]
        bad = [
            Action("get_gems", 0, (("golden", 1), ("ruby", 1),
                                   ("emerald", 1))),
            Action("get_gems", 0, (("ruby", 1), ("ruby", 1),
                                   ("emerald", 1))),
            Action("get_gems", 0, (("ruby", 1),)),
            Action("buy_card", own),
            Action("fold_card", 0),
            Action("fold_card_unknown", 10004),
            Action("discard_gems", 0, (("ruby", 1),)),
            Action("get_noble", game.nobles[0]),
        ]
        for action in bad:
            actor.act(action)
            self.assertEqual(actor.pump(),
                             [(wire.PLAYER_OPERATION_INVALID, actor.id,
                               None)])
        for body in [None, [], {"operation_type": "nope"},
                     {"operation_type": "get_gems",
                      "operation_info": "x"},
                     {"player_id": actor.id, "operation_type": "buy_card",
                      "operation_info": [{"card_number": "12"}]}]:
            actor.send(wire.PLAYER_OPERATION, actor.id, body)
            self.assertEqual(kinds(actor.pump()),
                             [wire.PLAYER_OPERATION_INVALID])
        actor.sendBytes(wire.HEADER.pack(6, actor.id, 30, 0) + b"{x")
        self.assertEqual(kinds(actor.pump()),
                         [wire.PLAYER_OPERATION_INVALID])
        self.assertEqual(other.pump(), [])
        self.assertEqual(game.turns, 0)
        self.assertEqual(game.bank, [4] * 5 + [5])
        other.act(TAKE)
        self.assertEqual(other.pump(), [(wire.PLAYER_OPERATION_INVALID,
                                         other.id, None)])
        actor.act(TAKE)
        self.assertEqual(kinds(actor.pump()),
                         [wire.PLAYER_OPERATION, wire.NEW_TURN])

    def test_getGemsBroadcast(self):
        """
        get_gems is echoed to everyone with header 0, then NEW_TURN.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        actor.act(TAKE)
        nextId = sequenceOf(roomOf(h, actor))[1]
        for c in conns:
            self.assertEqual(c.pump(), [
                (wire.PLAYER_OPERATION, 0, {
                    "player_id": actor.id, "operation_type": "get_gems",
                    "operation_info": [
                        {"gems_type": "emerald", "gems_number": 1},
                        {"gems_type": "obsidian", "gems_number": 1},
                        {"gems_type": "ruby", "gems_number": 1}]}),
                (wire.NEW_TURN, 0, {"new_turn_player": nextId})])

    def test_foldCard(self):
        """
        fold_card: golden_number as a second element, then NEW_CARD.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        card = game.faceUp(2)[1]
        top = game.decks[1][-1]
        actor.act(Action("fold_card", card))
        for c in conns:
            burst = c.pump()
            self.assertEqual(burst[:2], [
                (wire.PLAYER_OPERATION, 0, {
                    "player_id": actor.id, "operation_type": "fold_card",
                    "operation_info": [{"card_number": card},
                                       {"golden_number": 1}]}),
                (wire.NEW_CARD, 0, {"card_number": top})])
            self.assertEqual(kinds(burst)[2:], [wire.NEW_TURN])

    def test_foldUnknown(self):
        """
        fold_card_unknown: the others see 10000 + level, the reserving
        player alone sees the real card; no NEW_CARD.
        """
        h = Harness()
        conns = h.table(3)
        actor, game = current(h, conns)
        top = game.decks[2][-1]
        actor.act(Action("fold_card_unknown", 10003))
        for c in conns:
            burst = c.pump()
            number = top if c is actor else 10003
            self.assertEqual(burst[0], (wire.PLAYER_OPERATION, 0, {
                "player_id": actor.id, "operation_type": "fold_card_unknown",
                "operation_info": [{"card_level": 3, "card_number": number,
                                    "golden_number": 1}]}))
            self.assertEqual(kinds(burst)[1:], [wire.NEW_TURN])

    def test_buyCard(self):
        """
        buy_card: the payment echoed, then NEW_CARD, then NEW_TURN.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        detach(h)
        seat = game.currentSeat
        game.board[0][3] = 6
        game.players[seat].tokens = [0, 1, 2, 1, 0, 1]
        game.bank = [4, 3, 2, 3, 4, 4]
        top = game.decks[0][-1]
        actor.act(Action("buy_card", 6, (("emerald", 2), ("ruby", 1),
                                         ("sapphire", 1), ("golden", 1))))
        for c in conns:
            burst = c.pump()
            self.assertEqual(burst[:2], [
                (wire.PLAYER_OPERATION, 0, {
                    "player_id": actor.id, "operation_type": "buy_card",
                    "operation_info": [
                        {"card_number": 6},
                        {"gems_type": "emerald", "gems_number": 2},
                        {"gems_type": "ruby", "gems_number": 1},
                        {"gems_type": "sapphire", "gems_number": 1},
                        {"gems_type": "golden", "gems_number": 1}]}),
                (wire.NEW_CARD, 0, {"card_number": top})])
        self.assertEqual(game.players[seat].purchased, [6])
        self.assertEqual(game.bank, [4, 4, 4, 4, 4, 5])

    def test_discardFlow(self):
        """
        Past 10 tokens: DISCARD_GEMS to the actor only, no NEW_TURN until
        a discard to exactly 10 is broadcast.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        detach(h)
        other = [c for c in conns if c is not actor][0]
        seat = game.currentSeat
        game.players[seat].tokens = [3, 3, 3, 0, 0, 0]
        game.bank = [1, 1, 1, 4, 4, 5]
        actor.act(TAKE)
        self.assertEqual(kinds(actor.pump()), [wire.PLAYER_OPERATION,
                                               wire.DISCARD_GEMS])
        self.assertEqual(actor.received[-1], (wire.DISCARD_GEMS, actor.id,
                                              {"number_to_discard": 2}))
        self.assertEqual(kinds(other.pump()), [wire.PLAYER_OPERATION])
        actor.act(TAKE)
        actor.act(Action("discard_gems", 0, (("ruby", 1),)))
        actor.act(Action("discard_gems", 0, (("ruby", 3),)))
        self.assertEqual(kinds(actor.pump()),
                         [wire.PLAYER_OPERATION_INVALID] * 3)
        self.assertEqual(other.pump(), [])
        actor.act(Action("discard_gems", 0, (("diamond", 1), ("ruby", 1))))
        for c in conns:
            self.assertEqual(c.pump(), [
                (wire.PLAYER_OPERATION, 0, {
                    "player_id": actor.id, "operation_type": "discard_gems",
                    "operation_info": {"diamond": 1, "ruby": 1}}),
                (wire.NEW_TURN, 0, {"new_turn_player": other.id})])

    def test_nobleAuto(self):
        """
        One noble earned: PLAYER_GET_NOBLE broadcast with the player's id
        in the header, before NEW_TURN.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        detach(h)
        seat = game.currentSeat
        game.nobles[:] = [91, 92, 97]
        game.players[seat].bonuses = [4, 3, 0, 0, 0]
        game.board[0][0] = 1    # a sapphire card costing ruby 4
        game.players[seat].tokens = [0, 0, 0, 4, 0, 0]
        game.bank[3] = 0
        actor.act(Action("buy_card", 1, (("ruby", 4),)))
        for c in conns:
            self.assertEqual(kinds(c.pump()), [
                wire.PLAYER_OPERATION, wire.NEW_CARD,
                wire.PLAYER_GET_NOBLE, wire.NEW_TURN])
            self.assertEqual(c.received[-2], (
                wire.PLAYER_GET_NOBLE, actor.id,
                {"player_id": actor.id, "noble_number": [91]}))

    def test_nobleChoice(self):
        """
        Two nobles earned: the prompt goes to the actor only; a choice
        from anyone else or of another noble is invalid; the choice is
        re-broadcast with header 0, then NEW_TURN.
        """
        h = Harness()
        conns = h.table(3)
        actor, game = current(h, conns)
        detach(h)
        others = [c for c in conns if c is not actor]
        seat = game.currentSeat
        game.nobles[:] = [91, 93, 97, 100]
        game.players[seat].bonuses = [4, 3, 3, 0, 0]
        game.board[0][0] = 1
        game.players[seat].tokens = [0, 0, 0, 4, 0, 0]
        game.bank[3] = 1
        actor.act(Action("buy_card", 1, (("ruby", 4),)))
        self.assertEqual(kinds(actor.pump()), [
            wire.PLAYER_OPERATION, wire.NEW_CARD, wire.PLAYER_GET_NOBLE])
        self.assertEqual(actor.received[-1], (
            wire.PLAYER_GET_NOBLE, actor.id,
            {"player_id": actor.id, "noble_number": [91, 93]}))
        for c in others:
            self.assertEqual(kinds(c.pump()), [wire.PLAYER_OPERATION,
                                               wire.NEW_CARD])
        others[0].send(wire.PLAYER_GET_NOBLE, others[0].id,
                       {"player_id": others[0].id, "noble_number": [91]})
        actor.send(wire.PLAYER_GET_NOBLE, actor.id,
                   {"player_id": actor.id, "noble_number": [97]})
        actor.send(wire.PLAYER_GET_NOBLE, actor.id,
                   {"player_id": actor.id, "noble_number": [91, 93]})
        actor.act(TAKE)
        self.assertEqual(kinds(actor.pump()),
                         [wire.PLAYER_OPERATION_INVALID] * 3)
        self.assertEqual(kinds(others[0].pump()),
                         [wire.PLAYER_OPERATION_INVALID])
        actor.send(wire.PLAYER_GET_NOBLE, actor.id,
                   {"player_id": actor.id, "noble_number": [93]})
        for c in conns:
            burst = c.pump()
            self.assertEqual(kinds(burst), [wire.PLAYER_GET_NOBLE,
                                            wire.NEW_TURN])
            self.assertEqual(burst[0], (
                wire.PLAYER_GET_NOBLE, 0,
                {"player_id": actor.id, "noble_number": [93]}))
        self.assertEqual(game.players[seat].nobles, [93])

    def test_winnerAndAgain(self):
        """
        WINNER carries the winner's id; the table is dissolved and the
        connections may INIT again, keeping their ids.
        """
        h = Harness()
        conns = h.table(2)
        room = roomOf(h, conns[0])
        game = room.game
        detach(h)
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        game.players[1].points = 15
        byId[sequence[0]].act(TAKE)
        byId[sequence[1]].act(TAKE)
        for c in conns:
            self.assertEqual(kinds(c.pump()), [wire.PLAYER_OPERATION,
                                               wire.NEW_TURN,
                                               wire.PLAYER_OPERATION,
                                               wire.WINNER])
            self.assertEqual(c.received[-1],
                             (wire.WINNER, sequence[1], None))
        self.assertEqual(h.lobby.rooms(KIND), [])
        ids = [c.id for c in conns]
        for c in conns:
            c.init()
        self.assertEqual([c.id for c in conns], ids)
        self.assertEqual(len(h.lobby.rooms(KIND)), 1)


def clientInvalid(playerId):
    return wire.packFrame(wire.PLAYER_OPERATION_INVALID, playerId)


class ValueMappingTests(SynchronousTestCase):
    """
    Wire values and rule values meet in the adapter's tables.
    """

    def test_operationKinds(self):
        """
        Every wire operation maps to a rules kind and back; the one rules
        kind without a PLAYER_OPERATION is the noble choice.
        """
        self.assertEqual(sorted(RULE_OPERATIONS), sorted(wire.OPERATIONS))
        self.assertEqual(
            set(RULE_OPERATIONS.values()) | {rules.GET_NOBLE},
            {rules.GET_GEMS, rules.BUY_CARD, rules.FOLD_CARD,
             rules.FOLD_CARD_UNKNOWN, rules.DISCARD_GEMS, rules.GET_NOBLE})
        for wireKind, ruleKind in RULE_OPERATIONS.items():
            self.assertEqual(WIRE_OPERATIONS[ruleKind], wireKind)

    def test_unknownCardBase(self):
        """
        A fold_card_unknown names its deck as C{base + level} with the
        same base on both sides.
        """
        self.assertEqual(wire.UNKNOWN_CARD_BASE, rules.UNKNOWN_CARD_BASE)


class StateTests(ProtocolTestCase):
    """
    Messages the current state does not expect, and framing errors.
    """

    def test_beforeInit(self):
        """
        Anything but INIT before INIT is invalid.
        """
        h = Harness()
        c = h.connect()
        c.send(wire.PLAYER_READY, 0)
        c.act(TAKE)
        c.send(wire.PLAYER_GET_NOBLE, 0, {"noble_number": [91]})
        self.assertEqual(kinds(c.pump()),
                         [wire.PLAYER_OPERATION_INVALID] * 3)
        self.assertEqual(h.lobby.rooms(KIND), [])

    def test_atTable(self):
        """
        A second INIT, operations and server-only ids are invalid at a
        table that has not started.
        """
        h = Harness()
        c1, c2 = h.table(2, ready=False)
        c1.send(wire.INIT, 0)
        c1.act(TAKE)
        for apiId in (2, 4, 5, 7, 8, 10, 11, 12, 13, 0):
            c1.send(apiId, c1.id)
        self.assertEqual(kinds(c1.pump()),
                         [wire.PLAYER_OPERATION_INVALID] * 12)
        self.assertEqual(c2.pump(), [])

    def test_readyInGameIgnored(self):
        """
        PLAYER_READY during a game is ignored.
        """
        h = Harness()
        conns = h.table(2)
        conns[0].ready()
        self.assertEqual(pumpAll(conns), [[], []])

    def test_tooShort(self):
        """
        A frame length under 28 closes the connection; the frames before
        it in the same read are handled.
        """
        h = Harness()
        c = h.connect()
        c.sendBytes(clientFrame(wire.INIT, 0) + wire.HEADER.pack(3, 1, 27,
                                                                 0))
        self.assertEqual(kinds(c.pump()), [wire.INIT_RESP, wire.NEW_PLAYER])
        self.assertTrue(c.closed)

    def test_tooLong(self):
        """
        A frame length over 64 KiB closes the connection at once.
        """
        h = Harness()
        c = h.table(1, ready=False)[0]
        c.sendBytes(wire.HEADER.pack(6, c.id, 64 * 1024 + 1, 0))
        self.assertTrue(c.closed)
        self.assertEqual(c.pump(), [])
        c2 = h.connect()
        c2.sendBytes(wire.HEADER.pack(1, 0, 2 ** 64 - 1, 0))
        self.assertTrue(c2.closed)

    def test_nothingAfterBadFrame(self):
        """
        Once a bad length closed the connection, later bytes are ignored.
        """
        h = Harness()
        c = h.table(1, ready=False)[0]
        c.sendBytes(wire.HEADER.pack(3, c.id, 5, 0))
        c.sendBytes(clientFrame(wire.PLAYER_READY, c.id))
        self.assertEqual(c.pump(), [])
        self.assertFalse(roomOf(h, c).members[0].ready)

    def test_deeplyNestedBody(self):
        """
        A body of 1,000 nested arrays is a malformed body like any other:
        PLAYER_OPERATION_INVALID, and nothing is logged as a failure.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        body = b"[" * 1000 + b"]" * 1000
        actor.sendBytes(wire.HEADER.pack(6, actor.id, 28 + len(body), 0)
                        + body)
        self.assertEqual(actor.pump(), [(wire.PLAYER_OPERATION_INVALID,
                                         actor.id, None)])
        self.assertEqual(self.flushLoggedErrors(), [])
        self.assertFalse(actor.closed)
        self.assertEqual(game.turns, 0)

    def test_readyBodyIgnored(self):
        """
        A body on PLAYER_READY, even garbage, does not matter.
        """
        h = Harness()
        c = h.table(1, ready=False)[0]
        c.sendBytes(wire.HEADER.pack(3, c.id, 31, 0) + b"{x}")
        self.assertEqual(c.pump(), [(wire.PLAYER_READY, c.id, None)])

    def test_bigButValid(self):
        """
        A 64 KiB frame is read whole (and judged by its content).
        """
        h = Harness()
        c = h.table(1, ready=False)[0]
        body = b'{"pad": "' + b"x" * (64 * 1024 - 28 - 12) + b'"}'
        c.sendBytes(wire.HEADER.pack(6, c.id, 28 + len(body), 0) + body)
        self.assertFalse(c.closed)
        self.assertEqual(kinds(c.pump()), [wire.PLAYER_OPERATION_INVALID])


class DisconnectTests(ProtocolTestCase):
    """
    What the others receive when a player drops, before and during a
    game.
    """

    def test_lobbyDrop(self):
        """
        A player dropping at a table: the others receive nothing, and the
        table is smaller.
        """
        h = Harness()
        conns = h.table(3, ready=False)
        conns[1].drop()
        self.assertEqual(pumpAll([conns[0], conns[2]]), [[], []])
        self.assertEqual(len(roomOf(h, conns[0]).members), 2)
        self.assertEqual(len(h.sessions), 2)

    def test_lobbyDropStarts(self):
        """
        If everyone left is ready, the game starts.
        """
        h = Harness()
        conns = h.table(3, ready=False)
        conns[0].ready()
        conns[2].ready()
        pumpAll(conns)
        conns[1].drop()
        for c in (conns[0], conns[2]):
            self.assertEqual(kinds(c.pump()), [wire.GAME_START,
                                               wire.NEW_TURN])
            self.assertEqual(c.received[-2][2]["players_number"], 2)
        self.assertEqual(roomOf(h, conns[0]).game.seatCount, 2)

    def test_lastLobbyDrop(self):
        """
        The last player leaving closes the table.
        """
        h = Harness()
        c = h.table(1, ready=False)[0]
        c.drop()
        self.assertEqual(h.lobby.rooms(KIND), [])

    def test_twoPlayerDrop(self):
        """
        In a two-player game the one left wins at once; the table ends.
        """
        h = Harness()
        conns = h.table(2)
        conns[0].drop()
        self.assertEqual(conns[1].pump(), [(wire.WINNER, conns[1].id,
                                            None)])
        self.assertEqual(h.lobby.rooms(KIND), [])
        self.assertEqual(conns[1].protocol.state, "NEW")

    def test_dropOnTurn(self):
        """
        The player to act drops: NEW_TURN goes to the next player; later
        rounds skip the empty seat and everyone else plays on to WINNER.
        """
        h = Harness(seed=2)
        conns = h.table(3)
        actor, game = current(h, conns)
        rest = [c for c in conns if c is not actor]
        sequence = sequenceOf(roomOf(h, actor))
        actor.drop()
        for c in rest:
            self.assertEqual(c.pump(), [(wire.NEW_TURN, 0, {
                "new_turn_player": sequence[1]})])
        self.assertTrue(game.retired[0])
        for c in rest:
            c.mirror.check(self, game, sequence)
        self.playRandom(h, rest, 8)
        self.assertNotEqual(game.winner, 0)

    def test_dropOffTurn(self):
        """
        A player who drops while another acts: nothing is sent until the
        turn order reaches the empty seat, which is skipped.
        """
        h = Harness(seed=2)
        conns = h.table(3)
        room = roomOf(h, conns[0])
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        leaver = byId[sequence[1]]
        leaver.drop()
        rest = [c for c in conns if c is not leaver]
        self.assertEqual(pumpAll(rest), [[], []])
        byId[sequence[0]].act(TAKE)
        for c in rest:
            self.assertEqual(c.pump()[-1], (wire.NEW_TURN, 0, {
                "new_turn_player": sequence[2]}))

    def test_dropDuringDiscard(self):
        """
        A player who drops with a discard pending: the first legal
        discard is broadcast, then NEW_TURN.
        """
        h = Harness()
        conns = h.table(3)
        actor, game = current(h, conns)
        detach(h)
        rest = [c for c in conns if c is not actor]
        game.players[0].tokens = [3, 3, 3, 0, 0, 0]
        actor.act(TAKE)
        pumpAll(conns)
        actor.drop()
        sequence = sequenceOf(roomOf(h, rest[0]))
        for c in rest:
            burst = c.pump()
            self.assertEqual(kinds(burst), [wire.PLAYER_OPERATION,
                                            wire.NEW_TURN])
            self.assertEqual(burst[0][2]["operation_type"], "discard_gems")
            self.assertEqual(burst[1][2]["new_turn_player"], sequence[1])
        self.assertEqual(game.players[0].tokenCount(), 10)

    def test_twoPlayerDropDuringDiscard(self):
        """
        In a two-player game too, a player who drops with a discard
        pending has it settled and broadcast, then the one left wins.
        """
        h = Harness()
        conns = h.table(2)
        actor, game = current(h, conns)
        detach(h)
        other = [c for c in conns if c is not actor][0]
        game.players[0].tokens = [3, 3, 3, 0, 0, 0]
        actor.act(TAKE)
        pumpAll(conns)
        actor.drop()
        burst = other.pump()
        self.assertEqual(kinds(burst), [wire.PLAYER_OPERATION, wire.WINNER])
        self.assertEqual(burst[0][2]["operation_type"], "discard_gems")
        self.assertEqual(burst[0][2]["player_id"], actor.id)
        self.assertEqual(burst[1], (wire.WINNER, other.id, None))
        self.assertEqual(game.players[0].tokenCount(), 10)
        self.assertEqual(h.lobby.rooms(KIND), [])

    def test_everyoneDrops(self):
        """
        Everyone dropping ends the table and forgets the sessions.
        """
        h = Harness()
        conns = h.table(4)
        for c in conns:
            c.drop()
        self.assertEqual(h.lobby.rooms(KIND), [])
        self.assertEqual(len(h.sessions), 0)

    def test_takeover(self):
        """
        With takeover by bot, a bot plays the seat (one move per
        botDelay) and the game goes on to WINNER.
        """
        h = Harness(takeover="bot", botDelay=0.5)
        conns = h.table(2)
        room = roomOf(h, conns[0])
        game = room.game
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        leaver = byId[sequence[0]]
        human = byId[sequence[1]]
        leaver.drop()
        self.assertEqual(human.pump(), [])
        h.clock.advance(0.5)
        self.assertEqual(kinds(human.pump())[0], wire.PLAYER_OPERATION)
        rng = random.Random(1)
        for _ in range(5000):
            if game.isOver:
                break
            if game.currentSeat == 1:
                human.act(rng.choice(game.legalActions(1)))
            else:
                h.clock.advance(0.5)
            human.pump()
            human.mirror.check(self, game, sequence)
        self.assertTrue(game.isOver)
        self.assertEqual(human.received[-1][0], wire.WINNER)
        self.assertEqual(h.clock.getDelayedCalls(), [])

    def test_brokenBot(self):
        """
        A takeover bot that fails is replaced by the first legal action;
        nothing reaches the reactor.
        """
        class Broken:
            level = 1

            def chooseAction(self, state, seat):
                raise RuntimeError("boom")

        h = Harness(takeover="bot", botDelay=0.5,
                    thinker=InlineThinker(
                        lambda kind, level, seed: Broken()))
        conns = h.table(2)
        room = roomOf(h, conns[0])
        game = room.game
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        byId[sequence[0]].drop()
        first = game.legalActions(0)[0]
        h.clock.advance(0.5)
        self.assertEqual(game.turns, 1)
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        human = byId[sequence[1]]
        self.assertEqual(human.pump()[0][2]["operation_type"], first.kind)

    def test_defaultBot(self):
        """
        By default hub.bots' Splendor bot at C{botLevel} plays the seat,
        in a L{SeatPilot} kept by the table's takeover, thinking in the
        caller's thread (the hub gives its factories its pool).
        """
        h = Harness(takeover="bot", botDelay=0.5, botLevel=1)
        conns = h.table(3)
        room = roomOf(h, conns[0])
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        byId[sequence[2]].drop()
        pilot = room.table.takeover.pilots[2]
        self.assertIsInstance(pilot, SeatPilot)
        self.assertIsInstance(pilot.thinker, InlineThinker)
        self.assertEqual(pilot.thinker.botFactory, botFor)
        self.assertEqual((pilot.kind, pilot.level, pilot.delay),
                         ("splendor", 1, 0.5))
        self.assertFalse(pilot.pending)

    def test_nothingAfterLastHumanLeaves(self):
        """
        When the last human leaves while a bot's move is pending, the
        table ends and its bots are stopped: no timer stays behind.
        """
        h = Harness(takeover="bot", botDelay=0.5)
        conns = h.table(2)
        room = roomOf(h, conns[0])
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        byId[sequence[0]].drop()
        pilot = room.table.takeover.pilots[0]
        self.assertTrue(pilot.pending)
        byId[sequence[1]].drop()
        self.assertFalse(pilot.pending)
        self.assertEqual(h.lobby.rooms(KIND), [])
        self.assertEqual(h.clock.getDelayedCalls(), [])


class PacingTests(ProtocolTestCase):
    """
    The optional C{minGap} between two messages of one kind.
    """

    def test_sameKindWaits(self):
        """
        A second NEW_TURN within C{minGap} waits, and so does what
        follows it; other kinds go at once; order is kept.
        """
        h = Harness(minGap=0.05)
        conns = h.table(2)
        while h.clock.getDelayedCalls():
            h.clock.advance(0.05)
            pumpAll(conns)
        h.clock.advance(1)
        pumpAll(conns)
        self.assertEqual(kinds(conns[0].received)[-2:],
                         [wire.GAME_START, wire.NEW_TURN])
        actor, game = current(h, conns)
        other = [c for c in conns if c is not actor][0]
        actor.act(TAKE)
        self.assertEqual(kinds(actor.pump()), [wire.PLAYER_OPERATION,
                                               wire.NEW_TURN])
        other.act(TAKE)
        self.assertEqual(actor.pump(), [])
        actor.act(Action("get_gems", 0, (("diamond", 1), ("sapphire", 1),
                                         ("emerald", 1))))
        self.assertEqual(actor.pump(), [])
        self.assertEqual(game.turns, 3)
        h.clock.advance(0.05)
        burst = actor.pump()
        self.assertEqual(kinds(burst), [wire.PLAYER_OPERATION,
                                        wire.NEW_TURN])
        self.assertEqual(burst[0][2]["player_id"], other.id)
        h.clock.advance(0.05)
        burst = actor.pump()
        self.assertEqual(kinds(burst), [wire.PLAYER_OPERATION,
                                        wire.NEW_TURN])
        self.assertEqual(burst[0][2]["player_id"], actor.id)
        self.assertEqual(h.clock.getDelayedCalls(), [])
        for c in conns:
            self.assertNoRepeatedKinds(c)

    def test_dropCancels(self):
        """
        Frames still waiting when the connection drops are dropped, and
        no timer is left behind.
        """
        h = Harness(minGap=0.05)
        conns = h.table(2)
        actor, game = current(h, conns)
        other = [c for c in conns if c is not actor][0]
        actor.act(TAKE)
        other.act(TAKE)
        self.assertTrue(actor.protocol.pacer.pending)
        waiting = len(h.clock.getDelayedCalls())
        actor.drop()
        self.assertFalse(actor.protocol.pacer.pending)
        self.assertEqual(len(h.clock.getDelayedCalls()), waiting - 1)
        h.clock.advance(1)
        self.assertEqual(actor.pump(), [])

    def test_fullGameWithGap(self):
        """
        A whole three-player game with C{minGap}: every read holds at
        most one message of a kind, and the views still follow the game.
        """
        h = Harness(seed=6, minGap=0.02)
        conns = h.table(3)
        while h.clock.getDelayedCalls():
            h.clock.advance(0.02)
            pumpAll(conns)
        self.playRandom(h, conns, 6, gap=0.02)

    def test_boundedQueue(self):
        """
        A connection that makes the server queue more than MAX_PACED
        frames for it (here by spamming invalid operations) is closed.
        """
        h = Harness(minGap=0.05)
        c = h.table(1, ready=False)[0]
        for _ in range(MAX_PACED + 5):
            c.act(TAKE)
            if c.closed:
                break
        self.assertTrue(c.closed)


class IdleTimeoutTests(IdleTimeoutTestsMixin, SynchronousTestCase):
    """
    The idle timeout on Splendor connections.
    """

    def harness(self):
        return Harness()

    def speak(self, connection):
        connection.init()

    def drop(self, connection):
        connection.drop()
