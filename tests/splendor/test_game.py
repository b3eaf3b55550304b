"""
Tests for L{hub.games.splendor}: setup, the kinds of turn, tokens,
nobles, the end and the winner.
"""

import random

from hypothesis import given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.ihub import IGameRules
from hub.games import splendor as sp
from hub.games.splendor import Action
from hub.games import splendor_moves as spe


def game(seats=2, seed=1):
    return sp.SplendorGame(seats, random.Random(seed))


def tokens(player, **counts):
    """
    Set every token count of C{player} (unnamed colours become 0).
    """
    player.tokens = [counts.get(t, 0) for t in sp.TOKENS]


def snapshot(g):
    return (g.bank[:], [r[:] for r in g.board], [d[:] for d in g.decks],
            g.nobles[:], [(p.tokens[:], p.bonuses[:], p.points,
                           p.reserved[:], p.purchased[:], p.nobles[:])
                          for p in g.players],
            g.currentSeat, g.phase, g.pendingDiscard, g.pendingNobles,
            g.winner, g.stalled, g.turns)


class SetupTests(SynchronousTestCase):
    """
    Dealing per player count.
    """

    def test_cardData(self):
        """
        90 cards (40/30/20, 8/6/4 per colour) and 10 nobles of 3 points.
        """
        self.assertEqual(sorted(sp.CARDS), list(range(1, 91)))
        self.assertEqual(sorted(sp.NOBLES), list(range(91, 101)))
        for level, count in ((1, 40), (2, 30), (3, 20)):
            cards = [c for c in sp.CARDS.values() if c.level == level]
            self.assertEqual(len(cards), count)
            for colour in range(5):
                self.assertEqual(
                    sum(1 for c in cards if c.bonus == colour), count // 5)
        self.assertEqual(sp.CARDS[1], sp.Card(1, 1, 1, 1, (0, 0, 0, 4, 0)))
        self.assertEqual(sp.CARDS[90],
                         sp.Card(90, 3, 3, 3, (3, 5, 3, 0, 3)))
        self.assertEqual(sp.NOBLES[91], sp.Card(91, 0, 3, -1,
                                                (4, 4, 0, 0, 0)))
        self.assertTrue(all(n.points == 3 for n in sp.NOBLES.values()))

    def test_setup(self):
        """
        Bank 4/5/7 + 5 gold, players + 1 nobles, 4 face-up cards a level.
        """
        for seats, pile in ((2, 4), (3, 5), (4, 7)):
            g = game(seats)
            self.assertTrue(verifyObject(IGameRules, g))
            self.assertEqual(g.seatCount, seats)
            self.assertEqual(g.bank, [pile] * 5 + [5])
            self.assertEqual(len(g.nobles), seats + 1)
            self.assertTrue(all(91 <= n <= 100 for n in g.nobles))
            for level, size in ((1, 40), (2, 30), (3, 20)):
                row = g.faceUp(level)
                self.assertEqual(len(row), 4)
                self.assertTrue(all(sp.CARDS[c].level == level for c in row))
                self.assertEqual(len(g.decks[level - 1]), size - 4)
            self.assertEqual(g.currentSeat, 0)
            self.assertFalse(g.isOver)

    def test_seatCounts(self):
        """
        Only 2 to 4 seats.
        """
        for seats in (0, 1, 5):
            self.assertRaises(ValueError, sp.SplendorGame, seats)

    def test_seeded(self):
        """
        The same seed deals the same game; the global generator is not
        used.
        """
        random.seed(5)
        a = snapshot(game(3, seed=9))
        random.seed(6)
        self.assertEqual(a, snapshot(game(3, seed=9)))
        self.assertNotEqual(a, snapshot(game(3, seed=10)))

    def test_copyEveryAttribute(self):
        """
        A copy has every attribute of the original, equal and
        independent: a new attribute cannot be missed.
        """
        g = game(3)
        g.apply(0, g.legalActions(0)[0])
        g.extra = "carried"
        other = g.copy()
        self.assertEqual(sorted(vars(other)), sorted(vars(g)))
        for name, value in vars(g).items():
            if name != "players":
                self.assertEqual(getattr(other, name), value, name)
            if isinstance(value, list) and name != "rng":
                self.assertIsNot(getattr(other, name), value, name)
        self.assertIs(other.rng, g.rng)
        for mine, theirs in zip(g.players, other.players):
            for name in sp.PlayerState.__slots__:
                value = getattr(mine, name)
                self.assertEqual(getattr(theirs, name), value)
                if isinstance(value, list):
                    self.assertIsNot(getattr(theirs, name), value)
        other.board[0][0] = -1
        self.assertNotEqual(g.board[0][0], -1)

    def test_copy(self):
        """
        A copy plays on without touching the original.
        """
        g = game()
        before = snapshot(g)
        other = g.copy()
        other.apply(0, other.legalActions(0)[0])
        self.assertEqual(snapshot(g), before)
        self.assertNotEqual(snapshot(other), before)


class DealTests(SynchronousTestCase):
    """
    L{sp.SplendorGame.deal} and L{sp.SplendorGame.fromDeal}: the deal as
    JSON-able data, and back.
    """

    def test_roundTrip(self):
        """
        A game rebuilt from its deal (through JSON) is the same game and
        plays the same: the same hidden cards come off the decks.
        """
        import json
        for seats in (2, 3, 4):
            g = game(seats, seed=seats)
            deal = json.loads(json.dumps(g.deal()))
            other = sp.SplendorGame.fromDeal(deal)
            self.assertEqual(snapshot(other), snapshot(g))
            self.assertEqual(other.seatCount, seats)
            rng = random.Random(seats)
            while not g.isOver:
                action = rng.choice(g.legalActions(g.currentSeat))
                self.assertEqual(other.apply(g.currentSeat, action),
                                 g.apply(g.currentSeat, action))
            self.assertEqual(snapshot(other), snapshot(g))

    def test_fresh(self):
        """
        The deal is taken from a game that has not started; a deal of
        the wrong shape is refused.
        """
        deal = game(2).deal()
        self.assertEqual(sorted(deal), ["board", "decks", "nobles",
                                        "seats"])
        self.assertEqual([len(row) for row in deal["board"]], [4, 4, 4])
        self.assertEqual(len(deal["nobles"]), 3)
        bad = dict(deal, seats=5)
        self.assertRaises(ValueError, sp.SplendorGame.fromDeal, bad)
        bad = dict(deal, board=deal["board"][:2])
        self.assertRaises(ValueError, sp.SplendorGame.fromDeal, bad)


class IllegalMixin:
    def assertIllegal(self, g, seat, action):
        """
        C{action} raises L{sp.IllegalAction} (a ValueError) and changes
        nothing; it is not among the legal actions either.
        """
        before = snapshot(g)
        self.assertRaises(sp.IllegalAction, g.apply, seat, action)
        self.assertTrue(issubclass(sp.IllegalAction, ValueError))
        self.assertEqual(snapshot(g), before)
        if isinstance(action, Action):
            self.assertNotIn(action.canonical(), g.legalActions(seat))


class TakeGemsTests(SynchronousTestCase, IllegalMixin):
    """
    C{get_gems}.
    """

    def test_threeDifferent(self):
        """
        Three different colours move from the bank to the player; the
        turn passes.
        """
        g = game()
        action = Action("get_gems", 0, (("diamond", 1), ("ruby", 1),
                                        ("sapphire", 1)))
        self.assertIn(action, g.legalActions(0))
        events = g.apply(0, action)
        self.assertEqual(events, [spe.OperationDone(0, action),
                                  spe.NewTurn(1)])
        self.assertEqual(g.bank, [3, 3, 4, 3, 4, 5])
        self.assertEqual(g.players[0].tokens, [1, 1, 0, 1, 0, 0])
        self.assertEqual(g.currentSeat, 1)

    def test_twoOfOne(self):
        """
        Two of a colour whose pile holds at least 4.
        """
        g = game()
        action = Action("get_gems", 0, (("ruby", 2),))
        self.assertIn(action, g.legalActions(0))
        g.apply(0, action)
        self.assertEqual(g.players[0].tokens, [0, 0, 0, 2, 0, 0])
        self.assertEqual(g.bank[3], 2)

    def test_twoFromSmallPile(self):
        """
        Two of a colour from a pile under 4 is illegal.
        """
        g = game()
        g.bank[3] = 3
        self.assertIllegal(g, 0, Action("get_gems", 0, (("ruby", 2),)))

    def test_wrongTurn(self):
        """
        Seat 1 cannot play on seat 0's turn.
        """
        g = game()
        action = Action("get_gems", 0, (("diamond", 1), ("ruby", 1),
                                        ("sapphire", 1)))
        self.assertIllegal(g, 1, action)
        self.assertEqual(g.legalActions(1), [])

    def test_gold(self):
        """
        Gold cannot be taken directly.
        """
        g = game()
        self.assertIllegal(g, 0, Action("get_gems", 0, (
            ("diamond", 1), ("ruby", 1), ("golden", 1))))
        self.assertIllegal(g, 0, Action("get_gems", 0, (("golden", 1),)))

    def test_duplicates(self):
        """
        A colour given twice is illegal even as two single entries.
        """
        g = game()
        self.assertIllegal(g, 0, Action("get_gems", 0, (
            ("ruby", 1), ("ruby", 1), ("diamond", 1))))
        self.assertIllegal(g, 0, Action("get_gems", 0, (
            ("ruby", 1), ("ruby", 1))))

    def test_badShapes(self):
        """
        Unknown colours, bad counts, 2+1, four colours, none at all.
        """
        g = game()
        for gems in [(("onyx", 1), ("ruby", 1), ("diamond", 1)),
                     (("ruby", 3),), (("ruby", -1),), (("ruby", True),),
                     (("ruby", 2), ("diamond", 1)),
                     (("ruby", 1), ("diamond", 1), ("emerald", 1),
                      ("sapphire", 1)),
                     (), "ruby", ((1, 1),), (("ruby",),)]:
            self.assertIllegal(g, 0, Action("get_gems", 0, gems))
        self.assertIllegal(g, 0, ("get_gems",))
        self.assertIllegal(g, 0, Action("dance"))

    def test_fewerThanThree(self):
        """
        One or two gems only when that brings the player to 10, or fewer
        than three colours are left in the bank.
        """
        g = game()
        two = Action("get_gems", 0, (("diamond", 1), ("ruby", 1)))
        one = Action("get_gems", 0, (("ruby", 1),))
        self.assertIllegal(g, 0, two)
        self.assertIllegal(g, 0, one)
        tokens(g.players[0], emerald=4, obsidian=4)
        self.assertIn(two, g.legalActions(0))
        self.assertNotIn(one, g.legalActions(0))
        tokens(g.players[0], emerald=4, obsidian=4, golden=1)
        self.assertIn(one, g.legalActions(0))
        tokens(g.players[0])
        g.bank = [0, 0, 0, 2, 1, 5]
        self.assertIn(one, g.legalActions(0))
        g.apply(0, Action("get_gems", 0, (("ruby", 1), ("obsidian", 1))))
        self.assertEqual(g.bank, [0, 0, 0, 1, 0, 5])

    def test_emptyPile(self):
        """
        A colour whose pile is empty cannot be taken.
        """
        g = game()
        g.bank[0] = 0
        self.assertIllegal(g, 0, Action("get_gems", 0, (
            ("diamond", 1), ("ruby", 1), ("sapphire", 1))))


class DiscardTests(SynchronousTestCase, IllegalMixin):
    """
    The 10-token limit.
    """

    def setUp(self):
        self.g = game()
        tokens(self.g.players[0], diamond=2, sapphire=2, emerald=2, ruby=2,
               golden=1)
        self.g.bank[sp.GOLD] = 4
        self.take = Action("get_gems", 0, (("diamond", 1), ("ruby", 1),
                                           ("obsidian", 1)))

    def test_discardFlow(self):
        """
        Going to 12 tokens asks for 2 back; only discard_gems is legal and
        it must leave exactly 10; then the turn passes.
        """
        g = self.g
        events = g.apply(0, self.take)
        self.assertEqual(events, [spe.OperationDone(0, self.take),
                                  spe.DiscardRequired(0, 2)])
        self.assertEqual(g.currentSeat, 0)
        self.assertEqual(g.phase, sp.PHASE_DISCARD)
        legal = g.legalActions(0)
        self.assertTrue(legal)
        self.assertTrue(all(a.kind == "discard_gems" for a in legal))
        self.assertTrue(all(sum(n for _, n in a.gems) == 2 for a in legal))
        self.assertIn(Action("discard_gems", 0, (("obsidian", 1),
                                                 ("golden", 1))), legal)
        self.assertIllegal(g, 0, Action("discard_gems", 0, (("ruby", 1),)))
        self.assertIllegal(g, 0, Action("discard_gems", 0, (("ruby", 3),)))
        self.assertIllegal(g, 0, Action("discard_gems", 0, (
            ("obsidian", 2),)))
        self.assertIllegal(g, 0, Action("discard_gems", 0, (
            ("ruby", 1), ("ruby", 1))))
        self.assertIllegal(g, 0, self.take)
        self.assertIllegal(g, 1, Action("discard_gems", 0, (("ruby", 2),)))
        discard = Action("discard_gems", 0, (("ruby", 1), ("golden", 1)))
        events = g.apply(0, discard)
        self.assertEqual(events, [spe.OperationDone(0, discard),
                                  spe.NewTurn(1)])
        self.assertEqual(g.players[0].tokenCount(), 10)
        self.assertEqual(g.bank, [3, 4, 4, 4, 3, 5])

    def test_discardOutsideFlow(self):
        """
        discard_gems is illegal when no discard is pending.
        """
        self.assertIllegal(self.g, 0, Action("discard_gems", 0,
                                             (("ruby", 1),)))

    def test_reserveGoldDiscard(self):
        """
        A reserve's gold can be the 11th token.
        """
        g = self.g
        tokens(g.players[0], diamond=2, sapphire=2, emerald=2, ruby=2,
               obsidian=2)
        card = g.board[0][0]
        events = g.apply(0, Action("fold_card", card))
        self.assertEqual(events[-1], spe.DiscardRequired(0, 1))
        self.assertIn(Action("discard_gems", 0, (("golden", 1),)),
                      g.legalActions(0))


class ReserveTests(SynchronousTestCase, IllegalMixin):
    """
    C{fold_card} and C{fold_card_unknown}.
    """

    def test_foldCard(self):
        """
        A face-up card goes to the reserve with a gold; the deck refills
        the slot.
        """
        g = game()
        card = g.board[1][2]
        top = g.decks[1][-1]
        events = g.apply(0, Action("fold_card", card))
        self.assertEqual(events, [
            spe.OperationDone(0, Action("fold_card", card), 1),
            spe.NewCard(0, 2, top), spe.NewTurn(1)])
        self.assertEqual(g.players[0].reserved, [card])
        self.assertEqual(g.players[0].tokens[sp.GOLD], 1)
        self.assertEqual(g.board[1][2], top)
        self.assertEqual(g.bank[sp.GOLD], 4)

    def test_noGoldLeft(self):
        """
        With no gold in the bank the reserve gives none.
        """
        g = game()
        g.bank[sp.GOLD] = 0
        card = g.board[0][0]
        events = g.apply(0, Action("fold_card", card))
        self.assertEqual(events[0].golden, 0)
        self.assertEqual(g.players[0].tokens[sp.GOLD], 0)

    def test_emptyDeck(self):
        """
        With the deck empty the slot stays 0 and there is no NewCard.
        """
        g = game()
        g.decks[2] = []
        card = g.board[2][3]
        events = g.apply(0, Action("fold_card", card))
        self.assertEqual([type(e) for e in events],
                         [spe.OperationDone, spe.NewTurn])
        self.assertEqual(g.board[2][3], 0)
        self.assertIllegal(g, 1, Action("fold_card", 0))

    def test_foldUnknown(self):
        """
        The hidden top card goes to the reserve; the event names it.
        """
        g = game()
        top = g.decks[0][-1]
        action = Action("fold_card_unknown", 10001)
        self.assertIn(action, g.legalActions(0))
        events = g.apply(0, action)
        self.assertEqual(events, [spe.OperationDone(0, action, 1, top),
                                  spe.NewTurn(1)])
        self.assertEqual(g.players[0].reserved, [top])
        self.assertEqual(len(g.decks[0]), 35)

    def test_invalidReserves(self):
        """
        Not face up, nobles, slot 0, bad deck numbers, empty decks.
        """
        g = game()
        hidden = g.decks[0][0]
        for card in [hidden, g.nobles[0], 0, 10000, 10004, 1, "3", None]:
            if card in g.board[0]:
                continue
            self.assertIllegal(g, 0, Action("fold_card", card))
        for card in [10000, 10004, 3, g.board[0][0], "10001"]:
            self.assertIllegal(g, 0, Action("fold_card_unknown", card))
        g.decks[1] = []
        self.assertIllegal(g, 0, Action("fold_card_unknown", 10002))
        self.assertIllegal(g, 0, Action("fold_card", g.board[0][0],
                                        (("ruby", 1),)))

    def test_fourthReserve(self):
        """
        A fourth reserve is illegal.
        """
        g = game()
        g.players[0].reserved = [g.decks[0].pop() for _ in range(3)]
        self.assertIllegal(g, 0, Action("fold_card", g.board[0][0]))
        self.assertIllegal(g, 0, Action("fold_card_unknown", 10001))
        self.assertFalse([a for a in g.legalActions(0)
                          if a.kind.startswith("fold")])


class BuyTests(SynchronousTestCase, IllegalMixin):
    """
    C{buy_card}: bonuses, gold, holdings.
    """

    def setUp(self):
        self.g = game()
        # Card 6 costs sapphire 1, emerald 3, ruby 1.
        self.g.board[0][0] = 6

    def test_exactPayment(self):
        """
        Paying the cost moves tokens to the bank, the card to the player
        and refills the slot.
        """
        g = self.g
        tokens(g.players[0], sapphire=1, emerald=3, ruby=2)
        top = g.decks[0][-1]
        action = Action("buy_card", 6, (("emerald", 3), ("ruby", 1),
                                        ("sapphire", 1)))
        self.assertIn(action, g.legalActions(0))
        events = g.apply(0, action)
        self.assertEqual(events, [spe.OperationDone(0, action),
                                  spe.NewCard(0, 1, top), spe.NewTurn(1)])
        p = g.players[0]
        self.assertEqual(p.tokens, [0, 0, 0, 1, 0, 0])
        self.assertEqual(p.bonuses, [0, 1, 0, 0, 0])
        self.assertEqual(p.purchased, [6])
        self.assertEqual(g.bank, [4, 5, 7, 5, 4, 5])
        self.assertEqual(g.board[0][0], top)

    def test_bonusesAndGold(self):
        """
        Bonuses lower the cost; gold covers the rest.
        """
        g = self.g
        g.players[0].bonuses = [0, 0, 2, 0, 0]
        tokens(g.players[0], sapphire=1, golden=2)
        action = Action("buy_card", 6, (("sapphire", 1), ("golden", 2)))
        self.assertIn(action, g.legalActions(0))
        g.apply(0, action)
        self.assertEqual(g.players[0].tokens, [0] * 6)
        self.assertEqual(g.bank[sp.GOLD], 7)

    def test_freeCard(self):
        """
        Bonuses alone can pay: an empty payment.
        """
        g = self.g
        g.players[0].bonuses = [0, 1, 3, 1, 0]
        action = Action("buy_card", 6)
        self.assertEqual([a for a in g.legalActions(0)
                          if a.kind == "buy_card" and a.card == 6],
                         [action])
        g.apply(0, action)
        self.assertEqual(g.players[0].points, 0)

    def test_cannotPay(self):
        """
        Underpaying, overpaying, paying in the wrong colour, paying with
        tokens not held.
        """
        g = self.g
        tokens(g.players[0], sapphire=1, emerald=2, ruby=1, golden=1)
        for payment in [(("sapphire", 1), ("emerald", 2), ("ruby", 1)),
                        (("sapphire", 1), ("emerald", 3), ("ruby", 1)),
                        (("sapphire", 1), ("emerald", 2), ("ruby", 1),
                         ("golden", 2)),
                        (("sapphire", 1), ("emerald", 2), ("ruby", 1),
                         ("diamond", 1)),
                        (("sapphire", 2), ("emerald", 2), ("ruby", 1)),
                        (("sapphire", 1), ("emerald", 2), ("emerald", 1),
                         ("ruby", 1)),
                        (("emerald", 2), ("ruby", 1), ("golden", 2))]:
            self.assertIllegal(g, 0, Action("buy_card", 6, payment))
        tokens(g.players[0], sapphire=1, emerald=2, ruby=1)
        self.assertIllegal(g, 0, Action("buy_card", 6, (
            ("sapphire", 1), ("emerald", 2), ("ruby", 1), ("golden", 1))))
        self.assertNotIn(6, [a.card for a in g.legalActions(0)
                             if a.kind == "buy_card"])

    def test_notBuyable(self):
        """
        Cards in a deck, nobles, another player's reserve, slot 0.
        """
        g = self.g
        tokens(g.players[0], diamond=4, sapphire=4, emerald=4, ruby=4,
               obsidian=4, golden=5)
        other = g.decks[0].pop()
        g.players[1].reserved = [other]
        for card in [g.decks[0][0], g.nobles[0], other, 0, None]:
            self.assertIllegal(g, 0, Action("buy_card", card))

    def test_buyReserved(self):
        """
        A player's own reserved card can be bought; no NewCard.
        """
        g = self.g
        card = 40   # sapphire 2, emerald 1
        g.decks[0].remove(card)
        g.players[0].reserved = [card]
        tokens(g.players[0], sapphire=2, emerald=1)
        action = Action("buy_card", card, g.payment(0, card))
        self.assertIn(action, g.legalActions(0))
        events = g.apply(0, action)
        self.assertEqual(events, [spe.OperationDone(0, action),
                                  spe.NewTurn(1)])
        self.assertEqual(g.players[0].reserved, [])
        self.assertEqual(g.players[0].purchased, [card])

    def test_allPayments(self):
        """
        Every way of mixing gold into a payment is listed, and all of
        them are legal.
        """
        g = self.g
        tokens(g.players[0], sapphire=1, emerald=3, ruby=1, golden=2)
        buys = [a for a in g.legalActions(0)
                if a.kind == "buy_card" and a.card == 6]
        # gold covers none, one of the 3 colours, or two tokens of
        # {sapphire, emerald, emerald, emerald, ruby}: 1 + 3 + 4 ways
        self.assertEqual(len(buys), 1 + 3 + 4)
        self.assertEqual(len(set(buys)), len(buys))
        for a in buys:
            g.copy().apply(0, a)


class NobleTests(SynchronousTestCase, IllegalMixin):
    """
    Noble visits.
    """

    def setUp(self):
        self.g = game(3)
        self.g.nobles = [91, 93, 97, 100]
        # card 2 gives a diamond bonus and costs emerald 4
        self.g.board[0][0] = 2
        tokens(self.g.players[0], emerald=4)

    def buy(self):
        return Action("buy_card", 2, self.g.payment(0, 2))

    def test_autoAward(self):
        """
        Exactly one noble qualifies: awarded at once, 3 points.
        """
        g = self.g
        g.players[0].bonuses = [2, 3, 3, 0, 0]
        events = g.apply(0, self.buy())
        self.assertEqual(events[-2:], [spe.NobleAwarded(0, 93, False),
                                       spe.NewTurn(1)])
        self.assertEqual(g.players[0].points, 1 + 3)
        self.assertEqual(g.players[0].nobles, [93])
        self.assertEqual(g.nobles, [91, 97, 100])

    def test_choice(self):
        """
        Two qualify: the player must choose one, nothing else is legal,
        and only one noble is given that turn.
        """
        g = self.g
        g.players[0].bonuses = [3, 4, 3, 0, 0]
        events = g.apply(0, self.buy())
        self.assertEqual(events[-1], spe.NobleOffered(0, (91, 93)))
        self.assertEqual(g.currentSeat, 0)
        self.assertEqual(g.phase, sp.PHASE_NOBLE)
        self.assertEqual(g.legalActions(0),
                         [Action("get_noble", 91), Action("get_noble", 93)])
        self.assertIllegal(g, 0, Action("get_noble", 97))
        self.assertIllegal(g, 1, Action("get_noble", 91))
        self.assertIllegal(g, 0, Action("get_gems", 0, (
            ("ruby", 1), ("emerald", 1), ("obsidian", 1))))
        events = g.apply(0, Action("get_noble", 93))
        self.assertEqual(events, [spe.NobleAwarded(0, 93, True),
                                  spe.NewTurn(1)])
        self.assertEqual(g.nobles, [91, 97, 100])
        self.assertEqual(g.players[0].points, 1 + 3)

    def test_leftoverLater(self):
        """
        A noble still earned after a choice comes at the end of the
        player's next turn.
        """
        g = self.g
        g.players[0].bonuses = [3, 4, 3, 0, 0]
        g.apply(0, self.buy())
        g.apply(0, Action("get_noble", 93))
        take = Action("get_gems", 0, (("emerald", 1), ("obsidian", 1),
                                      ("ruby", 1)))
        g.apply(1, take)
        g.apply(2, take)
        events = g.apply(0, take)
        self.assertEqual(events[1], spe.NobleAwarded(0, 91, False))

    def test_noNobleOutsideChoice(self):
        """
        get_noble is illegal when no choice is pending.
        """
        self.g.players[0].bonuses = [4, 4, 0, 0, 0]
        self.assertIllegal(self.g, 0, Action("get_noble", 91))


class EndTests(SynchronousTestCase, IllegalMixin):
    """
    15 points end the game after the round; the winner rule.
    """

    take = Action("get_gems", 0, (("emerald", 1), ("obsidian", 1),
                                  ("ruby", 1)))

    def test_roundFinishes(self):
        """
        Seat 0 reaching 15 does not end the game before the last seat
        has played.
        """
        g = game(3)
        g.players[0].points = 15
        self.assertEqual(g.apply(0, self.take)[-1], spe.NewTurn(1))
        self.assertEqual(g.apply(1, self.take)[-1], spe.NewTurn(2))
        events = g.apply(2, self.take)
        self.assertEqual(events[-1], spe.GameOver(0))
        self.assertTrue(g.isOver)
        self.assertIsNone(g.currentSeat)
        self.assertEqual(g.winner, 0)
        self.assertEqual(g.legalActions(0), [])
        self.assertIllegal(g, 0, self.take)

    def test_mostPoints(self):
        """
        The most points win, whoever reached 15 first.
        """
        g = game(2)
        g.players[0].points = 15
        g.players[1].points = 16
        g.apply(0, self.take)
        self.assertEqual(g.apply(1, self.take)[-1], spe.GameOver(1))

    def test_tieFewestCards(self):
        """
        Tied on points: fewer purchased cards wins (reserves and nobles
        do not count).
        """
        g = game(2)
        g.players[0].points = 15
        g.players[0].purchased = [1, 2, 3]
        g.players[1].points = 15
        g.players[1].purchased = [4, 5, 6, 7]
        g.players[1].nobles = []
        g.players[0].reserved = [8, 9, 10]
        g.players[0].nobles = [91]
        g.apply(0, self.take)
        self.assertEqual(g.apply(1, self.take)[-1], spe.GameOver(0))

    def test_fullTieLatest(self):
        """
        Tied on points and cards: the later seat in turn order wins.
        """
        g = game(3)
        for p in g.players[:2]:
            p.points = 15
            p.purchased = [1, 2]
        g.apply(0, self.take)
        g.apply(1, self.take)
        self.assertEqual(g.apply(2, self.take)[-1], spe.GameOver(1))

    def test_skipStuckSeat(self):
        """
        A seat with no legal action passes without a NewTurn of its own.
        """
        g = game(2)
        g.bank = [0, 0, 0, 1, 0, 5]
        g.players[1].reserved = [g.decks[0].pop() for _ in range(3)]
        events = g.apply(0, Action("get_gems", 0, (("ruby", 1),)))
        self.assertEqual(events[1:], [spe.TurnSkipped(1), spe.NewTurn(0)])
        self.assertEqual(g.currentSeat, 0)


def playRandom(seats, seed, maxSteps=5000):
    """
    Play random legal actions; yield after each one.
    """
    rng = random.Random(seed)
    g = sp.SplendorGame(seats, random.Random(seed))
    steps = 0
    while not g.isOver and steps < maxSteps:
        seat = g.currentSeat
        for other in range(seats):
            if other != seat:
                assert g.legalActions(other) == []
        actions = g.legalActions(seat)
        assert actions, "a seat to act has no legal action"
        g.apply(seat, rng.choice(actions))
        steps += 1
        yield g


class RandomGameTests(SynchronousTestCase):
    """
    Random legal games keep the invariants and always end.
    """

    @settings(max_examples=60, deadline=None)
    @given(st.sampled_from([2, 3, 4]), st.integers(0, 2 ** 32))
    def test_randomGames(self, seats, seed):
        """
        Tokens are conserved (bank + hands = 4/5/7 x 5 gems and 5 gold),
        nobody holds more than 10 once a turn passes, reserves stay <= 3,
        cards are never duplicated, and the game ends.
        """
        gems = {2: 20, 3: 25, 4: 35}[seats]
        g = None
        for g in playRandom(seats, seed):
            self.assertEqual(g.tokenTotal(), (gems, 5))
            self.assertTrue(all(n >= 0 for n in g.bank))
            for p in g.players:
                self.assertTrue(all(n >= 0 for n in p.tokens))
                self.assertLessEqual(len(p.reserved), 3)
                if g.phase == sp.PHASE_ACT:
                    self.assertLessEqual(p.tokenCount(), 10)
            cards = ([c for row in g.board for c in row if c]
                     + [c for d in g.decks for c in d]
                     + [c for p in g.players for c in p.reserved]
                     + [c for p in g.players for c in p.purchased])
            self.assertEqual(sorted(cards), list(range(1, 91)))
        self.assertTrue(g.isOver)
        self.assertEqual(g.winner, g.ranking()[0])
        best = max(p.points for p in g.players)
        if g.stalled:
            self.assertTrue(all(not g._canAct(s) for s in range(seats)))
        else:
            self.assertGreaterEqual(best, 15)
        self.assertEqual(g.players[g.winner].points, best)

    def test_legalActionsAllApply(self):
        """
        Every listed action applies without error, at many points of
        random games.
        """
        for seats in (2, 3, 4):
            for i, g in enumerate(playRandom(seats, seats * 7)):
                if i % 7 or g.isOver:
                    continue
                for action in g.legalActions(g.currentSeat):
                    g.copy().apply(g.currentSeat, action)


class StalledTests(SynchronousTestCase):
    """
    A game where nobody can act any more ends instead of hanging.
    """

    def test_stalled(self):
        """
        No gems in the bank, three reserves each and nothing affordable:
        both seats pass and the game ends, ranked as usual.
        """
        g = game(2)
        g.bank = [0, 0, 0, 1, 0, 0]
        for p in g.players:
            p.reserved = [g.decks[0].pop() for _ in range(3)]
        g.players[1].points = 2
        events = g.apply(0, Action("get_gems", 0, (("ruby", 1),)))
        self.assertEqual(events[1:], [spe.TurnSkipped(1), spe.TurnSkipped(0),
                                      spe.GameOver(1)])
        self.assertTrue(g.isOver)
        self.assertTrue(g.stalled)


class RetireTests(SynchronousTestCase):
    """
    L{sp.SplendorGame.retire}: a player who left.
    """

    take = EndTests.take

    def test_offTurn(self):
        """
        A seat retiring while another acts causes nothing now and is
        skipped later, without a TurnSkipped.
        """
        g = game(3)
        self.assertEqual(g.retire(1), [])
        self.assertEqual(g.apply(0, self.take)[1:], [spe.NewTurn(2)])
        self.assertEqual(g.retire(1), [])

    def test_onTurn(self):
        """
        The seat to act retiring passes the turn.
        """
        g = game(3)
        self.assertEqual(g.retire(0), [spe.NewTurn(1)])
        self.assertEqual(g.legalActions(0), [])

    def test_pendingDiscard(self):
        """
        A pending discard is settled with the first legal one.
        """
        g = game(3)
        tokens(g.players[0], diamond=3, sapphire=3, emerald=3)
        g.apply(0, self.take)
        first = g.legalActions(0)[0]
        self.assertEqual(g.retire(0), [spe.OperationDone(0, first),
                                       spe.NewTurn(1)])
        self.assertEqual(g.players[0].tokenCount(), 10)

    def test_pendingNoble(self):
        """
        A pending noble choice is settled with the first noble offered.
        """
        g = game(3)
        g.phase = sp.PHASE_NOBLE
        g.pendingNobles = tuple(g.nobles[:2])
        first = g.nobles[0]
        self.assertEqual(g.retire(0), [spe.NobleAwarded(0, first, True),
                                       spe.NewTurn(1)])

    def test_lastOneWins(self):
        """
        With one seat left the game ends and that seat wins, even behind
        on points.
        """
        g = game(2)
        g.players[0].points = 14
        self.assertEqual(g.retire(0), [spe.GameOver(1)])
        self.assertTrue(g.isOver)
        self.assertIsNone(g.currentSeat)
        self.assertEqual(g.retire(1), [])

    def test_lastOneWinsAfterDiscard(self):
        """
        In a two-seat game the seat that retires with a discard pending
        has it settled (and announced) before the game ends, as in a
        larger game; no NewTurn comes between them.
        """
        g = game(2)
        tokens(g.players[0], diamond=3, sapphire=3, emerald=3)
        g.apply(0, self.take)
        first = g.legalActions(0)[0]
        total = g.tokenTotal()
        self.assertEqual(g.retire(0), [spe.OperationDone(0, first),
                                       spe.GameOver(1)])
        self.assertEqual(g.players[0].tokenCount(), 10)
        self.assertEqual(g.tokenTotal(), total)
        self.assertEqual(g.winner, 1)

    def test_lastOneWinsAfterNoble(self):
        """
        The same for a pending noble choice.
        """
        g = game(2)
        g.phase = sp.PHASE_NOBLE
        g.pendingNobles = tuple(g.nobles[:2])
        first = g.nobles[0]
        self.assertEqual(g.retire(0), [spe.NobleAwarded(0, first, True),
                                       spe.GameOver(1)])

    def test_retiredNeverWins(self):
        """
        At a normal end the winner is chosen among the seats still
        playing.
        """
        g = game(3)
        g.players[2].points = 20
        g.players[1].points = 15
        g.retire(2)
        g.apply(0, self.take)
        self.assertEqual(g.apply(1, self.take)[-1], spe.GameOver(1))


def candidateActions(g, seat):
    """
    A superset of the legal actions, built without the rules: every
    get_gems of 1 to 3 kinds (gold included) x 1 or 2, every card and
    deck number, every payment of up to each card's price (and up to 5
    gold) for the cards on the board or reserved by anyone, every discard
    of up to 4 tokens, every noble.
    """
    from itertools import combinations, product
    out = []
    for size in (1, 2, 3):
        for kinds in combinations(sp.TOKENS, size):
            for counts in product((1, 2), repeat=size):
                out.append(Action("get_gems", 0,
                                  tuple(zip(kinds, counts))))
    for card in range(0, 101):
        out.append(Action("fold_card", card))
    for card in range(10000, 10005):
        out.append(Action("fold_card_unknown", card))
    cards = [c for row in g.board for c in row if c]
    cards += [c for p in g.players for c in p.reserved]
    for card in cards:
        held = g.players[seat].tokens
        cost = sp.CARDS[card].cost
        # paying more than held or than the price is refused anyway;
        # one more than held keeps that check covered
        ranges = [range(min(c, h + 1) + 1) for c, h in zip(cost, held)]
        ranges.append(range(min(5, held[sp.GOLD] + 1) + 1))
        for paid in product(*ranges):
            out.append(Action("buy_card", card, tuple(
                (t, n) for t, n in zip(sp.TOKENS, paid) if n)))
    for paid in product(range(4), repeat=6):
        if sum(paid) <= 4:
            out.append(Action("discard_gems", 0, tuple(
                (t, n) for t, n in zip(sp.TOKENS, paid) if n)))
    for noble in range(91, 101):
        out.append(Action("get_noble", noble))
    return out


class CompletenessTests(SynchronousTestCase):
    """
    L{sp.SplendorGame.legalActions} lists exactly the actions that
    C{apply} accepts.
    """

    def test_exactlyTheAcceptedActions(self):
        """
        At sampled points of random games (discards and noble choices
        included), the legal actions are exactly the candidates that
        apply on a copy.
        """
        checked = set()
        for seats, seed in ((2, 11), (3, 12), (4, 13)):
            for i, g in enumerate(playRandom(seats, seed)):
                if g.isOver:
                    continue
                interesting = g.phase != sp.PHASE_ACT
                if not interesting and i % 25:
                    continue
                seat = g.currentSeat
                accepted = set()
                before = snapshot(g)
                for action in candidateActions(g, seat):
                    trial = g.copy()
                    try:
                        trial.apply(seat, action)
                    except sp.IllegalAction:
                        # a refused action leaves the state as it was
                        self.assertEqual(snapshot(trial), before)
                        continue
                    accepted.add(action.canonical())
                legal = g.legalActions(seat)
                self.assertEqual(len(set(legal)), len(legal))
                self.assertEqual(set(legal), accepted)
                checked.add(g.phase)
        self.assertTrue({sp.PHASE_ACT, sp.PHASE_DISCARD} <= checked)

    def assertExact(self, g):
        seat = g.currentSeat
        accepted = set()
        for action in candidateActions(g, seat):
            try:
                g.copy().apply(seat, action)
            except sp.IllegalAction:
                continue
            accepted.add(action.canonical())
        self.assertEqual(set(g.legalActions(seat)), accepted)

    def test_nobleChoiceAndGold(self):
        """
        The same holds during a noble choice, and with gold in hand and
        reserved cards.
        """
        g = game(3)
        g.players[0].reserved = [g.decks[0].pop(), g.decks[1].pop()]
        tokens(g.players[0], diamond=2, ruby=3, emerald=1, golden=3)
        g.players[0].bonuses = [1, 2, 0, 1, 0]
        self.assertExact(g)
        g.phase = sp.PHASE_NOBLE
        g.pendingNobles = tuple(g.nobles[1:3])
        self.assertExact(g)
