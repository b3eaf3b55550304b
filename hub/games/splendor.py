"""
Splendor (璀璨宝石) rules: the official base game as
C{docs/protocols/splendor.md} lays it out.  Pure: no Twisted, no
I/O, no wire format; randomness comes from an injected L{random.Random}.

Seats are numbered 0..n-1 in turn order (seat 0 plays first); which
player sits where is the caller's business.  An action is an L{Action}
(C{get_gems}, C{buy_card}, C{fold_card}, C{fold_card_unknown},
C{discard_gems}, C{get_noble}), whose forms are in docs/architecture.md
(C{hub/games/}).  L{SplendorGame.legalActions} lists C{gems} in the
order the Unity client writes them (alphabetical, golden last), positive
counts only; L{SplendorGame.apply} returns the events the move caused
(L{hub.games.splendor_moves}) in the order the protocol must announce
them.
"""

from __future__ import annotations

import json
import os
import random
from itertools import combinations
from typing import (
    Any, Container, Dict, Iterable, List, Mapping, NamedTuple, Optional,
    Tuple)

from zope.interface import implementer

# The moves' names stay the rules' own (re-exported for their users).
from hub.games.splendor_moves import CLIENT_ORDER as CLIENT_ORDER
from hub.games.splendor_moves import GEMS as GEMS
from hub.games.splendor_moves import GOLDEN as GOLDEN
from hub.games.splendor_moves import Action as Action
from hub.games.splendor_moves import Gems as Gems
from hub.games.splendor_moves import (
    DiscardRequired, GameOver, NewCard, NewTurn, NobleAwarded, NobleOffered,
    OperationDone, RulesEvent, TurnSkipped)
from hub.games.state import copyState, copyValue
from hub.ihub import IGameRules


TOKENS = GEMS + (GOLDEN,)
TOKEN_INDEX = {name: i for i, name in enumerate(TOKENS)}
GOLD = TOKEN_INDEX[GOLDEN]
CLIENT_GEMS = tuple(sorted(GEMS))
_CLIENT_GEM_INDEX = tuple(GEMS.index(g) for g in CLIENT_GEMS)
_GEM_RANGE = range(len(GEMS))

GET_GEMS = "get_gems"
BUY_CARD = "buy_card"
FOLD_CARD = "fold_card"
FOLD_CARD_UNKNOWN = "fold_card_unknown"
DISCARD_GEMS = "discard_gems"
GET_NOBLE = "get_noble"

PILE_SIZE = {2: 4, 3: 5, 4: 7}
GOLD_PILE = 5
TOKEN_LIMIT = 10
RESERVE_LIMIT = 3
WINNING_POINTS = 15
NOBLE_POINTS = 3
FACE_UP = 4
UNKNOWN_CARD_BASE = 10000

PHASE_ACT = "act"
PHASE_DISCARD = "discard"
PHASE_NOBLE = "noble"
PHASE_OVER = "over"

class Card(NamedTuple):
    """
    A development card or a noble.  C{cost} holds five counts in L{GEMS}
    order (the price of a card, the bonuses a noble requires); C{bonus}
    is the index of the card's colour in L{GEMS} (-1 for a noble).
    """
    number: int
    level: int
    points: int
    bonus: int
    cost: Tuple[int, ...]


def loadCards(
        path: Optional[str] = None,
) -> Tuple[Dict[int, Card], Dict[int, Card]]:
    """
    Read C{splendor_cards.json} (the reference C{card_configuration.json}
    format).

    @return: C{(cards, nobles)}, two L{dict}s by number.
    """
    if path is None:
        path = os.path.join(os.path.dirname(__file__),
                            "splendor_cards.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    cards: Dict[int, Card] = {}
    nobles: Dict[int, Card] = {}
    for entry in data:
        cost = tuple(entry["chips"][g] for g in GEMS)
        if entry["card_type"] == "noble":
            nobles[entry["number"]] = Card(entry["number"], 0,
                                           entry["points"], -1, cost)
        else:
            cards[entry["number"]] = Card(
                entry["number"], entry["level"], entry["points"],
                GEMS.index(entry["gem_type"]), cost)
    return cards, nobles


CARDS, NOBLES = loadCards()


class IllegalAction(ValueError):
    """
    The action is not legal now; the state is unchanged.
    """


class PlayerState:
    """
    What one seat holds.

    @ivar tokens: six counts in L{TOKENS} order (gold last).
    @ivar bonuses: five counts in L{GEMS} order, from purchased cards.
    @ivar points: card points plus noble points.
    @ivar reserved: reserved card numbers, oldest first.
    @ivar purchased: purchased card numbers, oldest first.
    @ivar nobles: noble numbers received.
    """

    __slots__ = ("tokens", "bonuses", "points", "reserved", "purchased",
                 "nobles")

    def __init__(self) -> None:
        self.tokens = [0] * len(TOKENS)
        self.bonuses = [0] * len(GEMS)
        self.points = 0
        self.reserved: List[int] = []
        self.purchased: List[int] = []
        self.nobles: List[int] = []

    def copy(self) -> PlayerState:
        """
        An independent copy.  The attributes are the fixed C{__slots__};
        C{tests/splendor/test_game.py} checks that each one is copied.
        """
        return copyState(self)

    def tokenCount(self) -> int:
        """
        Tokens held, gold included.
        """
        return sum(self.tokens)

    def tokenDict(self) -> Dict[str, int]:
        """
        Tokens held as C{{colour: count}} (every colour, gold included).
        """
        return dict(zip(TOKENS, self.tokens))


def _pairs(gems: Iterable[Tuple[str, int]],
           allowed: Container[str]) -> Tuple[List[int], Gems]:
    """
    Validate C{(colour, count)} pairs: known colours from C{allowed},
    integer counts >= 0, no colour twice.

    @return: six counts in L{TOKENS} order, and the pairs with a
        positive count as a tuple in the order given.
    """
    counts = [0] * len(TOKENS)
    seen: set[str] = set()
    try:
        items = list(gems)
    except TypeError:
        raise IllegalAction("gems is not a sequence")
    for item in items:
        try:
            colour, count = item
        except (TypeError, ValueError):
            raise IllegalAction("bad gem entry %r" % (item,))
        if not isinstance(colour, str) or colour not in allowed:
            raise IllegalAction("colour %r not allowed" % (colour,))
        if (not isinstance(count, int) or isinstance(count, bool)
                or count < 0):
            raise IllegalAction("bad count %r" % (count,))
        if colour in seen:
            raise IllegalAction("colour %r given twice" % (colour,))
        seen.add(colour)
        counts[TOKEN_INDEX[colour]] = count
    return counts, tuple((c, n) for c, n in items if n)


def _isInt(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@implementer(IGameRules)
class SplendorGame:
    """
    One Splendor game for 2 to 4 seats.

    @ivar seatCount: number of seats.
    @ivar currentSeat: the seat that must act now (including a pending
        discard or noble choice), or L{None} once over.
    @ivar phase: L{PHASE_ACT}, L{PHASE_DISCARD}, L{PHASE_NOBLE} or
        L{PHASE_OVER}.
    @ivar bank: six counts in L{TOKENS} order.
    @ivar board: three lists (levels 1, 2, 3) of four card numbers, 0 for
        an empty slot.
    @ivar decks: three lists of card numbers; the top card is the last.
    @ivar nobles: the noble numbers still on the table, in deal order.
    @ivar players: one L{PlayerState} per seat.
    @ivar pendingDiscard: tokens to discard while in L{PHASE_DISCARD}.
    @ivar pendingNobles: the choice offered while in L{PHASE_NOBLE}.
    @ivar winner: the winning seat once over, else L{None}.
    @ivar stalled: True if the game ended because no seat could act
        (every pile empty, no reserve possible, nothing affordable); the
        winner is then ranked the same way.
    @ivar retired: per seat, True once its player left (L{retire}).
    @ivar turns: completed turns (passes included).
    """

    def __init__(self, seatCount: int,
                 rng: Optional[random.Random] = None) -> None:
        """
        Shuffle and deal.

        @param rng: a L{random.Random}; a fresh unseeded one by default.
        """
        if seatCount not in PILE_SIZE:
            raise ValueError("Splendor needs 2 to 4 players")
        if rng is None:
            rng = random.Random()
        self.rng: Optional[random.Random] = rng
        decks = []
        board = []
        for level in (1, 2, 3):
            deck = sorted(n for n, c in CARDS.items() if c.level == level)
            rng.shuffle(deck)
            board.append([deck.pop() for _ in range(FACE_UP)])
            decks.append(deck)
        nobles = sorted(NOBLES)
        rng.shuffle(nobles)
        self._setUp(seatCount, nobles[:seatCount + 1], board, decks)

    def _setUp(self, seatCount: int, nobles: List[int],
               board: List[List[int]], decks: List[List[int]]) -> None:
        """
        The state before the first move, for a deal.
        """
        self.seatCount = seatCount
        self.bank = [PILE_SIZE[seatCount]] * len(GEMS) + [GOLD_PILE]
        self.decks = decks
        self.board = board
        self.nobles = nobles
        self.players = [PlayerState() for _ in range(seatCount)]
        self.currentSeat: Optional[int] = 0
        self.phase = PHASE_ACT
        self.pendingDiscard = 0
        self.pendingNobles: Tuple[int, ...] = ()
        self.winner: Optional[int] = None
        self.stalled = False
        self.retired = [False] * seatCount
        self.turns = 0

    def deal(self) -> Dict[str, Any]:
        """
        What the shuffle dealt, as JSON-able data: C{{"seats": n,
        "nobles": [...], "board": [[...] x 3], "decks": [[...] x 3]}}
        (decks bottom first, the top card last).  Taken before the first
        move, it is enough for L{fromDeal} to rebuild the game exactly.
        """
        return {"seats": self.seatCount,
                "nobles": list(self.nobles),
                "board": [list(row) for row in self.board],
                "decks": [list(deck) for deck in self.decks]}

    @classmethod
    def fromDeal(cls, deal: Mapping[str, Any]) -> SplendorGame:
        """
        The game, before its first move, that L{deal} described.

        @raise ValueError: if C{deal} does not have the shape of a deal.
        """
        try:
            seatCount = deal["seats"]
            nobles = [int(n) for n in deal["nobles"]]
            board = [[int(c) for c in row] for row in deal["board"]]
            decks = [[int(c) for c in deck] for deck in deal["decks"]]
        except (KeyError, TypeError) as e:
            raise ValueError("not a Splendor deal: %s" % (e,))
        if seatCount not in PILE_SIZE:
            raise ValueError("Splendor needs 2 to 4 players")
        if len(board) != 3 or len(decks) != 3 or any(
                len(row) != FACE_UP for row in board):
            raise ValueError("a deal has three rows of four cards")
        game = cls.__new__(cls)
        game.rng = None
        game._setUp(seatCount, nobles, board, decks)
        return game

    @property
    def isOver(self) -> bool:
        """
        True once the game has ended.
        """
        return self.phase == PHASE_OVER

    def copy(self) -> SplendorGame:
        """
        An independent copy: every attribute is carried over (a new one
        cannot be missed; C{tests/splendor/test_game.py} checks that
        every list is copied too).  The decks are copied in their order,
        so a copy draws the same hidden cards as the original would.  The
        C{rng} is shared: only the deal draws from it.
        """
        return copyState(self)

    def snapshot(self) -> Dict[str, Any]:
        """
        The whole state as JSON-able data (the position a bot worker is
        sent, L{hub.games.codec}): L{deal}'s fields as they are now, the
        bank, each seat's holdings, the phase and what it waits for.
        L{fromSnapshot} rebuilds it (without C{rng}: only the deal
        drew from it).
        """
        snapshot = self.deal()
        snapshot.update({
            "bank": list(self.bank),
            "players": [{name: copyValue(getattr(player, name))
                         for name in PlayerState.__slots__}
                        for player in self.players],
            "currentSeat": self.currentSeat, "phase": self.phase,
            "pendingDiscard": self.pendingDiscard,
            "pendingNobles": list(self.pendingNobles),
            "winner": self.winner, "stalled": self.stalled,
            "retired": list(self.retired), "turns": self.turns})
        return snapshot

    @classmethod
    def fromSnapshot(cls, data: Mapping[str, Any]) -> SplendorGame:
        """
        The game of a L{snapshot}.

        @raise ValueError: C{data} is not the snapshot of a game.
        """
        game = cls.fromDeal(data)
        try:
            game.bank = [int(n) for n in data["bank"]]
            players = []
            for held in data["players"]:
                player = PlayerState()
                for name in PlayerState.__slots__:
                    value = held[name]
                    setattr(player, name, [int(n) for n in value]
                            if isinstance(value, list) else int(value))
                players.append(player)
            if len(players) != game.seatCount:
                raise ValueError("one player per seat")
            game.players = players
            current = data["currentSeat"]
            if current is not None and current not in range(
                    game.seatCount):
                raise ValueError("no seat %r" % (current,))
            game.currentSeat = current
            if data["phase"] not in (PHASE_ACT, PHASE_DISCARD, PHASE_NOBLE,
                                     PHASE_OVER):
                raise ValueError("no phase %r" % (data["phase"],))
            game.phase = data["phase"]
            game.pendingDiscard = int(data["pendingDiscard"])
            game.pendingNobles = tuple(int(n) for n in data["pendingNobles"])
            game.winner = data["winner"]
            game.stalled = bool(data["stalled"])
            game.retired = [bool(r) for r in data["retired"]]
            game.turns = int(data["turns"])
        except (KeyError, TypeError) as e:
            raise ValueError("not a Splendor snapshot: %s" % (e,))
        return game

    # Queries.

    def points(self, seat: int) -> int:
        """
        The points of C{seat}.
        """
        return self.players[seat].points

    def faceUp(self, level: int) -> List[int]:
        """
        The four slots of C{level} (1..3), 0 for an empty slot.
        """
        return list(self.board[level - 1])

    def tokenTotal(self) -> Tuple[int, int]:
        """
        Every token in the game, bank and hands: C{(gems, gold)}.
        """
        held = [sum(p.tokens[i] for p in self.players) + self.bank[i]
                for i in range(len(TOKENS))]
        return sum(held[:GOLD]), held[GOLD]

    def need(self, seat: int, card: int) -> List[int]:
        """
        What C{seat} still owes for C{card} after bonuses, in L{GEMS}
        order.
        """
        bonuses = self.players[seat].bonuses
        cost = CARDS[card].cost
        return [max(0, cost[i] - bonuses[i]) for i in range(len(GEMS))]

    def payment(self, seat: int, card: int) -> Optional[Gems]:
        """
        The payment using the least gold, or L{None} if C{seat} cannot
        afford C{card}.
        """
        tokens = self.players[seat].tokens
        gold = 0
        paid = []
        for i, owed in enumerate(self.need(seat, card)):
            use = min(owed, tokens[i])
            gold += owed - use
            paid.append(use)
        if gold > tokens[GOLD]:
            return None
        paid.append(gold)
        return tuple((g, paid[TOKEN_INDEX[g]]) for g in CLIENT_ORDER
                     if paid[TOKEN_INDEX[g]])

    def ranking(self) -> List[int]:
        """
        Seats best first: most points, then fewest purchased cards, then
        latest in turn order.
        """
        return sorted(range(self.seatCount),
                      key=lambda s: (-self.players[s].points,
                                     len(self.players[s].purchased), -s))

    # Legal actions.

    def legalActions(self, seat: int) -> List[Action]:
        """
        Every legal action of C{seat} now; empty unless C{seat} is to act.

        @rtype: L{list} of L{Action}
        """
        if self.phase == PHASE_OVER or seat != self.currentSeat:
            return []
        if self.phase == PHASE_DISCARD:
            return self._discardActions(seat)
        if self.phase == PHASE_NOBLE:
            return [Action(GET_NOBLE, n) for n in self.pendingNobles]
        return (self._takeActions(seat) + self._reserveActions(seat)
                + self._buyActions(seat))

    def _takeActions(self, seat: int) -> List[Action]:
        bank = self.bank
        available = [g for g in CLIENT_GEMS if bank[TOKEN_INDEX[g]] > 0]
        held = self.players[seat].tokenCount()
        actions = [Action(GET_GEMS, 0, tuple((g, 1) for g in trio))
                   for trio in combinations(available, 3)]
        actions.extend(Action(GET_GEMS, 0, ((g, 2),))
                       for g in CLIENT_GEMS if bank[TOKEN_INDEX[g]] >= 4)
        few = len(available) < 3
        if few or held + 2 >= TOKEN_LIMIT:
            actions.extend(Action(GET_GEMS, 0, ((a, 1), (b, 1)))
                           for a, b in combinations(available, 2))
        if few or held + 1 >= TOKEN_LIMIT:
            actions.extend(Action(GET_GEMS, 0, ((g, 1),))
                           for g in available)
        return actions

    def _reserveActions(self, seat: int) -> List[Action]:
        if len(self.players[seat].reserved) >= RESERVE_LIMIT:
            return []
        actions = [Action(FOLD_CARD, card)
                   for row in self.board for card in row if card]
        actions.extend(Action(FOLD_CARD_UNKNOWN, UNKNOWN_CARD_BASE + level)
                       for level in (1, 2, 3) if self.decks[level - 1])
        return actions

    def _buyActions(self, seat: int) -> List[Action]:
        player = self.players[seat]
        tokens = player.tokens
        bonuses = player.bonuses
        gold = tokens[GOLD]
        actions: List[Action] = []
        candidates = [c for row in self.board for c in row if c]
        candidates.extend(player.reserved)
        for card in candidates:
            need = [c - b if c > b else 0
                    for c, b in zip(CARDS[card].cost, bonuses)]
            short = 0
            for i in _GEM_RANGE:
                if need[i] > tokens[i]:
                    short += need[i] - tokens[i]
            if short > gold:
                continue
            if gold == 0 or not any(need):
                actions.append(Action(BUY_CARD, card, tuple(
                    (GEMS[i], need[i]) for i in _CLIENT_GEM_INDEX
                    if need[i])))
                continue
            for payment in self._payments(tokens, need):
                actions.append(Action(BUY_CARD, card, payment))
        return actions

    def _payments(self, tokens: List[int], need: List[int]) -> List[Gems]:
        """
        Every exact payment of C{need} (five counts) from C{tokens}.
        """
        order = _CLIENT_GEM_INDEX
        results: List[Gems] = []

        def walk(k: int, goldLeft: int, paid: List[Tuple[int, int]]) -> None:
            if k == len(order):
                gold = tokens[GOLD] - goldLeft
                pairs = [(GEMS[i], n) for i, n in paid if n]
                if gold:
                    pairs.append((GOLDEN, gold))
                results.append(tuple(pairs))
                return
            i = order[k]
            owed = need[i]
            high = min(owed, tokens[i])
            for use in range(high, -1, -1):
                gold = owed - use
                if gold > goldLeft:
                    break
                walk(k + 1, goldLeft - gold, paid + [(i, use)])

        walk(0, tokens[GOLD], [])
        return results

    def _discardActions(self, seat: int) -> List[Action]:
        tokens = self.players[seat].tokens
        order = [TOKEN_INDEX[g] for g in CLIENT_ORDER]
        results: List[Action] = []

        def walk(k: int, left: int, chosen: List[Tuple[str, int]]) -> None:
            if left == 0:
                results.append(Action(DISCARD_GEMS, 0, tuple(chosen)))
                return
            if k == len(order):
                return
            i = order[k]
            for n in range(min(left, tokens[i]), -1, -1):
                walk(k + 1, left - n,
                     chosen + [(TOKENS[i], n)] if n else chosen)

        walk(0, self.pendingDiscard, [])
        return results

    def _canAct(self, seat: int) -> bool:
        if any(self.bank[i] for i in range(len(GEMS))):
            return True
        player = self.players[seat]
        if len(player.reserved) < RESERVE_LIMIT and (
                any(self.decks) or any(any(row) for row in self.board)):
            return True
        candidates = [c for row in self.board for c in row if c]
        candidates.extend(player.reserved)
        return any(self.payment(seat, c) is not None for c in candidates)

    # Playing.

    def apply(self, seat: int, action: Action) -> List[RulesEvent]:
        """
        Play C{action} for C{seat}.

        @return: the L{list} of events, in announcement order.
        @raise IllegalAction: when illegal; nothing changes then.
        """
        if self.phase == PHASE_OVER:
            raise IllegalAction("the game is over")
        if seat != self.currentSeat:
            raise IllegalAction("not the turn of seat %r" % (seat,))
        try:
            kind, card, gems = action
        except (TypeError, ValueError):
            raise IllegalAction("malformed action %r" % (action,))
        if self.phase == PHASE_DISCARD:
            if kind != DISCARD_GEMS:
                raise IllegalAction("a discard is pending")
            return self._discard(seat, gems)
        if self.phase == PHASE_NOBLE:
            if kind != GET_NOBLE:
                raise IllegalAction("a noble choice is pending")
            return self._chooseNoble(seat, card)
        if kind == GET_GEMS:
            return self._takeGems(seat, gems)
        if kind == BUY_CARD:
            return self._buy(seat, card, gems)
        if kind == FOLD_CARD:
            return self._reserve(seat, card, gems)
        if kind == FOLD_CARD_UNKNOWN:
            return self._reserveHidden(seat, card, gems)
        raise IllegalAction("%r is not allowed now" % (kind,))

    def _takeGems(self, seat: int, gems: Gems) -> List[RulesEvent]:
        counts, gems = _pairs(gems, GEMS)
        taken = [i for i in range(len(GEMS)) if counts[i]]
        total = sum(counts)
        bank = self.bank
        if not taken:
            raise IllegalAction("no gems taken")
        if any(counts[i] > bank[i] for i in taken):
            raise IllegalAction("not enough gems in the bank")
        player = self.players[seat]
        if len(taken) == 1 and total == 2:
            if bank[taken[0]] < 4:
                raise IllegalAction("two of a colour need a pile of 4")
        elif any(counts[i] != 1 for i in taken):
            raise IllegalAction("take 3 different or 2 of one colour")
        elif total < 3:
            available = sum(1 for i in range(len(GEMS)) if bank[i])
            if available >= 3 and player.tokenCount() + total < TOKEN_LIMIT:
                raise IllegalAction("fewer than 3 gems is not allowed now")
        elif total > 3:
            raise IllegalAction("at most 3 gems")
        for i in taken:
            bank[i] -= counts[i]
            player.tokens[i] += counts[i]
        events: List[RulesEvent] = [
            OperationDone(seat, Action(GET_GEMS, 0, gems))]
        return self._afterTokens(seat, events)

    def _reserve(self, seat: int, card: int,
                 gems: Gems) -> List[RulesEvent]:
        player = self.players[seat]
        if gems:
            raise IllegalAction("fold_card takes no gems")
        if len(player.reserved) >= RESERVE_LIMIT:
            raise IllegalAction("three cards are reserved already")
        found = self._findFaceUp(card)
        if found is None:
            raise IllegalAction("card %r is not face up" % (card,))
        golden = self._takeGold(player)
        player.reserved.append(card)
        events: List[RulesEvent] = [
            OperationDone(seat, Action(FOLD_CARD, card), golden)]
        events.extend(self._refill(seat, *found))
        return self._afterTokens(seat, events)

    def _reserveHidden(self, seat: int, card: int,
                       gems: Gems) -> List[RulesEvent]:
        player = self.players[seat]
        if gems:
            raise IllegalAction("fold_card_unknown takes no gems")
        if not _isInt(card) or card - UNKNOWN_CARD_BASE not in (1, 2, 3):
            raise IllegalAction("%r is not a deck" % (card,))
        if len(player.reserved) >= RESERVE_LIMIT:
            raise IllegalAction("three cards are reserved already")
        deck = self.decks[card - UNKNOWN_CARD_BASE - 1]
        if not deck:
            raise IllegalAction("that deck is empty")
        drawn = deck.pop()
        golden = self._takeGold(player)
        player.reserved.append(drawn)
        events: List[RulesEvent] = [
            OperationDone(seat, Action(FOLD_CARD_UNKNOWN, card), golden,
                          drawn)]
        return self._afterTokens(seat, events)

    def _buy(self, seat: int, card: int, gems: Gems) -> List[RulesEvent]:
        player = self.players[seat]
        paid, gems = _pairs(gems, TOKENS)
        if _isInt(card) and card in player.reserved:
            found = None
        else:
            found = self._findFaceUp(card)
            if found is None:
                raise IllegalAction("card %r cannot be bought" % (card,))
        need = self.need(seat, card)
        for i, owed in enumerate(need):
            if paid[i] > owed:
                raise IllegalAction("overpaid %s" % (GEMS[i],))
        if paid[GOLD] != sum(need) - sum(paid[:GOLD]):
            raise IllegalAction("wrong payment")
        self._returnTokens(player, paid, "paying tokens not held")
        info = CARDS[card]
        player.bonuses[info.bonus] += 1
        player.points += info.points
        player.purchased.append(card)
        events: List[RulesEvent] = [
            OperationDone(seat, Action(BUY_CARD, card, gems))]
        if found is None:
            player.reserved.remove(card)
        else:
            events.extend(self._refill(seat, *found))
        return self._afterTurnAction(seat, events)

    def _returnTokens(self, player: PlayerState, counts: List[int],
                      refusal: str) -> None:
        """
        Move C{counts} (one count per token kind) from C{player} to the
        bank.

        @raise IllegalAction: with the reason C{refusal}, and nothing
            moved, if the player holds fewer of some kind.
        """
        tokens = player.tokens
        if any(counts[i] > tokens[i] for i in range(len(TOKENS))):
            raise IllegalAction(refusal)
        for i, n in enumerate(counts):
            tokens[i] -= n
            self.bank[i] += n

    def _discard(self, seat: int, gems: Gems) -> List[RulesEvent]:
        player = self.players[seat]
        counts, gems = _pairs(gems, TOKENS)
        if sum(counts) != self.pendingDiscard:
            raise IllegalAction("must discard down to exactly 10")
        self._returnTokens(player, counts, "discarding tokens not held")
        self.pendingDiscard = 0
        self.phase = PHASE_ACT
        events: List[RulesEvent] = [
            OperationDone(seat, Action(DISCARD_GEMS, 0, gems))]
        return self._afterTurnAction(seat, events)

    def _chooseNoble(self, seat: int, noble: int) -> List[RulesEvent]:
        if not _isInt(noble) or noble not in self.pendingNobles:
            raise IllegalAction("noble %r is not offered" % (noble,))
        self.pendingNobles = ()
        self.phase = PHASE_ACT
        events: List[RulesEvent] = [self._award(seat, noble, True)]
        return self._endTurn(seat, events)

    # Turn flow.

    def _findFaceUp(self, card: int) -> Optional[Tuple[int, int]]:
        """
        The C{(level, slot)} of C{card} if it lies face up, else None.
        """
        if not _isInt(card) or card not in CARDS:
            return None
        level = CARDS[card].level
        row = self.board[level - 1]
        if card in row:
            return level, row.index(card)
        return None

    def _takeGold(self, player: PlayerState) -> int:
        if self.bank[GOLD]:
            self.bank[GOLD] -= 1
            player.tokens[GOLD] += 1
            return 1
        return 0

    def _refill(self, seat: int, level: int, slot: int) -> List[NewCard]:
        row = self.board[level - 1]
        deck = self.decks[level - 1]
        if deck:
            row[slot] = deck.pop()
            return [NewCard(seat, level, row[slot])]
        row[slot] = 0
        return []

    def _afterTokens(self, seat: int,
                     events: List[RulesEvent]) -> List[RulesEvent]:
        held = self.players[seat].tokenCount()
        if held > TOKEN_LIMIT:
            self.phase = PHASE_DISCARD
            self.pendingDiscard = held - TOKEN_LIMIT
            events.append(DiscardRequired(seat, self.pendingDiscard))
            return events
        return self._afterTurnAction(seat, events)

    def _afterTurnAction(self, seat: int,
                         events: List[RulesEvent]) -> List[RulesEvent]:
        bonuses = self.players[seat].bonuses
        earned = tuple(
            n for n in self.nobles
            if all(b >= r for b, r in zip(bonuses, NOBLES[n].cost)))
        if len(earned) == 1:
            events.append(self._award(seat, earned[0], False))
        elif earned:
            self.phase = PHASE_NOBLE
            self.pendingNobles = earned
            events.append(NobleOffered(seat, earned))
            return events
        return self._endTurn(seat, events)

    def _award(self, seat: int, noble: int, chosen: bool) -> NobleAwarded:
        player = self.players[seat]
        self.nobles.remove(noble)
        player.nobles.append(noble)
        player.points += NOBLES[noble].points
        return NobleAwarded(seat, noble, chosen)

    def _endTurn(self, seat: int,
                 events: List[RulesEvent]) -> List[RulesEvent]:
        passes = 0
        retired = self.retired
        if retired.count(False) < 2:
            return self._finish(events)
        while True:
            self.turns += 1
            if seat == self.seatCount - 1 and max(
                    p.points for s, p in enumerate(self.players)
                    if not retired[s]) >= WINNING_POINTS:
                return self._finish(events)
            seat = (seat + 1) % self.seatCount
            self.currentSeat = seat
            self.phase = PHASE_ACT
            if retired[seat]:
                continue
            if self._canAct(seat):
                events.append(NewTurn(seat))
                return events
            events.append(TurnSkipped(seat))
            passes += 1
            if passes >= retired.count(False):
                self.stalled = True
                return self._finish(events)

    def _finish(self, events: List[RulesEvent]) -> List[RulesEvent]:
        self.phase = PHASE_OVER
        self.currentSeat = None
        self.pendingDiscard = 0
        self.pendingNobles = ()
        self.winner = [s for s in self.ranking() if not self.retired[s]][0]
        events.append(GameOver(self.winner))
        return events

    # Players leaving.

    def retire(self, seat: int) -> List[RulesEvent]:
        """
        The player of C{seat} left: the seat plays no more.  If it was to
        act, a pending discard or noble choice is settled with its first
        legal action (announced like any move) and the turn passes.  With
        fewer than two seats left the game ends, after that settling; the
        winner is always chosen among the seats still playing.  The
        seat's tokens and cards stay where they are.

        @return: the events caused, in announcement order.
        """
        if self.phase == PHASE_OVER or self.retired[seat]:
            return []
        self.retired[seat] = True
        events: List[RulesEvent] = []
        while (self.currentSeat == seat
               and self.phase in (PHASE_DISCARD, PHASE_NOBLE)):
            events.extend(self.apply(seat, self.legalActions(seat)[0]))
        if self.phase == PHASE_OVER:
            return events
        if self.retired.count(False) < 2:
            return self._finish(events)
        if self.currentSeat == seat:
            events = self._endTurn(seat, events)
        return events
