"""
Tournament events in the records database (migration
C{0005_tournaments.sql}): interactions, i.e. functions of a
L{hub.records.db.Cursor}, run by the hub through
L{hub.records.db.Database.runInteraction} (adbapi, SQLite or PostgreSQL)
and by the CLI through L{runBlocking}.

An event's state goes C{created -> running <-> paused -> finished}; the
CLI (or the web's admin) writes the state, the hub's director
(L{hub.tournaments.director}) reacts to it within its poll interval.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import attr

from hub.catalogs import N_, Refusal, Word
from hub.records import db
from hub.tournaments.formats import ARENA, FORMATS, ROUND_ROBIN, SWISS
from hub.tournaments.interfaces import EngineSpec
from hub.tournaments.standings import Game

CREATED = "created"
RUNNING = "running"
PAUSED = "paused"
FINISHED = "finished"
STATES = (CREATED, RUNNING, PAUSED, FINISHED)

#: Players per table allowed for each kind.
TABLE_SIZES = {"gomoku": (2,), "checkers": (2, 3, 4, 6),
               "splendor": (2, 3, 4)}


class TournamentError(Refusal):
    """
    An operation on an event or engine was refused (a
    L{hub.catalogs.Refusal}: C{str} of it is the English, L{translated}
    the page's language).
    """


class NoSuchEngine(TournamentError):
    """
    No engine of that name is registered.
    """

    def __init__(self, name: str) -> None:
        TournamentError.__init__(
            self, N_("no engine {0} is registered ({1})"), name,
            "python -m hub.tournaments engine register %s -- COMMAND..."
            % (name,))


@attr.s(frozen=True, auto_attribs=True)
class Event:
    """
    One row of C{tournaments}.
    """

    id: int
    name: str
    kind: str
    format: str
    rounds: Optional[int]
    minutes: Optional[float]
    tableSize: int
    turnSeconds: Optional[float]
    state: str
    currentRound: int
    createdAt: float
    startedAt: Optional[float] = None
    endsAt: Optional[float] = None
    pausedAt: Optional[float] = None
    finishedAt: Optional[float] = None
    #: Gomocup brains' time control: milliseconds a turn, a game's bank
    #: (None: no limit), and whether engines may ponder off turn.
    turnMs: Optional[int] = None
    matchMs: Optional[int] = None
    pondering: bool = False
    #: Gomoku openings: each a tuple of C{(x, y)} stones, black's first.
    openings: Tuple[Tuple[Tuple[int, int], ...], ...] = ()


@attr.s(frozen=True, auto_attribs=True)
class Entrant:
    """
    One row of C{tournament_entrants}.

    @ivar entry: Entry order, from 1.
    @ivar engine: The registered engine it is (L{hub.tournaments.
        catalog}; a spec with no command if it is no longer
        registered), or None.
    @ivar guest: The name is no account's (entered as a guest's, or an
        engine's free name).
    """

    name: str
    entry: int
    engine: Optional[EngineSpec]
    withdrawn: bool
    guest: bool = False
    #: What its Gomocup brain answered to ABOUT (name, version, author,
    #: country...), or None.
    about: Optional[Mapping[str, str]] = None


@attr.s(frozen=True, auto_attribs=True)
class Snapshot:
    """
    Everything stored of one event.

    @ivar games: Every pairing (byes included) with its points once it
        has a result, by round then board.
    @ivar reasons: C{(round, board)} -> how the game ended (a
        L{hub.tables.events} end reason, C{"bye"}, C{"forfeit"}...).
    """

    event: Event
    entrants: Tuple[Entrant, ...]
    games: Tuple[Game, ...]
    reasons: Dict[Tuple[int, int], str]

    def names(self, withdrawn: bool = True) -> List[str]:
        """
        The entrants' names in entry order (without the withdrawn unless
        asked).
        """
        return [e.name for e in self.entrants
                if withdrawn or not e.withdrawn]

    def entrant(self, name: str) -> Optional[Entrant]:
        for entrant in self.entrants:
            if entrant.name == name:
                return entrant
        return None


_EVENT_COLUMNS = ("id, name, kind, format, rounds, minutes, table_size, "
                  "turn_seconds, state, current_round, created_at, "
                  "started_at, ends_at, paused_at, finished_at, "
                  "turn_ms, match_ms, pondering, openings")


def _event(row: Sequence[Any]) -> Event:
    openings = tuple(tuple(tuple(stone) for stone in opening)
                     for opening in json.loads(row[-1] or "[]"))
    # mypy cannot tell that row[:-2] stops short of these two.
    return Event(*row[:-2], pondering=bool(row[-2]),  # type: ignore[misc]
                 openings=openings)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def createEvent(cursor: db.Cursor, name: str, kind: str, format: str,
                rounds: Optional[int], minutes: Optional[float],
                tableSize: int, turnSeconds: Optional[float],
                now: float, turnMs: Optional[int] = None,
                matchMs: Optional[int] = None,
                pondering: bool = False,
                openings: Sequence[Sequence[Tuple[int, int]]] = ()) -> int:
    """
    Store a new event (state C{created}); C{turnMs}, C{matchMs} and
    C{pondering} are its Gomocup brains' time control, C{openings} its
    gomoku openings.

    @return: its id.
    @raise TournamentError: a kind, format or option that does not fit.
    """
    if kind not in TABLE_SIZES:
        raise TournamentError(N_("no game kind {0!r} ({1})"), kind,
                              "gomoku, checkers, splendor")
    if format not in FORMATS:
        raise TournamentError(N_("no format {0!r} ({1})"), format,
                              ", ".join(FORMATS))
    if tableSize not in TABLE_SIZES[kind]:
        raise TournamentError(
            N_("{0} is played at tables of {1}, not {2}"), Word(kind),
            "/".join(str(n) for n in TABLE_SIZES[kind]), tableSize)
    if format == SWISS and not (rounds and rounds > 0):
        raise TournamentError(N_("a Swiss event needs {0}"), "--rounds N")
    if format == ARENA and not (minutes and minutes > 0):
        raise TournamentError(N_("an arena needs {0}"), "--minutes M")
    if not name.strip():
        raise TournamentError(N_("an event needs a name"))
    for value in (turnMs, matchMs):
        if value is not None and not value > 0:
            raise TournamentError(N_("{0} and {1} are positive"),
                                  "--turn-ms", "--match-ms")
    if openings and kind != "gomoku":
        raise TournamentError(N_("openings are gomoku's"))
    cursor.execute(
        "INSERT INTO tournaments (name, kind, format, rounds, minutes, "
        "table_size, turn_seconds, state, current_round, created_at, "
        "turn_ms, match_ms, pondering, openings) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?) RETURNING id",
        (name, kind, format, rounds if format == SWISS else None,
         minutes if format == ARENA else None, tableSize, turnSeconds,
         CREATED, now, turnMs, matchMs, int(bool(pondering)),
         _dumps([[list(stone) for stone in opening]
                 for opening in openings]) if openings else None))
    return int(cursor.fetchone()[0])


def getEvent(cursor: db.Cursor, eventId: int) -> Event:
    """
    The event C{eventId}.

    @raise TournamentError: there is none.
    """
    cursor.execute("SELECT " + _EVENT_COLUMNS + " FROM tournaments "
                   "WHERE id = ?", (eventId,))
    row = cursor.fetchone()
    if row is None:
        raise TournamentError(N_("no event {0}"), eventId)
    return _event(row)


def listEvents(cursor: db.Cursor) -> List[Event]:
    """
    Every event, newest first.
    """
    cursor.execute("SELECT " + _EVENT_COLUMNS + " FROM tournaments "
                   "ORDER BY id DESC")
    return [_event(row) for row in cursor.fetchall()]


def activeEvents(cursor: db.Cursor) -> List[Event]:
    """
    The events a hub runs: running or paused, oldest first.
    """
    cursor.execute("SELECT " + _EVENT_COLUMNS + " FROM tournaments "
                   "WHERE state IN (?, ?) ORDER BY id", (RUNNING, PAUSED))
    return [_event(row) for row in cursor.fetchall()]


def enter(cursor: db.Cursor, eventId: int, name: Optional[str], now: float,
          engine: Optional[str] = None, guest: bool = False) -> str:
    """
    Enter C{name} in the event (again, if it had withdrawn); with
    C{engine}, as that registered engine (L{hub.tournaments.catalog}),
    under the engine's name when C{name} is None.

    Entrants are accounts (L{hub.accounts}): C{name} must be one, and is
    entered under the account's own spelling, unless C{guest} (a name no
    account owns, as the hub's guests play) or an engine (whose name is
    the operator's to choose; an engine playing under an account's name
    proves it with its C{{key}}).

    @return: the name as entered.
    @raise TournamentError: no such event or engine, the event is over,
        or no account.
    """
    event = getEvent(cursor, eventId)
    if event.state == FINISHED:
        raise TournamentError(N_("event {0} is finished"), eventId)
    if engine is not None:
        cursor.execute("SELECT name FROM engine_catalog WHERE name = ?",
                       (engine,))
        if cursor.fetchone() is None:
            raise NoSuchEngine(engine)
        if name is None:
            name = engine
    if not name or len(name) > 64 or any(c.isspace() for c in name):
        raise TournamentError(N_("an entrant's name is 1 to 64 "
                                 "characters, no spaces"))
    if not guest:
        # An engine under an account's name is entered under its
        # spelling too (the name the hub's name check gives it).
        from hub.accounts.names import nameKey
        from hub.accounts.store import NoSuchAccount, accountName
        try:
            name = accountName(cursor, nameKey(name), name)
        except NoSuchAccount:
            if engine is None:
                raise TournamentError(
                    N_("{0} is no account ({1}), and entrants are "
                       "accounts; {2} enters a guest's name"), name,
                    "python -m hub.accounts add %s" % (name,),
                    "enter --guest")
            # An engine under a name no account owns plays as a guest.
            guest = True
    cursor.execute("SELECT engine FROM tournament_entrants WHERE "
                   "tournament_id = ? AND name = ?", (eventId, name))
    row = cursor.fetchone()
    if row is None:
        cursor.execute("SELECT COUNT(*) FROM tournament_entrants WHERE "
                       "tournament_id = ?", (eventId,))
        entry = int(cursor.fetchone()[0]) + 1
        cursor.execute(
            "INSERT INTO tournament_entrants (tournament_id, name, entry, "
            "engine, withdrawn, entered_at, guest) "
            "VALUES (?, ?, ?, ?, 0, ?, ?)",
            (eventId, name, entry, engine, now, int(guest)))
    else:
        cursor.execute(
            "UPDATE tournament_entrants SET withdrawn = 0, engine = ?, "
            "guest = ? WHERE tournament_id = ? AND name = ?",
            (engine if engine is not None else row[0], int(guest), eventId,
             name))
    return name


def withdraw(cursor: db.Cursor, eventId: int, name: str) -> None:
    """
    Withdraw C{name}: it is paired no more; its games not yet played are
    forfeited.

    @raise TournamentError: not an entrant.
    """
    getEvent(cursor, eventId)
    cursor.execute("UPDATE tournament_entrants SET withdrawn = 1 WHERE "
                   "tournament_id = ? AND name = ?", (eventId, name))
    cursor.execute("SELECT COUNT(*) FROM tournament_entrants WHERE "
                   "tournament_id = ? AND name = ?", (eventId, name))
    if not cursor.fetchone()[0]:
        raise TournamentError(N_("{0} is not an entrant of event {1}"),
                              name, eventId)


def entrants(cursor: db.Cursor, eventId: int) -> List[Entrant]:
    """
    The entrants of C{eventId}, in entry order, an engine with its
    registration.
    """
    cursor.execute(
        "SELECT e.name, e.entry, e.engine, e.withdrawn, e.guest, e.about, "
        "c.command, c.folder, c.protocol, c.cpu_seconds, c.memory_bytes "
        "FROM tournament_entrants e LEFT JOIN engine_catalog c ON "
        "c.name = e.engine WHERE e.tournament_id = ? ORDER BY e.entry",
        (eventId,))
    found = []
    for (name, entry, engine, withdrawn, guest, about, command, folder,
         protocol, cpu, memory) in cursor.fetchall():
        spec = None
        if engine is not None:
            spec = (EngineSpec(engine) if command is None else EngineSpec(
                engine, tuple(json.loads(command)), folder, protocol,
                int(cpu), int(memory)))
        found.append(Entrant(name, entry, spec, bool(withdrawn),
                             bool(guest),
                             json.loads(about) if about else None))
    return found


def setAbout(cursor: db.Cursor, eventId: int, name: str,
             about: Mapping[str, str], now: float = 0.0) -> None:
    """
    Keep what entrant C{name}'s brain answered to C{ABOUT} (at most ten
    pairs, each value at most 100 characters).
    """
    pairs = {str(k)[:20]: str(v)[:100]
             for k, v in sorted(about.items())[:10]}
    cursor.execute("UPDATE tournament_entrants SET about = ? WHERE "
                   "tournament_id = ? AND name = ?",
                   (_dumps(pairs), eventId, name))


def latestAbout(cursor: db.Cursor, kind: str,
                name: str) -> Optional[Tuple[int, Dict[str, str]]]:
    """
    What engine entrant C{name}'s brain last answered to C{ABOUT} in a
    C{kind} event (the latest event that kept one), as C{(event,
    pairs)}, or None (it never told one).
    """
    cursor.execute(
        "SELECT e.tournament_id, e.about FROM tournament_entrants e JOIN "
        "tournaments t ON t.id = e.tournament_id WHERE e.name = ? AND "
        "t.kind = ? AND e.engine IS NOT NULL AND e.about IS NOT NULL "
        "ORDER BY e.tournament_id DESC LIMIT 1", (name, kind))
    row = cursor.fetchone()
    if row is None:
        return None
    return int(row[0]), json.loads(row[1])


def requestState(cursor: db.Cursor, eventId: int, action: str,
                 now: float) -> Event:
    """
    C{start}, C{pause} or C{resume} the event: the state the hub's
    director follows.

    @raise TournamentError: the event is not in a state that allows it.
    """
    event = getEvent(cursor, eventId)
    if action == "start":
        if event.state != CREATED:
            raise TournamentError(N_("event {0} is {1}, not {2}"),
                                  eventId, Word(event.state), Word(CREATED))
        tableSize = event.tableSize
        count = len([e for e in entrants(cursor, eventId)
                     if not e.withdrawn])
        if count < tableSize:
            raise TournamentError(N_("event {0} has {1} entrants; it "
                                     "needs at least {2}"),
                                  eventId, count, tableSize)
        cursor.execute("UPDATE tournaments SET state = ? WHERE id = ?",
                       (RUNNING, eventId))
    elif action == "pause":
        if event.state != RUNNING:
            raise TournamentError(N_("event {0} is {1}, not {2}"),
                                  eventId, Word(event.state), Word(RUNNING))
        cursor.execute("UPDATE tournaments SET state = ?, paused_at = ? "
                       "WHERE id = ?", (PAUSED, now, eventId))
    elif action == "resume":
        if event.state != PAUSED:
            raise TournamentError(N_("event {0} is {1}, not {2}"),
                                  eventId, Word(event.state), Word(PAUSED))
        endsAt = event.endsAt
        if endsAt is not None and event.pausedAt is not None:
            # An arena's clock stands still while it is paused.
            endsAt += max(0.0, now - event.pausedAt)
        cursor.execute("UPDATE tournaments SET state = ?, paused_at = NULL, "
                       "ends_at = ? WHERE id = ?",
                       (RUNNING, endsAt, eventId))
    else:
        raise TournamentError(N_("no action {0!r}"), action)
    return getEvent(cursor, eventId)


def begin(cursor: db.Cursor, eventId: int, now: float) -> Event:
    """
    The director starts a running event: its start time and, for an
    arena, its end.
    """
    event = getEvent(cursor, eventId)
    if event.startedAt is None:
        endsAt = (now + event.minutes * 60.0
                  if event.format == ARENA and event.minutes else None)
        cursor.execute("UPDATE tournaments SET started_at = ?, ends_at = ? "
                       "WHERE id = ?", (now, endsAt, eventId))
    return getEvent(cursor, eventId)


def startRound(cursor: db.Cursor, eventId: int, round: int,
               games: Sequence[Game], now: float) -> None:
    """
    Store round C{round} and its C{games} (byes with their points), and
    make it the event's current round.
    """
    cursor.execute(
        "INSERT INTO tournament_rounds (tournament_id, round, started_at) "
        "VALUES (?, ?, ?) ON CONFLICT (tournament_id, round) DO NOTHING",
        (eventId, round, now))
    addPairings(cursor, eventId, games, now)
    cursor.execute("UPDATE tournaments SET current_round = ? WHERE id = ? "
                   "AND current_round < ?", (round, eventId, round))


def addPairings(cursor: db.Cursor, eventId: int, games: Sequence[Game],
                now: float) -> None:
    """
    Store C{games} as pairings; those with points (byes) as results too.
    """
    for game in games:
        cursor.execute(
            "INSERT INTO tournament_pairings (tournament_id, round, board, "
            "seats, created_at) VALUES (?, ?, ?, ?, ?)",
            (eventId, game.round, game.board, _dumps(list(game.seats)), now))
        if game.points is not None:
            saveResult(cursor, eventId, game, "bye" if game.bye else
                       "scheduled", now)


def saveResult(cursor: db.Cursor, eventId: int, game: Game, reason: str,
               now: float) -> None:
    """
    Store the result of C{game} (its points; its seats as played).
    """
    cursor.execute(
        "INSERT INTO tournament_results (tournament_id, round, board, "
        "points, reason, seats, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (eventId, game.round, game.board, _dumps(list(game.points or ())),
         reason, _dumps(list(game.seats)), now))


def finishRound(cursor: db.Cursor, eventId: int, round: int,
                now: float) -> None:
    cursor.execute("UPDATE tournament_rounds SET finished_at = ? WHERE "
                   "tournament_id = ? AND round = ?", (now, eventId, round))


def finish(cursor: db.Cursor, eventId: int, now: float) -> None:
    """
    The event is over.
    """
    cursor.execute("UPDATE tournaments SET state = ?, finished_at = ? "
                   "WHERE id = ?", (FINISHED, now, eventId))


def snapshot(cursor: db.Cursor, eventId: int) -> Snapshot:
    """
    Everything stored of event C{eventId}.
    """
    event = getEvent(cursor, eventId)
    cursor.execute("SELECT round, board, seats FROM tournament_pairings "
                   "WHERE tournament_id = ? ORDER BY round, board",
                   (eventId,))
    pairings = cursor.fetchall()
    cursor.execute("SELECT round, board, points, reason, seats FROM "
                   "tournament_results WHERE tournament_id = ?", (eventId,))
    results = {(r, b): (p, reason, s)
               for r, b, p, reason, s in cursor.fetchall()}
    games = []
    reasons = {}
    for round, board, seats in pairings:
        result = results.get((round, board))
        if result is None:
            games.append(Game(round, board, tuple(json.loads(seats))))
        else:
            points, reason, played = result
            games.append(Game(round, board, tuple(json.loads(played)),
                              tuple(json.loads(points))))
            reasons[(round, board)] = reason
    # Byes first within a round (negative boards), then boards.
    return Snapshot(event, tuple(entrants(cursor, eventId)), tuple(games),
                    reasons)


def runBlocking(url: db.DatabaseURL, interaction: Any, *args: Any,
                **kwargs: Any) -> Any:
    """
    Run C{interaction(cursor, *args, **kwargs)} in one transaction on a
    plain connection (the CLI's way), the schema brought up to date
    first.
    """
    db.prepare(url)
    connection = db.connect(url)
    try:
        raw = connection.cursor()
        if url.dialect.begin:
            raw.execute(url.dialect.begin)
        try:
            result = interaction(db.Cursor(raw, url.dialect), *args,
                                 **kwargs)
        except BaseException:
            connection.rollback()
            raise
        connection.commit()
        return result
    finally:
        connection.close()


__all__ = ["CREATED", "RUNNING", "PAUSED", "FINISHED", "Event", "Entrant",
           "Snapshot", "TournamentError", "NoSuchEngine", "ROUND_ROBIN",
           "SWISS", "ARENA"]
