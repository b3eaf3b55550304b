"""
Tournament games in the browser (L{PairingRooms}): a pairing's room seats
only its entrants, logged in; an entrant is told when a game waits for
them (C{game-ready}) and when it no longer does (C{game-gone}: it began,
or it was played or forfeited without them).
"""

from typing import Any, Dict, Optional, Sequence, Tuple

from hub.accounts.names import nameKey
from hub.tournaments.interfaces import IPairings
from hub.web.play.codec import GameGone, gameReady
from hub.web.play.errors import NOT_ENTRANT, PlayError


class PairingRooms:
    """
    The pairings' rooms of the director, as browser players see them.

    @param play: the L{hub.web.play.core.WebPlay}.
    @param director: the L{IPairings} of the tournaments.
    """

    def __init__(self, play: Any, director: IPairings) -> None:
        self.play = play
        self.director = director

    def seatsOf(self, kind: str, room: str) -> Optional[Tuple[str, ...]]:
        """
        The entrants of the pairing whose room C{room} is, waiting for
        its players, or None.
        """
        seats: Optional[Tuple[str, ...]] = self.director.pairingOf(
            kind, room)
        return seats

    def join(self, player: Any, game: Any, room: str) -> None:
        """
        Seat C{player} in the pairing's room C{room}: only one of its
        entrants, logged in as that account, who is marked ready.  Who
        came to play their game leaves a room where no game runs (an
        earlier game's, over) first.  At a Splendor table (whose seats
        have no names) the director is told which entrant the player's
        session is.
        """
        seats = self.seatsOf(game.kind, room) or ()
        entrant = None
        if not player.guest:
            entrant = next((n for n in seats
                            if nameKey(n) == nameKey(player.name)), None)
        if entrant is None:
            raise PlayError(NOT_ENTRANT, "this game is for {}".format(
                ", ".join(seats)))
        current = player.room
        if current is not None and current.name == room and \
                current.kind == game.kind:
            player.sendRoom()
            return
        if current is not None and not current.running:
            player.leaveRoom()
        play = self.play
        session = play.session(player, game)
        if not game.namedRooms:
            # Before the join, which may start the game.
            self.director.claim(game.kind, room, session.id, entrant)
        play.lobbyCall(player, play.lobby.join, game.kind, room, session,
                       player)
        joined = player.room
        if joined is not None and not joined.running and \
                game.readies(joined, session):
            # Who came to play their game is ready to (gomoku's owner
            # starts it, or the director does).
            play.lobbyCall(player, play.lobby.setReady, session, True)
        player.waiting.pop(room, None)
        player.sendRoom()

    def gameReady(self, eventId: int, kind: str, room: str,
                  seats: Sequence[str]) -> None:
        """
        The director opened C{room} for C{seats}: tell the entrants among
        them who are here, logged in, and not at a table.
        """
        keys = {nameKey(n): i for i, n in enumerate(seats)}
        for player in list(self.play.players.values()):
            seat = keys.get(nameKey(player.name))
            if player.guest or seat is None or player.table is not None:
                continue
            self.tell(player, gameReady(eventId, kind, room, seat))

    def tellWaiting(self, player: Any) -> None:
        """
        Tell logged-in C{player} of every tournament game waiting for
        them now.
        """
        if player.guest:
            return
        for eventId, kind, room, seat in self.director.waitingFor(
                player.name):
            self.tell(player, gameReady(eventId, kind, room, seat))

    def tell(self, player: Any, message: Any) -> None:
        player.waiting[message.room] = message
        player.send(message)

    def eventChanged(self, eventId: int) -> None:
        """
        Something of event C{eventId} changed: each player told of a game
        of it that no longer waits for them hears that it is gone.
        """
        for player in list(self.play.players.values()):
            told = [m for m in player.waiting.values()
                    if m.event == eventId]
            if not told:
                continue
            waiting: Dict[str, int] = {
                room: event for event, _, room, _ in
                self.director.waitingFor(player.name)}
            for message in told:
                if waiting.get(message.room) != eventId:
                    del player.waiting[message.room]
                    player.send(GameGone(message.event, message.kind,
                                         message.room))
