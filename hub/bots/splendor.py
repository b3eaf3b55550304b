"""
Splendor bots.

A card is worth its points plus what its bonus brings (cheaper cards on
the table, nobles in view).  Level 2 buys, blocks or takes gems toward
the most reachable card; level 3 plays every distinct action on a copy,
the other seats replying by level 2, and values the seat's standing
against the best other seat's; when its time is up
(L{hub.bots.base.Bot.expired}) it plays the best action valued so far,
or level 2's.  The hidden cards are never looked at: the copies get the
decks shuffled by the bot's own generator.  Every rule: docs/bots.md,
"The strategies".
"""

from typing import Dict, Iterable, List, Optional, Tuple

from hub.bots.base import Bot
from hub.games.splendor import (
    Action, PlayerState, SplendorGame,
    BUY_CARD, CARDS, DISCARD_GEMS, FOLD_CARD, FOLD_CARD_UNKNOWN, GEMS,
    GET_GEMS, GET_NOBLE, GOLD, GOLDEN, NOBLES, PHASE_ACT, PHASE_DISCARD,
    RESERVE_LIMIT, TOKEN_INDEX, TOKEN_LIMIT, TOKENS, WINNING_POINTS)

COLOURS = range(len(GEMS))


def shortfall(player: PlayerState, card: int) -> int:
    """
    The tokens C{player} still lacks for C{card}, after bonuses, tokens
    and gold (0: affordable now).
    """
    cost = CARDS[card].cost
    missing = 0
    for i in COLOURS:
        owe = cost[i] - player.bonuses[i] - player.tokens[i]
        if owe > 0:
            missing += owe
    return max(0, missing - player.tokens[GOLD])


def deficits(player: PlayerState, card: int) -> List[int]:
    """
    Per colour, the gems C{player} lacks for C{card} (gold not counted).
    """
    cost = CARDS[card].cost
    return [max(0, cost[i] - player.bonuses[i] - player.tokens[i])
            for i in COLOURS]


def visibleCards(state: SplendorGame, seat: int) -> List[int]:
    """
    The cards C{seat} could buy some day: face up, and its reserve.
    """
    cards = [c for row in state.board for c in row if c]
    return cards + list(state.players[seat].reserved)


class Appraisal:
    """
    What cards and colours are worth to one seat in one position.

    @ivar bonusWorth: per colour, what one more bonus of it is worth.
    """

    def __init__(self, state: SplendorGame, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.player = player = state.players[seat]
        cards = visibleCards(state, seat)
        self.cards = cards
        demand = [0.0] * len(GEMS)
        for card in cards:
            cost = CARDS[card].cost
            for i in COLOURS:
                if cost[i] > player.bonuses[i]:
                    demand[i] += 1
        n = max(1, len(cards))
        worth = [0.3 + 0.8 * d / n for d in demand]
        for noble in state.nobles:
            cost = NOBLES[noble].cost
            missing = sum(max(0, cost[i] - player.bonuses[i])
                          for i in COLOURS)
            for i in COLOURS:
                if cost[i] > player.bonuses[i]:
                    worth[i] += 1.5 / missing
        self.bonusWorth = worth
        lead = max(p.points for p in state.players)
        self.pointWorth = 1.0 + lead / 10.0

    def cardValue(self, card: int) -> float:
        """
        What owning C{card} is worth to the seat.
        """
        info = CARDS[card]
        value = info.points * self.pointWorth + self.bonusWorth[info.bonus]
        if self.player.points + info.points >= WINNING_POINTS:
            value += 10
        return value

    def targets(self) -> List[int]:
        """
        The cards to aim at, best first: value per missing token.
        """
        scored = []
        for card in self.cards:
            missing = shortfall(self.player, card)
            scored.append((self.cardValue(card) / (1.0 + missing),
                           -card, card))
        scored.sort(reverse=True)
        return [card for _, _, card in scored]

    def gemWeights(self) -> Tuple[List[float], List[int]]:
        """
        Per colour, how much one more token of it is worth now.
        """
        targets = self.targets()
        weights = [0.05] * len(GEMS)
        for rank, card in enumerate(targets[:4]):
            factor = (1.0, 0.45, 0.25, 0.15)[rank]
            for i, d in enumerate(deficits(self.player, card)):
                if d:
                    weights[i] += factor
        return weights, targets


def goldUsed(action: Action) -> int:
    """
    How much gold a payment uses.
    """
    return sum(n for g, n in action.gems if g == GOLDEN)


def cheapestPayments(actions: Iterable[Action]) -> Dict[int, Action]:
    """
    One buy action per card: the payment with the least gold.
    """
    best: Dict[int, Action] = {}
    for a in actions:
        if a.kind == BUY_CARD:
            kept = best.get(a.card)
            if kept is None or goldUsed(a) < goldUsed(kept):
                best[a.card] = a
    return best


class SplendorBot(Bot[SplendorGame, Action]):
    """
    A Splendor player for 2 to 4 seats: level 1 random, level 2 buy /
    block / gems toward the most reachable card, level 3 one turn of
    lookahead over every distinct action.

    @ivar horizon: level 3 plays on (by level 2) until the seat has had
        this many more turns before valuing the position.
    """

    horizon = 0
    #: Deals of the hidden cards each action is tried against.
    samples = 3
    #: Weights of L{worth}.
    weights = {"bonus": 0.45, "noble": 0.8, "gem": 0.12, "gold": 0.2,
               "reach": 0.5}

    def heuristic(self, state: SplendorGame, seat: int,
                  actions: List[Action]) -> Action:
        kind = actions[0].kind
        if kind == GET_NOBLE:
            return max(actions, key=lambda a: (NOBLES[a.card].points,
                                               -a.card))
        appraisal = Appraisal(state, seat)
        if kind == DISCARD_GEMS:
            return self._discard(appraisal, actions)
        buys = cheapestPayments(actions)
        if buys:
            card = max(buys, key=lambda c: (appraisal.cardValue(c), -c))
            return buys[card]
        block = self._block(state, seat, actions)
        if block is not None:
            return block
        gems = [a for a in actions if a.kind == GET_GEMS]
        if gems:
            worth, take = self._gems(state, seat, appraisal, gems)
            # A take that must give back as much as it brings is no move:
            # a reserved card (and its gold) is.
            if worth > 0 or not any(a.kind in (FOLD_CARD, FOLD_CARD_UNKNOWN)
                                    for a in actions):
                return take
        return self._reserve(appraisal, actions)

    def _discard(self, appraisal: Appraisal, actions: List[Action]) -> Action:
        weights, _ = appraisal.gemWeights()
        weights = weights + [10.0]

        def loss(action: Action) -> float:
            return sum(n * weights[TOKEN_INDEX[g]] for g, n in action.gems)
        return min(actions, key=lambda a: (loss(a), a.gems))

    def _gems(self, state: SplendorGame, seat: int, appraisal: Appraisal,
              actions: List[Action]) -> Tuple[float, Action]:
        """
        The take that brings the seat most toward its cards, counted after
        the tokens it then has to give back (L{_giveBack}): a take whose
        give-back returns what it took brings nothing.

        @return: C{(worth, action)}.
        """
        weights, targets = appraisal.gemWeights()
        player = appraisal.player
        main = deficits(player, targets[0]) if targets else [0] * len(GEMS)
        # The tokens held that the main target still needs.
        needed = [0] * len(GEMS)
        if targets:
            cost = CARDS[targets[0]].cost
            needed = [min(player.tokens[i], max(0, cost[i] -
                                                player.bonuses[i]))
                      for i in COLOURS]
        held = player.tokenCount()

        def value(action: Action) -> float:
            gained = [0] * len(TOKENS)
            for g, n in action.gems:
                gained[TOKEN_INDEX[g]] += n
            if held + sum(gained) > TOKEN_LIMIT:
                for g, n in self._giveBack(state, seat, action):
                    gained[TOKEN_INDEX[g]] -= n
            total = 0.0
            for i, n in enumerate(gained[:len(GEMS)]):
                if n > 0:
                    total += min(n, main[i]) + n * weights[i] * 0.5
                elif n < 0:
                    spare = player.tokens[i] - needed[i]
                    total -= max(0, -n - spare) - n * weights[i] * 0.5
            return total - 5.0 * max(0, -gained[GOLD])

        scored = [(value(a), a) for a in actions]
        best = max(worth for worth, _ in scored)
        ties = [a for worth, a in scored if worth >= best - 1e-9]
        return best, (ties[0] if len(ties) == 1 else
                      self.random.choice(ties))

    def _giveBack(self, state: SplendorGame, seat: int,
                  action: Action) -> List[Tuple[str, int]]:
        """
        The gems the seat would discard (L{_discard}) after C{action}, a
        take over L{TOKEN_LIMIT}.
        """
        after = state.copy()
        after.apply(seat, action)
        given: List[Tuple[str, int]] = []
        while after.phase == PHASE_DISCARD and after.currentSeat == seat:
            discard = self._discard(Appraisal(after, seat),
                                    after.legalActions(seat))
            after.apply(seat, discard)
            given.extend(discard.gems)
        return given

    def _block(self, state: SplendorGame, seat: int,
               actions: List[Action]) -> Optional[Action]:
        """
        Reserve the face-up card another seat can buy now, when it is
        worth a lot to them (points near the end, or the winning card).
        """
        if len(state.players[seat].reserved) >= RESERVE_LIMIT:
            return None
        reservable = {a.card: a for a in actions if a.kind == FOLD_CARD}
        best, bestValue = None, 0.0
        for other in range(state.seatCount):
            if other == seat or state.retired[other]:
                continue
            rival = state.players[other]
            for card in reservable:
                if shortfall(rival, card):
                    continue
                points = CARDS[card].points
                wins = rival.points + points >= WINNING_POINTS
                if wins or (points >= 3 and rival.points >= 9):
                    value = points + (20 if wins else 0)
                    if value > bestValue:
                        best, bestValue = reservable[card], value
        return best

    def _reserve(self, appraisal: Appraisal, actions: List[Action]) -> Action:
        folds = [a for a in actions if a.kind == FOLD_CARD]
        if folds:
            return max(folds, key=lambda a: (
                appraisal.cardValue(a.card), -a.card))
        return actions[0]

    # Level 3.

    def candidates(self, state: SplendorGame, seat: int,
                   actions: List[Action]) -> List[Action]:
        """
        The distinct actions worth a look: every gem take (but those given
        straight back), one payment per card, reserves; discards and noble
        choices as they are.
        """
        if actions[0].kind in (DISCARD_GEMS, GET_NOBLE):
            return actions
        out = [a for a in actions if a.kind == GET_GEMS
               and not self._givesAllBack(state, seat, a)]
        out.extend(a for a in actions if a.kind == FOLD_CARD)
        out.extend(cheapestPayments(actions).values())
        blind = [a for a in actions if a.kind == FOLD_CARD_UNKNOWN]
        return (out + blind[-1:]) or actions

    def _givesAllBack(self, state: SplendorGame, seat: int,
                      action: Action) -> bool:
        """
        Whether C{action}, a take, would be given back whole (L{_giveBack}):
        the same position, a turn later.
        """
        taken = sum(n for _, n in action.gems)
        if state.players[seat].tokenCount() + taken <= TOKEN_LIMIT:
            return False
        given: Dict[str, int] = {}
        for g, n in self._giveBack(state, seat, action):
            given[g] = given.get(g, 0) + n
        return given == dict(action.gems)

    def search(self, state: SplendorGame, seat: int,
               actions: List[Action]) -> Action:
        if actions[0].kind in (DISCARD_GEMS, GET_NOBLE):
            return self.heuristic(state, seat, actions)
        # Nobody may know the hidden cards: each sample shuffles them, and
        # every action is tried against the same deals.
        deals = []
        for _ in range(self.samples):
            deal = state.copy()
            for deck in deal.decks:
                self.random.shuffle(deck)
            deals.append(deal)
        scored = []
        for action in self.candidates(state, seat, actions):
            if self.expired():
                # Time is up: the best so far, at worst level 2's move.
                break
            total = 0.0
            for deal in deals:
                after = deal.copy()
                after.apply(seat, action)
                self._rollout(after, seat)
                total += self.evaluate(after, seat)
            scored.append((total / len(deals), action))
        if not scored:
            return self.heuristic(state, seat, actions)
        best = max(s for s, a in scored)
        ties = [a for s, a in scored if s >= best - 1e-9]
        return ties[0] if len(ties) == 1 else self.random.choice(ties)

    def _rollout(self, state: SplendorGame, seat: int) -> None:
        """
        Play on by level 2 until C{seat} has played C{self.horizon} more
        turns (the others playing theirs in between).
        """
        turns = 0
        while not state.isOver:
            current = state.currentSeat
            assert current is not None  # someone is to act until the end
            if current == seat and state.phase == PHASE_ACT:
                if turns == self.horizon:
                    return
                turns += 1
            actions = state.legalActions(current)
            state.apply(current, self.heuristic(state, current, actions))

    def worth(self, state: SplendorGame, seat: int) -> float:
        """
        A plain measure of a seat's standing: points, bonuses, nobles
        within reach, tokens, and the best card within reach.
        """
        w = self.weights
        player = state.players[seat]
        value = float(player.points)
        value += w["bonus"] * sum(min(b, 4) for b in player.bonuses)
        for noble in state.nobles:
            missing = sum(max(0, need - have) for need, have in
                          zip(NOBLES[noble].cost, player.bonuses))
            value += w["noble"] / (1 + missing)
        value += w["gem"] * sum(player.tokens[:GOLD])
        value += w["gold"] * player.tokens[GOLD]
        value += w["reach"] * max(
            ((CARDS[c].points + w["bonus"]) / (1.0 + shortfall(player, c))
             for c in visibleCards(state, seat)), default=0.0)
        return value

    def evaluate(self, state: SplendorGame, seat: int) -> float:
        """
        How good C{state} is for C{seat}: its standing minus the best
        other seat's (higher is better).
        """
        if state.isOver:
            return 1000.0 if state.winner == seat else -1000.0
        others = [self.worth(state, s) for s in range(state.seatCount)
                  if s != seat and not state.retired[s]]
        return self.worth(state, seat) - max(others, default=0.0)
