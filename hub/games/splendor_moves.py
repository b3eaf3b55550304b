"""
Splendor's moves (L{Action}) and what a move caused: the events
L{hub.games.splendor.SplendorGame}'s C{apply} and C{retire} return, in
the order the protocol announces them.  Pure, like the rules.
"""

from __future__ import annotations

from typing import NamedTuple, Tuple, Union

GEMS = ("diamond", "sapphire", "emerald", "ruby", "obsidian")
GOLDEN = "golden"
#: The order of the Unity client's gems (alphabetical, golden last).
CLIENT_ORDER = tuple(sorted(GEMS)) + (GOLDEN,)

#: C{(colour, count)} pairs: gems taken, paid or discarded.
Gems = Tuple[Tuple[str, int], ...]


class Action(NamedTuple):
    """
    One move; L{hub.games.splendor}'s docstring lists the kinds.
    """
    kind: str
    card: int = 0
    gems: Gems = ()

    def canonical(self) -> Action:
        """
        The same action with C{gems} in the order L{legalActions} uses
        (alphabetical, golden last), zero counts dropped.
        """
        rank = {g: i for i, g in enumerate(CLIENT_ORDER)}
        try:
            gems = tuple(sorted(((g, n) for g, n in self.gems if n),
                                key=lambda pair: rank.get(pair[0], -1)))
        except (TypeError, ValueError):
            return self
        return Action(self.kind, self.card, gems)


class OperationDone(NamedTuple):
    """
    C{seat} played C{action}.  C{golden} is the gold a reserve gave (0 or
    1); C{drawn} is the real card a C{fold_card_unknown} took (else 0).
    """
    seat: int
    action: Action
    golden: int = 0
    drawn: int = 0


class NewCard(NamedTuple):
    """
    C{card} was dealt from the deck of C{level} into the slot C{seat}'s
    action emptied.
    """
    seat: int
    level: int
    card: int


class DiscardRequired(NamedTuple):
    """
    C{seat} holds more than 10 tokens and must give back C{count}.
    """
    seat: int
    # The field shadows tuple.count(), which nobody calls on an event.
    count: int  # type: ignore[assignment]


class NobleOffered(NamedTuple):
    """
    C{seat} qualifies for several C{nobles} and must choose one.
    """
    seat: int
    nobles: Tuple[int, ...]


class NobleAwarded(NamedTuple):
    """
    C{seat} got C{noble}; C{chosen} if it came from a choice.
    """
    seat: int
    noble: int
    chosen: bool


class TurnSkipped(NamedTuple):
    """
    C{seat} had no legal action and passed.
    """
    seat: int


class NewTurn(NamedTuple):
    """
    It is C{seat}'s turn.
    """
    seat: int


class GameOver(NamedTuple):
    """
    The game is over and C{winner} won.
    """
    winner: int


#: What L{SplendorGame.apply} and L{SplendorGame.retire} return a list of.
RulesEvent = Union[OperationDone, NewCard, DiscardRequired, NobleOffered,
                   NobleAwarded, TurnSkipped, NewTurn, GameOver]
