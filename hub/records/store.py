"""
Writing records: one game (its row, seats, events) and the ratings it
changes, in one transaction.  These are interactions: functions of a
L{hub.records.db.Cursor}, run by L{hub.records.db.Database.runInteraction}.
"""

import json
from typing import (
    Any, Dict, Iterable, List, Sequence, Set, Tuple, cast)

import attr

from hub.records import ratings
from hub.records.db import Cursor
from hub.records.record import GameRecord, SeatRecord


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _lockRatings(cursor: Cursor, kind: str, names: Iterable[str],
                 now: float) -> Dict[str, ratings.Rating]:
    """
    The current L{ratings.Rating} of each of C{names} (new players get the
    model's initial rating), locked until the transaction ends.  Rows are
    locked in name order, so that two writers never deadlock.
    """
    found: Dict[str, ratings.Rating] = {}
    for name in sorted(names):
        cursor.execute(
            "INSERT INTO ratings (kind, name, mu, sigma, ordinal, games, "
            "wins, updated_at) VALUES (?, ?, ?, ?, ?, 0, 0, ?) "
            "ON CONFLICT (kind, name) DO NOTHING",
            (kind, name, ratings.MU, ratings.SIGMA,
             ratings.ordinal(ratings.MU, ratings.SIGMA), now))
        cursor.execute("SELECT mu, sigma FROM ratings WHERE kind = ? AND "
                       "name = ?" + cursor.dialect.forUpdate, (kind, name))
        mu, sigma = cursor.fetchone()
        found[name] = ratings.Rating(mu, sigma)
    return found


@attr.s(auto_attribs=True)
class _Standing:
    """
    One player's rating row as a batch of games leaves it: the rating
    after its last game, and what the batch adds to the counters.
    """

    rating: ratings.Rating
    games: int = 0
    wins: int = 0
    updatedAt: float = 0.0
    guest: bool = False


class _Ratings:
    """
    The ratings a batch of records changes, each player's row locked and
    read once for the whole batch (L{_lockRatings}), the games rated in
    the batch's order, and every row written once at the end
    (L{write}).
    """

    def __init__(self, cursor: Cursor,
                 records: Sequence[GameRecord]) -> None:
        self.standings: Dict[Tuple[str, str], _Standing] = {}
        names: Dict[str, Set[str]] = {}
        latest: Dict[str, float] = {}
        for record in records:
            if record.isRateable():
                names.setdefault(record.kind, set()).update(
                    s.name for s in record.seats)
                latest[record.kind] = max(latest.get(record.kind, 0.0),
                                          record.endedAt)
        for kind in sorted(names):
            found = _lockRatings(cursor, kind, names[kind], latest[kind])
            for name, rating in found.items():
                self.standings[kind, name] = _Standing(rating)

    def rate(self, record: GameRecord) -> Tuple[SeatRecord, ...]:
        """
        Rate C{record} (rateable) after the batch's games before it;
        return its seats with their ratings before and after.
        """
        # A rateable record has every seat's place (isRateable).
        places = cast(List[int], [s.place for s in record.seats])
        rows = [self.standings[record.kind, s.name] for s in record.seats]
        after = ratings.rate([row.rating for row in rows], places)
        decided = len(set(places)) > 1
        seats: List[SeatRecord] = []
        for seat, row, new in zip(record.seats, rows, after):
            old = row.rating
            row.rating = new
            row.games += 1
            row.wins += int(decided and seat.place == 1)
            row.updatedAt = record.endedAt
            row.guest = seat.guest
            seats.append(attr.evolve(
                seat, rating=(old.mu, old.sigma, new.mu, new.sigma)))
        return tuple(seats)

    def write(self, cursor: Cursor) -> None:
        """
        Write every rated player's row, once.
        """
        rows = [(row.rating.mu, row.rating.sigma, row.rating.ordinal,
                 row.games, row.wins, row.updatedAt, int(row.guest), kind,
                 name)
                for (kind, name), row in sorted(self.standings.items())
                if row.games]
        if rows:
            cursor.executemany(
                "UPDATE ratings SET mu = ?, sigma = ?, ordinal = ?, "
                "games = games + ?, wins = wins + ?, updated_at = ?, "
                "guest = ? WHERE kind = ? AND name = ?", rows)


def saveRecord(cursor: Cursor, record: GameRecord) -> GameRecord:
    """
    Store C{record} (a L{hub.records.record.GameRecord}) and, when it is
    rateable, update its players' ratings.

    @return: the record as stored: with its C{gameId}, C{rated} and the
        seats' ratings.
    """
    return saveRecords(cursor, [record])[0]


def saveRecords(cursor: Cursor,
                records: Iterable[GameRecord]) -> List[GameRecord]:
    """
    Store every one of C{records}, in order, in the caller's transaction,
    and update the ratings they change as if each were stored alone, in
    turn.

    The writer thread needs the GIL between its statements, and while
    the reactor is busy it may wait for it: a batch costs a few
    statements of its own (each player's rating row is locked and read
    once, and written once; the seats and the events of every game go
    in one statement each), and one more per game, not a dozen a game.

    @return: the records as stored: with their C{gameId}, C{rated} and
        the seats' ratings.
    """
    batch = list(records)
    standings = _Ratings(cursor, batch)
    stored: List[GameRecord] = []
    seatRows: List[Tuple[Any, ...]] = []
    eventRows: List[Tuple[Any, ...]] = []
    for record in batch:
        rated = record.isRateable()
        seats = standings.rate(record) if rated else record.seats
        cursor.execute(
            "INSERT INTO games (kind, table_name, started_at, ended_at, "
            "reason, winner, ranking, seat_count, action_count, rated, "
            "event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (record.kind, record.table, record.startedAt, record.endedAt,
             record.reason, record.winner, _dumps(list(record.ranking)),
             len(record.seats), record.actionCount, int(rated),
             record.event))
        gameId = cursor.fetchone()[0]
        for seat in seats:
            rating = seat.rating or (None, None, None, None)
            seatRows.append(
                (gameId, seat.seat, record.kind, seat.name, seat.playerId,
                 json.dumps(seat.role, default=str), int(seat.botClient),
                 seat.takeoverPly, seat.takeoverLevel, seat.place)
                + tuple(rating) + (int(seat.guest),))
        eventRows.append((gameId, _dumps(record.position),
                          record.storedEvents()))
        stored.append(attr.evolve(record, gameId=gameId, seats=seats,
                                  rated=rated))
    standings.write(cursor)
    if seatRows:
        cursor.executemany(
            "INSERT INTO game_seats (game_id, seat, kind, name, player_id, "
            "role, bot_client, takeover_ply, takeover_level, place, "
            "mu_before, sigma_before, mu_after, sigma_after, guest) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", seatRows)
    if eventRows:
        cursor.executemany(
            "INSERT INTO game_events (game_id, position, events) "
            "VALUES (?, ?, ?)", eventRows)
    return stored
