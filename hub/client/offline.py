"""
Play without a server: who plays an offline game and how they sit down
at the hub inside the client's own reactor (L{hub.client.localhub}).

An L{OfflinePlan} says who sits where; L{seatPlayers} seats them in
join order (which decides a checkers region), bots as in-process
connections (L{BotSeats}).
"""

from dataclasses import dataclass, field
from typing import (
    Any, Callable, Container, Generator, Iterable, List, Optional, Sequence,
    Tuple, Union)

from twisted.internet import defer

from hub.games import checkers as G

#: The checkers player counts offline play offers.
CHECKERS_COUNTS = (1, 2, 3, 4, 6)
#: The regions of each checkers player count, in join order.
CHECKERS_REGIONS = dict(G.PLAYER_REGIONS)
CHECKERS_REGIONS.setdefault(1, ("A",))
#: Splendor seats.
SPLENDOR_COUNTS = (2, 3, 4)
GAMES = ("checkers", "splendor", "gomoku")
LOOPBACK = "127.0.0.1"


def autoCount(humans: int, counts: Iterable[int] = CHECKERS_COUNTS) -> int:
    """
    The least count of C{counts} at or above C{humans} (at least 1).

    @raise ValueError: when no count is that large.
    """
    for n in sorted(counts):
        if n >= max(1, humans):
            return n
    raise ValueError("no game for %d players" % (humans,))


def supportedCheckersCounts() -> Tuple[int, ...]:
    """
    The checkers counts an offline hub (L{hub.client.localhub}) starts.
    """
    return CHECKERS_COUNTS


@dataclass
class PlanSeat:
    """
    One seat of an offline game: a human at this screen, or a bot.
    """

    human: bool
    level: int = 2
    name: Optional[str] = None


@dataclass
class OfflinePlan:
    """
    Who plays an offline game, in join order.

    @ivar colour: gomoku: the first human's colour (C{"black"} or
        C{"white"}).
    """

    game: str
    seats: List[PlanSeat] = field(default_factory=list)
    colour: str = "black"

    @property
    def count(self) -> int:
        return len(self.seats)

    @property
    def humans(self) -> List[PlanSeat]:
        return [s for s in self.seats if s.human]

    def regions(self) -> Tuple[str, ...]:
        """
        Checkers: the region of each seat.
        """
        return CHECKERS_REGIONS[self.count]


def checkersPlan(count: Optional[int] = None, mySeat: int = 0,
                 levels: Union[None, int, Sequence[int]] = None,
                 humans: int = 1,
                 counts: Iterable[int] = CHECKERS_COUNTS) -> OfflinePlan:
    """
    An offline checkers plan: C{count} players (None: auto, the least
    count for C{humans}), the first human at seat C{mySeat} (its index in
    the count's regions), further humans after it, bots elsewhere at
    C{levels} (one level, or one per seat).
    """
    if count is None:
        count = autoCount(humans, counts)
    if count not in CHECKERS_REGIONS or humans > count:
        raise ValueError("no %r-player game for %d people" % (count, humans))
    mySeat = mySeat % count
    humanSeats = [(mySeat + i) % count for i in range(humans)]
    return OfflinePlan("checkers", _seats(count, humanSeats, levels))


def splendorPlan(count: int = 2,
                 levels: Union[None, int, Sequence[int]] = None,
                 humans: int = 1) -> OfflinePlan:
    """
    An offline Splendor plan of C{count} (2 to 4) players.
    """
    if count not in SPLENDOR_COUNTS or humans > count:
        raise ValueError("Splendor seats 2 to 4 players")
    return OfflinePlan("splendor", _seats(count, range(humans), levels))


def gomokuPlan(colour: str = "black", level: int = 2) -> OfflinePlan:
    """
    An offline gomoku game: the user (who owns the room) at C{colour}
    against a bot.
    """
    return OfflinePlan("gomoku", [PlanSeat(True), PlanSeat(False, level)],
                       colour=colour)


def _seats(count: int, humanSeats: Container[int],
           levels: Union[None, int, Sequence[int]]) -> List[PlanSeat]:
    if levels is None or isinstance(levels, int):
        levels = [levels or 2] * count
    return [PlanSeat(i in humanSeats, levels[i]) for i in range(count)]


@defer.inlineCallbacks
def seatPlayers(plan: OfflinePlan, botSeats: Any,
                seatHuman: Callable[[int, PlanSeat], "defer.Deferred[object]"],
                room: str) -> Generator["defer.Deferred[Any]", Any, List[Any]]:
    """
    Bring the players of C{plan} to the table one after the other, each
    once the one before is in: bots through C{botSeats} (ready once
    everyone is there), humans through C{seatHuman(index, seat)}, which
    returns a Deferred firing once that human is in the room.

    @return: a Deferred firing with the bots once everyone is seated.
    """
    bots = []
    regions = plan.regions() if plan.game == "checkers" else None
    for index, seat in enumerate(plan.seats):
        if seat.human:
            yield seatHuman(index, seat)
            continue
        hint = regions[index] if regions else None
        bot = botSeats.add(seat.level, room=room, team=plan.count,
                           name=seat.name or botSeats.newName(hint))
        bots.append(bot)
        entered = yield bot.entered
        if not entered:
            raise RuntimeError("bot %r could not sit down" % (bot.name,))
    return bots
