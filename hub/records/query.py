"""
Reading the records: the query API of the web face and the command-line
tool.  Every method answers with a Deferred; the queries run in the
database's threads.

    records = Records(database, leaderboardMinGames=5)
    d = records.leaderboard("gomoku", limit=20)     # [Standing, ...]
    d = records.history("gomoku", "alice", limit=50) # [HistoryEntry, ...]
    d = records.game(17)                             # GameRecord or None
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

import attr
from twisted.internet.defer import Deferred
from zope.interface import implementer

from hub.records.db import Cursor, Database
from hub.records.interfaces import IRecords
from hub.records.record import GameRecord, SeatRecord

DEFAULT_MIN_GAMES = 5
DEFAULT_LIMIT = 50
_GAME_COLUMNS = ("id, kind, table_name, started_at, ended_at, reason, "
                 "winner, ranking, rated")
_SEAT_COLUMNS = ("game_id, seat, name, player_id, role, bot_client, "
                 "takeover_ply, takeover_level, place, mu_before, "
                 "sigma_before, mu_after, sigma_after, guest")


@attr.s(frozen=True)
class Standing:
    """
    One line of a leaderboard.

    @ivar rank: 1 for the top.
    @ivar name: the player's name.
    @ivar mu: the estimated skill.
    @ivar sigma: its uncertainty.
    @ivar ordinal: C{mu - 3 sigma}, what the board ranks by.
    @ivar games: rated games played.
    @ivar wins: rated games won (first place, not shared by everyone).
    @ivar guest: True if the name's last rated game was a guest's (no
        account's: L{hub.accounts}).
    """

    rank: Optional[int] = attr.ib()
    name: str = attr.ib()
    mu: float = attr.ib()
    sigma: float = attr.ib()
    ordinal: float = attr.ib()
    games: int = attr.ib()
    wins: int = attr.ib()
    guest: bool = attr.ib(default=False, converter=bool)


@attr.s(frozen=True)
class HistoryEntry:
    """
    One game of a player's history.

    @ivar game: the L{GameRecord}, without its position and events.
    @ivar seat: the player's seat in it.
    """

    game: GameRecord = attr.ib()
    seat: int = attr.ib()

    @property
    def mine(self) -> SeatRecord:
        """
        The player's L{SeatRecord}.
        """
        return self.game.seats[self.seat]


def _seatFromRow(row: Sequence[Any]) -> SeatRecord:
    (_, seat, name, playerId, role, botClient, takeoverPly, takeoverLevel,
     place, muBefore, sigmaBefore, muAfter, sigmaAfter, guest) = row
    rating = None
    if muBefore is not None:
        rating = (muBefore, sigmaBefore, muAfter, sigmaAfter)
    return SeatRecord(seat, name, playerId,
                      json.loads(role) if role is not None else None,
                      bool(botClient), takeoverPly, takeoverLevel, place,
                      rating, bool(guest))


def _gameFromRow(row: Sequence[Any], seats: Sequence[SeatRecord],
                 position: Any = None,
                 eventsText: Optional[str] = None) -> GameRecord:
    (gameId, kind, table, startedAt, endedAt, reason, winner, ranking,
     rated) = row
    return GameRecord(gameId, kind, table, startedAt, endedAt, reason,
                      winner, tuple(json.loads(ranking)), tuple(seats),
                      position, None, bool(rated), eventsText=eventsText)


def _seatsOf(cursor: Cursor,
             gameIds: Sequence[int]) -> Dict[int, List[SeatRecord]]:
    """
    The L{SeatRecord}s of each of C{gameIds}, as a dict of lists.
    """
    seats: Dict[int, List[SeatRecord]] = {gameId: [] for gameId in gameIds}
    if not gameIds:
        return seats
    marks = ", ".join("?" * len(gameIds))
    cursor.execute("SELECT " + _SEAT_COLUMNS + " FROM game_seats WHERE "
                   "game_id IN (" + marks + ") ORDER BY game_id, seat",
                   tuple(gameIds))
    for row in cursor.fetchall():
        seats[row[0]].append(_seatFromRow(row))
    return seats


def leaderboard(cursor: Cursor, kind: str, limit: int, minGames: int,
                guests: bool = True) -> List[Standing]:
    """
    The interaction behind L{Records.leaderboard}; without C{guests}, the
    names whose last rated game was a guest's are left out.
    """
    cursor.execute("SELECT name, mu, sigma, ordinal, games, wins, guest "
                   "FROM ratings WHERE kind = ? AND games >= ? " +
                   ("" if guests else "AND guest = 0 ") +
                   "ORDER BY ordinal DESC, name LIMIT ?",
                   (kind, minGames, limit))
    return [Standing(rank, *row)
            for rank, row in enumerate(cursor.fetchall(), 1)]


def whyEmpty(cursor: Cursor, kind: str, minGames: int,
             guests: bool = True) -> str:
    """
    The interaction behind L{Records.whyEmpty}.
    """
    cursor.execute("SELECT COUNT(*), MAX(games) FROM ratings "
                   "WHERE kind = ? AND games >= 1" +
                   ("" if guests else " AND guest = 0"), (kind,))
    players, most = cursor.fetchone()
    guestsOnly = False
    if not players and not guests:
        cursor.execute("SELECT COUNT(*) FROM ratings WHERE kind = ? "
                       "AND games >= 1", (kind,))
        guestsOnly = bool(cursor.fetchone()[0])
    return emptyReason(kind, minGames, players or 0, most or 0, guestsOnly)


def emptyReason(kind: str, minGames: int, players: int, most: int,
                guestsOnly: bool = False) -> str:
    """
    Why the leaderboard of C{kind} lists nobody, in a sentence.

    @param players: how many players have a rated game of C{kind}.
    @param most: the most rated games one of them has.
    @param guestsOnly: only guests, whom the leaderboard leaves out, have
        rated games.
    """
    if guestsOnly:
        return ("Only guests have played rated {} games, and the "
                "leaderboard ranks accounts (--leaderboard-guests yes ranks "
                "guests too).".format(kind))
    if players == 0:
        return "No rated {} game has been recorded yet.".format(kind)
    return ("No player has {min} rated {kind} games yet "
            "(--leaderboard-min-games {min}); {players} {have} played, "
            "none more than {most} rated {games}.".format(
                min=minGames, kind=kind, players=players,
                have="player has" if players == 1 else "players have",
                most=most, games="game" if most == 1 else "games"))


def history(cursor: Cursor, kind: str, name: str, limit: int,
            before: Optional[int] = None) -> List[HistoryEntry]:
    """
    The interaction behind L{Records.history}.
    """
    if before is None:
        cursor.execute("SELECT game_id, seat FROM game_seats WHERE kind = ? "
                       "AND name = ? ORDER BY game_id DESC LIMIT ?",
                       (kind, name, limit))
    else:
        cursor.execute("SELECT game_id, seat FROM game_seats WHERE kind = ? "
                       "AND name = ? AND game_id < ? "
                       "ORDER BY game_id DESC LIMIT ?",
                       (kind, name, before, limit))
    mine = cursor.fetchall()
    if not mine:
        return []
    ids = [gameId for gameId, _ in mine]
    marks = ", ".join("?" * len(ids))
    cursor.execute("SELECT " + _GAME_COLUMNS + " FROM games WHERE id IN ("
                   + marks + ")", tuple(ids))
    games = {row[0]: row for row in cursor.fetchall()}
    seats = _seatsOf(cursor, ids)
    return [HistoryEntry(_gameFromRow(games[gameId], seats[gameId]), seat)
            for gameId, seat in mine]


def game(cursor: Cursor, gameId: int) -> Optional[GameRecord]:
    """
    The interaction behind L{Records.game}.
    """
    cursor.execute("SELECT " + _GAME_COLUMNS + " FROM games WHERE id = ?",
                   (gameId,))
    row = cursor.fetchone()
    if row is None:
        return None
    seats = _seatsOf(cursor, [gameId])[gameId]
    cursor.execute("SELECT position, events FROM game_events "
                   "WHERE game_id = ?", (gameId,))
    position, events = cursor.fetchone()
    record = _gameFromRow(row, seats, json.loads(position), events)
    # Decoded here, in the database's thread, not by the first reader.
    record.events
    return record


def gameIdsSince(cursor: Cursor, since: float, after: int,
                 limit: int) -> List[int]:
    """
    The interaction behind L{Records.gameIdsSince}.
    """
    cursor.execute("SELECT id FROM games WHERE ended_at >= ? AND id > ? "
                   "ORDER BY id LIMIT ?", (since, after, limit))
    return [row[0] for row in cursor.fetchall()]


def rating(cursor: Cursor, kind: str, name: str) -> Optional[Standing]:
    """
    The interaction behind L{Records.rating}.
    """
    cursor.execute("SELECT name, mu, sigma, ordinal, games, wins, guest "
                   "FROM ratings WHERE kind = ? AND name = ?", (kind, name))
    row = cursor.fetchone()
    return None if row is None else Standing(None, *row)


def counts(cursor: Cursor) -> Dict[str, int]:
    """
    The interaction behind L{Records.counts}.
    """
    cursor.execute("SELECT kind, COUNT(*) FROM games GROUP BY kind")
    return dict(cursor.fetchall())


@implementer(IRecords)
class Records:
    """
    The records, read: each method returns a Deferred.

    @ivar database: the L{hub.records.db.Database}.
    @ivar leaderboardMinGames: the rated games a player needs to appear on
        a leaderboard, unless a query says otherwise.
    @ivar leaderboardGuests: whether leaderboards list guests
        (L{hub.accounts}), unless a query says otherwise.
    """

    def __init__(self, database: Database,
                 leaderboardMinGames: int = DEFAULT_MIN_GAMES,
                 leaderboardGuests: bool = True) -> None:
        self.database = database
        self.leaderboardMinGames = leaderboardMinGames
        self.leaderboardGuests = leaderboardGuests

    def leaderboard(self, kind: str, limit: int = DEFAULT_LIMIT,
                    minGames: Optional[int] = None,
                    guests: Optional[bool] = None) -> Deferred[List[Standing]]:
        """
        The best C{limit} players of C{kind} by ordinal (C{mu - 3 sigma}),
        among those with at least C{minGames} rated games; guests too if
        C{guests} (by default L{leaderboardGuests}).

        @return: a Deferred of a L{list} of L{Standing}.
        """
        if minGames is None:
            minGames = self.leaderboardMinGames
        if guests is None:
            guests = self.leaderboardGuests
        return self.database.runInteraction(leaderboard, kind, limit,
                                            minGames, guests)

    def whyEmpty(self, kind: str, minGames: Optional[int] = None,
                 guests: Optional[bool] = None) -> Deferred[str]:
        """
        Why the leaderboard of C{kind} with C{minGames} lists nobody: no
        rated game yet, none but guests', or no player with enough of
        them.

        @return: a Deferred of a sentence (L{str}).
        """
        if minGames is None:
            minGames = self.leaderboardMinGames
        if guests is None:
            guests = self.leaderboardGuests
        return self.database.runInteraction(whyEmpty, kind, minGames,
                                            guests)

    def history(self, kind: str, name: str, limit: int = DEFAULT_LIMIT,
                before: Optional[int] = None) -> Deferred[List[HistoryEntry]]:
        """
        The last C{limit} games of C{kind} in which C{name} had a seat,
        newest first; C{before} (a game id) pages back.

        @return: a Deferred of a L{list} of L{HistoryEntry}.
        """
        return self.database.runInteraction(history, kind, name, limit,
                                            before)

    def game(self, gameId: int) -> Deferred[Optional[GameRecord]]:
        """
        One game's full record.

        @return: a Deferred of a L{GameRecord} (with its position and
            events), or of None.
        """
        return self.database.runInteraction(game, gameId)

    def gameIdsSince(self, since: float, after: int = 0,
                     limit: int = 1000) -> Deferred[List[int]]:
        """
        The ids of games that ended at or after C{since} (seconds since
        the epoch), above C{after}, in order, at most C{limit}.

        @return: a Deferred of a L{list} of L{int}.
        """
        return self.database.runInteraction(gameIdsSince, since, after,
                                            limit)

    def rating(self, kind: str,
               name: str) -> Deferred[Optional[Standing]]:
        """
        The rating of C{name} at C{kind}.

        @return: a Deferred of a L{Standing} (its C{rank} None), or None.
        """
        return self.database.runInteraction(rating, kind, name)

    def counts(self) -> Deferred[Dict[str, int]]:
        """
        How many games of each kind are stored.

        @return: a Deferred of a L{dict}.
        """
        return self.database.runInteraction(counts)
