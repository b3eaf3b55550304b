"""
The gomoku table: two seats (0 plays black and moves first, 1 white), no
turn clock, the illegal-move limit, and the forfeit or the takeover of a
seat whose player is gone for good.

Events, in order, for a whole game: L{events.GameStarted}, one
L{events.TurnStarted} (black's first turn), then an
L{events.ActionPlayed} per stone (the action is C{(x, y)}) and at last
L{events.GameEnded}.  Seats alternate, so the turn after each stone is
implied by it and no L{events.TurnStarted} is repeated: the move path
stays one event long.  A seat whose player is lost and comes back within
the grace gives L{events.SeatReturned}; a seat gone for good gives
L{events.SeatDropped}, then either L{events.SeatTakenOver} or the end
(L{events.FORFEIT}).
"""

from __future__ import annotations

from typing import (
    Any, Callable, Dict, Generator, Iterable, List, Mapping, Optional, Set,
    Tuple)

from twisted.internet.interfaces import IReactorTime
from zope.interface import implementer

from hub.games import gomoku as rules
from hub.ihub import ILobby, IStartPolicy, ITable, ITableListener, Room
from hub.tables import events
from hub.tables.base import (
    IllegalAction, OptionsCopied, Table, TableOptions, replayed, runReplay)

KIND = "gomoku"

# The room setting (Room.settings) holding the seat its owner plays; the
# adapter writes it, the start policy reads it.
OWNER_SEAT = "ownerSeat"

# A gomoku table's options when none are given: the illegal-move limit of
# gomoku-battle, no takeover.
DEFAULT_OPTIONS = TableOptions(maxIllegal=rules.MAX_ILLEGAL_MOVES)


@implementer(ITable)
class GomokuTable(Table):
    """
    One running gomoku game.

    @ivar maxIllegal: illegal moves in a row the seat to move may make;
        one more ends the game in error (L{events.ILLEGAL}).  None for no
        limit.
    @ivar illegalStreak: the illegal moves in a row so far.
    @ivar away: the seats whose player lost the connection and may still
        come back.
    """

    kind = KIND
    game: rules.GomokuGame

    def __init__(self, name: str, seats: Iterable[events.Seat],
                 clock: IReactorTime, options: Optional[TableOptions] = None,
                 game: Optional[rules.GomokuGame] = None) -> None:
        if options is None:
            options = DEFAULT_OPTIONS
        if game is None:
            game = rules.GomokuGame()
        Table.__init__(self, name, seats, game, clock, options)
        self.maxIllegal = options.maxIllegal
        self.illegalStreak = 0
        self.away: Set[int] = set()

    # The game

    def position(self) -> Dict[str, Any]:
        """
        The board as a list of the C{[x, y]} of its stones, black first
        (empty at the start).
        """
        return {"size": rules.SIZE,
                "moves": [[x, y] for x, y in self.game.moves]}

    def act(self, seat: Optional[int], action: Any) -> None:
        """
        C{seat} puts a stone at C{action} = C{(x, y)}.  An illegal move
        counts toward the limit, and the move past the limit ends the
        game (L{events.ILLEGAL}) before L{IllegalAction} is raised.

        @raise hub.tables.base.TableError: a subclass saying why not.
        """
        game = self.game
        if self.over or seat is None or seat != game.currentSeat:
            seat = self.checkTurn(seat)
        try:
            game.apply(seat, action)
        except rules.IllegalMove:
            self.refuse()
            raise IllegalAction(action)
        self.played(seat, False)

    def botAct(self, seat: int, action: rules.Cell) -> None:
        if self.over or self.game.currentSeat != seat:
            return
        self.game.apply(seat, action)
        self.played(seat, True)

    def played(self, seat: int, byBot: bool) -> None:
        """
        Tell of the stone just placed (as the rules' own C{(x, y)}), then
        end the game or let a bot answer.
        """
        self.illegalStreak = 0
        self.playedAction(seat, self.game.lastMove, byBot, None,
                          self.clock.seconds())
        game = self.game
        if game.isOver:
            winner = game.winnerSeat
            if winner is None:
                self.end(events.NORMAL)
            else:
                self.end(events.NORMAL, (winner, 1 - winner), winner)
        elif self.options.turnSeconds is not None:
            # A turn clock (a tournament's): the next seat's turn, its
            # clock and its bot.
            self.startTurn()
        elif self.takeover.pilots:
            self.takeover.turn()

    def refuse(self) -> None:
        """
        Count an illegal move of the seat to move; past the limit the game
        ends in error, with no winner.
        """
        if self.maxIllegal is None:
            return
        self.illegalStreak += 1
        if self.illegalStreak > self.maxIllegal:
            self.game.endInError()
            self.end(events.ILLEGAL)

    # Players coming and going

    def seatLost(self, seat: int) -> None:
        """
        The player of C{seat} lost the connection and may come back.
        """
        self.away.add(seat)

    def seatResumed(self, seat: int) -> None:
        """
        The lost player of C{seat} is back (L{events.SeatReturned}).
        """
        if seat in self.away:
            self.away.discard(seat)
            self.emit(events.SeatReturned(seat, self.now()))

    def drop(self, seat: int) -> None:
        """
        The player of C{seat} is gone for good (L{events.SeatDropped}).
        With C{takeover="bot"} a bot plays the seat while the other seat's
        player is present; otherwise the seat forfeits.
        """
        if self.over:
            return
        self.emit(events.SeatDropped(seat, self.now()))
        other = 1 - seat
        if (self.options.takeover == "bot" and other not in self.away
                and other not in self.takeover):
            self.takeOver(seat)
        else:
            self.forfeit(seat)

    def timedOut(self) -> None:
        """
        The seat to act ran out of time: it loses (L{events.TIMEOUT}).
        Gomoku has a turn clock only when its options give one (a
        tournament's C{--turn-seconds}); the hub's rooms have none.
        """
        if self.over:
            return
        seat = self.game.currentSeat
        if seat is None:
            return
        self.emit(events.SeatTimedOut(seat, self.now()))
        winner = 1 - seat
        self.game.forfeit(seat)
        self.end(events.TIMEOUT, (winner, seat), winner)

    def forfeit(self, seat: int) -> None:
        """
        C{seat} loses by forfeit (L{events.FORFEIT}).
        """
        self.lose(seat, events.FORFEIT)

    def lose(self, seat: int, reason: str) -> None:
        """
        C{seat} loses for C{reason} (an L{events.END_REASONS}: an engine
        lost on time, played an illegal move or crashed).
        """
        if self.over:
            return
        winner = 1 - seat
        self.game.forfeit(seat)
        self.end(reason, (winner, seat), winner)


@implementer(IStartPolicy)
class GomokuStartPolicy(OptionsCopied):
    """
    The owner starts a gomoku game once a guest is present and ready; the
    owner plays the seat in the room's L{OWNER_SEAT} setting (white by
    default), the guest the other one.

    @ivar clock: the clock of the tables.
    @ivar options: the tables' L{TableOptions}.
    @ivar listenerFor: C{listenerFor(room, table)} returns the adapter's
        L{hub.ihub.ITableListener} for a new table, or None.
    """

    autoStart = False
    playerCounts = frozenset([2])
    openTable = True

    def __init__(
            self, clock: IReactorTime,
            options: TableOptions = DEFAULT_OPTIONS,
            listenerFor: Optional[
                Callable[[Room, GomokuTable], ITableListener]] = None,
    ) -> None:
        self.clock = clock
        self.options = options
        self.listenerFor = listenerFor

    def canStart(self, room: Room) -> bool:
        """
        A guest is present and ready.
        """
        return len(room.members) == 2 and room.members[1].ready

    def memberLeft(self, lobby: ILobby, room: Room) -> None:
        """
        Nothing: the owner starts a gomoku game.
        """

    def newTable(self, room: Room) -> GomokuTable:
        """
        Seat the members and make the table on a fresh board (the original
        forgot to clear it).
        """
        ownerSeat = room.settings.get(OWNER_SEAT, rules.SEAT_WHITE)
        # Filled by seat number below: a guest and the owner.
        seats: List[Any] = [None, None]
        for member in room.members:
            seat = ownerSeat if member is room.owner else 1 - ownerSeat
            member.seat = seat
            seats[seat] = events.Seat(
                seat, member.name, member.session.id,
                rules.colourOfSeat(seat),
                guest=bool(getattr(member.session, "guest", False)))
        table = GomokuTable(room.name, seats, self.clock, self.options)
        if self.listenerFor is not None:
            table.addListener(self.listenerFor(room, table))
        return table


def restore(position: Mapping[str, Any]) -> rules.GomokuGame:
    """
    The rules object of C{position} (L{GomokuTable.position}).
    """
    if position["size"] != rules.SIZE:
        raise ValueError("not a %d x %d board" % (rules.SIZE, rules.SIZE))
    game = rules.GomokuGame()
    for index, (x, y) in enumerate(position["moves"]):
        game.apply(index & 1, (x, y))
    return game


def replay(
        tableEvents: Iterable[Any], game: Optional[rules.GomokuGame] = None,
        onAction: Optional[
            Callable[[rules.GomokuGame, events.ActionPlayed], object]] = None,
) -> Optional[rules.GomokuGame]:
    """
    The final rules object of a game, rebuilt from its events alone: the
    position of L{events.GameStarted} (or C{game}, the position before
    the events), every stone, and how it ended.

    @param onAction: called as C{onAction(game, event)} after each
        L{events.ActionPlayed} (a replay's steps).
    @return: a L{rules.GomokuGame}, or None without a L{GameStarted}.
    @raise ValueError: a stone or a forfeit before any position.
    """
    return runReplay(replaying(tableEvents, game), onAction)


def replaying(
        tableEvents: Iterable[Any], game: Optional[rules.GomokuGame] = None,
) -> Generator[Tuple[rules.GomokuGame, events.ActionPlayed], None,
               Optional[rules.GomokuGame]]:
    """
    L{replay} a step at a time: yields C{(game, event)} after each
    L{events.ActionPlayed}, and returns the final rules object.
    """
    for event in tableEvents:
        eventType = type(event)
        if eventType is events.GameStarted:
            game = restore(event.position)
        elif eventType is events.ActionPlayed:
            game = replayed(game)
            game.apply(event.seat, tuple(event.action))
            yield game, event
        elif eventType is events.GameEnded:
            if event.reason == events.FORFEIT:
                replayed(game).forfeit(1 - event.winner)
            elif event.reason == events.ILLEGAL:
                replayed(game).endInError()
    return game
