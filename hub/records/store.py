"""
Writing records: one game (its row, seats, events) and the ratings it
changes, in one transaction.  These are interactions: functions of a
L{hub.records.db.Cursor}, run by L{hub.records.db.Database.runInteraction}.
"""

import json
from typing import Any, Dict, Iterable, List, Tuple, cast

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


def _rate(cursor: Cursor,
          record: GameRecord) -> Tuple[SeatRecord, ...]:
    """
    Update the ratings of C{record}'s players; return its seats with their
    ratings before and after.
    """
    names = [s.name for s in record.seats]
    # A rateable record has every seat's place (isRateable).
    places = cast(List[int], [s.place for s in record.seats])
    now = record.endedAt
    before = _lockRatings(cursor, record.kind, names, now)
    after = ratings.rate([before[n] for n in names], places)
    decided = len(set(places)) > 1
    seats: List[SeatRecord] = []
    for seat, new in zip(record.seats, after):
        old = before[seat.name]
        won = int(decided and seat.place == 1)
        cursor.execute(
            "UPDATE ratings SET mu = ?, sigma = ?, ordinal = ?, "
            "games = games + 1, wins = wins + ?, updated_at = ?, "
            "guest = ? WHERE kind = ? AND name = ?",
            (new.mu, new.sigma, new.ordinal, won, now, int(seat.guest),
             record.kind, seat.name))
        seats.append(attr.evolve(
            seat, rating=(old.mu, old.sigma, new.mu, new.sigma)))
    return tuple(seats)


def saveRecord(cursor: Cursor, record: GameRecord) -> GameRecord:
    """
    Store C{record} (a L{hub.records.record.GameRecord}) and, when it is
    rateable, update its players' ratings.

    @return: the record as stored: with its C{gameId}, C{rated} and the
        seats' ratings.
    """
    rated = record.isRateable()
    seats = _rate(cursor, record) if rated else record.seats
    cursor.execute(
        "INSERT INTO games (kind, table_name, started_at, ended_at, reason, "
        "winner, ranking, seat_count, action_count, rated, event) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (record.kind, record.table, record.startedAt, record.endedAt,
         record.reason, record.winner, _dumps(list(record.ranking)),
         len(record.seats), record.actionCount, int(rated), record.event))
    gameId = cursor.fetchone()[0]
    rows: List[Tuple[Any, ...]] = []
    for seat in seats:
        rating = seat.rating or (None, None, None, None)
        rows.append((gameId, seat.seat, record.kind, seat.name,
                     seat.playerId, json.dumps(seat.role, default=str),
                     int(seat.botClient), seat.takeoverPly,
                     seat.takeoverLevel, seat.place) + tuple(rating)
                    + (int(seat.guest),))
    cursor.executemany(
        "INSERT INTO game_seats (game_id, seat, kind, name, player_id, role, "
        "bot_client, takeover_ply, takeover_level, place, mu_before, "
        "sigma_before, mu_after, sigma_after, guest) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    cursor.execute(
        "INSERT INTO game_events (game_id, position, events) VALUES (?, ?, ?)",
        (gameId, _dumps(record.position), record.storedEvents()))
    return attr.evolve(record, gameId=gameId, seats=seats, rated=rated)


def saveRecords(cursor: Cursor,
                records: Iterable[GameRecord]) -> List[GameRecord]:
    """
    Store every one of C{records}, in order, in the caller's transaction.

    @return: the records as stored (L{saveRecord}).
    """
    return [saveRecord(cursor, record) for record in records]

