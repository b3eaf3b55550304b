"""
C{python -m hub.records}: the records, read from the command line.

    python -m hub.records --db URL leaderboard KIND [--limit N]
                                               [--leaderboard-min-games N]
                                               [--leaderboard-guests yes|no]
    python -m hub.records --db URL history KIND NAME [--limit N]
    python -m hub.records --db URL show GAME_ID
    python -m hub.records --db URL export GAME_ID
    python -m hub.records --db URL export --since DATE
"""

import datetime
import os
import sys
from typing import (
    IO, Any, Callable, Dict, Generator, List, Optional, Sequence, cast)

from twisted.internet import defer
from twisted.python import usage

from hub import extras
from hub.commandline import (
    Tool, ToolOptions, argumentNumber, firstParagraph, positiveInt)
from hub.records import db, notation, query
from hub.records.codec import KINDS
from hub.records.export import recordToLine
from hub.records.query import HistoryEntry, Records, Standing
from hub.records.record import GameRecord

EXPORT_PAGE = 500

#: What C{--help} says after the options: the first line of this module's
#: docstring (Twisted reflows the text, so the examples would run together).
DESCRIPTION = (firstParagraph(__doc__) + "  Each command's --help "
               "(python -m hub.records leaderboard --help) lists its own "
               "options.")


def _kind(value: str) -> str:
    if value not in KINDS:
        raise usage.UsageError("KIND must be one of " + ", ".join(KINDS))
    return value


def parseDate(value: str) -> float:
    """
    A date or time (ISO 8601; UTC unless it says otherwise) as seconds
    since the epoch.
    """
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z",
                                                               "+00:00"))
    except ValueError:
        raise ValueError("not a date (use 2026-01-31 or 2026-01-31T18:00)")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.timestamp()


class Command(ToolOptions):
    """
    A command whose options may follow its arguments
    (C{leaderboard gomoku --limit 5}); every option takes a value.
    """

    def parseOptions(self, options: Optional[Sequence[str]] = None) -> None:
        options = sys.argv[1:] if options is None else list(options)
        flags: List[str] = []
        arguments: List[str] = []
        while options:
            word = options.pop(0)
            if word == "--":
                arguments.extend(options)
                break
            if word.startswith("-") and len(word) > 1:
                flags.append(word)
                if "=" not in word and options and word not in (
                        "--help", "--version"):
                    flags.append(options.pop(0))
            else:
                arguments.append(word)
        usage.Options.parseOptions(self, flags + ["--"] + arguments)


def _yesNo(value: str) -> bool:
    if value not in ("yes", "no"):
        raise ValueError("must be yes or no")
    return value == "yes"


class LeaderboardOptions(Command):
    longdesc = ("The best players of KIND (gomoku, checkers or splendor) "
                "by mu - 3 sigma; a player is listed after "
                "--leaderboard-min-games rated games.")
    synopsis = ("KIND [--limit N] [--leaderboard-min-games N] "
                "[--leaderboard-guests yes|no]")
    optParameters = [
        ["limit", None, 20, "How many players.", positiveInt],
        ["leaderboard-min-games", None, query.DEFAULT_MIN_GAMES,
         "Rated games a player needs to be listed (1 lists everyone who "
         "played).", positiveInt],
        ["leaderboard-guests", None, False, "yes to list guests (names of "
         "no account) too.", _yesNo],
    ]

    def parseArgs(self, kind: str) -> None:
        self["kind"] = _kind(kind)


class HistoryOptions(Command):
    longdesc = "The last games of player NAME in KIND, newest first."
    synopsis = "KIND NAME [--limit N]"
    optParameters = [["limit", None, query.DEFAULT_LIMIT,
                      "How many games.", positiveInt]]

    def parseArgs(
            self, kind: str, name: str) -> None:
        self["kind"] = _kind(kind)
        self["name"] = name


class ShowOptions(Command):
    longdesc = ("One game: its players, outcome and moves (gomoku moves "
                "in the notation of docs/protocols/gomoku.md).")
    synopsis = "GAME_ID"

    def parseArgs(self, gameId: str) -> None:
        self["id"] = argumentNumber("GAME_ID", gameId)


class ExportOptions(Command):
    longdesc = "Games as JSON lines, one game a line."
    synopsis = "GAME_ID | --since DATE"
    optParameters = [["since", None, None,
                      "Every game that ended at or after DATE (UTC).",
                      parseDate]]

    def parseArgs(self, gameId: Optional[str] = None) -> None:
        self["id"] = argumentNumber("GAME_ID", gameId) \
            if gameId is not None else None

    def postOptions(self) -> None:
        if (self["id"] is None) == (self["since"] is None):
            raise usage.UsageError("give a GAME_ID or --since DATE")


def databaseOption(what: str = "The hub's database") -> List[Any]:
    """
    The C{--db URL} option of a command-line tool over the hub's
    database, C{what} saying what it holds.
    """
    return ["db", None, db.DEFAULT_URL,
            what + ": sqlite:PATH or postgresql://user@host/dbname."]


class DatabaseOptions(ToolOptions):
    """
    The options of a command-line tool over the hub's database: a
    subcommand, and C{--db URL}, parsed into C{self["url"]}.

    @cvar noDatabase: the usage error of C{--db none}.
    @cvar program: the tool's name, in the line saying that PostgreSQL
        needs its extra, or None when the tool checks that itself.
    """

    noDatabase = "--db none names no database"
    program: Optional[str] = None
    toolSynopsis = "[--db URL]"

    def postOptions(self) -> None:
        if self.subCommand is None:
            raise usage.UsageError("which command?")
        try:
            self["url"] = db.parseURL(self["db"])
        except db.BadURL as e:
            raise usage.UsageError(str(e))
        if self["url"] is None:
            raise usage.UsageError(self.noDatabase)
        if self.program is not None and \
                self["url"].dialect is db.POSTGRESQL:
            extras.require("postgres", self.program,
                           extras.POSTGRES_FEATURE)


class Options(DatabaseOptions):
    """
    C{python -m hub.records} options.
    """

    # (ToolOptions says None; hub.commandline is not annotated here yet.)
    tool = "hub.records"  # type: ignore[assignment, unused-ignore]
    longdesc = DESCRIPTION
    optParameters = [databaseOption("The records")]
    subCommands = [
        ["leaderboard", None, LeaderboardOptions,
         "The best players of a kind by mu - 3 sigma."],
        ["history", None, HistoryOptions, "A player's last games."],
        ["show", None, ShowOptions, "One game: players, outcome, moves."],
        ["export", None, ExportOptions, "Games as JSON lines."],
    ]

    noDatabase = "--db none has no records to read"
    program = "hub.records"

    def postOptions(self) -> None:
        DatabaseOptions.postOptions(self)
        url = self["url"]
        if url.dialect is db.SQLITE and not os.path.exists(url.target):
            raise usage.UsageError("no records database at " + url.target)


def _leaderboard(records: Records, options: Any,
                 out: IO[str]) -> defer.Deferred[Any]:
    d = records.leaderboard(options["kind"], options["limit"],
                            options["leaderboard-min-games"],
                            options["leaderboard-guests"])

    def write(board: List[Standing]) -> Optional[defer.Deferred[Any]]:
        if not board:
            return records.whyEmpty(
                options["kind"], options["leaderboard-min-games"],
                options["leaderboard-guests"]).addCallback(
                    lambda reason: out.write(reason + "\n"))
        out.write("{:>4}  {:<24} {:>8} {:>7} {:>7} {:>6} {:>5}\n".format(
            "rank", "name", "ordinal", "mu", "sigma", "games", "wins"))
        for s in board:
            out.write("{:>4}  {:<24} {:>8.2f} {:>7.2f} {:>7.2f} {:>6} "
                      "{:>5}\n".format(s.rank, s.name, s.ordinal, s.mu,
                                       s.sigma, s.games, s.wins))
        return None

    return d.addCallback(write)


def _result(entry: HistoryEntry) -> str:
    game, mine = entry.game, entry.mine
    if game.reason == "abandoned":
        return "abandoned"
    places = [s.place for s in game.seats]
    if len(set(places)) == 1:
        return "draw"
    if mine.place == 1:
        return "won"
    if len(game.seats) == 2:
        return "lost"
    return "place {} of {}".format(mine.place, len(game.seats))


def _history(records: Records, options: Any,
             out: IO[str]) -> defer.Deferred[None]:
    d = records.history(options["kind"], options["name"], options["limit"])

    def write(entries: List[HistoryEntry]) -> None:
        for entry in entries:
            game, mine = entry.game, entry.mine
            others = ", ".join(s.name for s in game.seats
                               if s.seat != mine.seat)
            change = ""
            if mine.rating is not None:
                change = " {:+.2f}".format(
                    (mine.rating[2] - 3 * mine.rating[3])
                    - (mine.rating[0] - 3 * mine.rating[1]))
            out.write("{:>8}  {}  {:<14} vs {:<30} {}{}\n".format(
                game.gameId, notation.utc(game.endedAt), _result(entry),
                others, game.reason, change))

    return d.addCallback(write)


def _show(records: Records, options: Any,
          out: IO[str]) -> defer.Deferred[None]:
    def write(record: Optional[GameRecord]) -> None:
        if record is None:
            raise usage.UsageError("no game {}".format(options["id"]))
        for line in notation.show(record):
            out.write(line + "\n")

    return records.game(options["id"]).addCallback(write)


@defer.inlineCallbacks
def _export(records: Records, options: Any,
            out: IO[str]) -> Generator[defer.Deferred[Any], Any, None]:
    if options["id"] is not None:
        record = yield records.game(options["id"])
        if record is None:
            raise usage.UsageError("no game {}".format(options["id"]))
        out.write(recordToLine(record) + "\n")
        return
    after = 0
    while True:
        ids = yield records.gameIdsSince(options["since"], after,
                                         EXPORT_PAGE)
        for gameId in ids:
            record = yield records.game(gameId)
            out.write(recordToLine(record) + "\n")
        if len(ids) < EXPORT_PAGE:
            return
        after = ids[-1]


COMMANDS: Dict[str, Callable[[Records, Any, IO[str]], Any]] = {
    "leaderboard": _leaderboard, "history": _history, "show": _show,
    "export": _export}


def prepared(url: db.DatabaseURL) -> List[int]:
    """
    Bring the schema of C{url} up to date for a tool (L{db.prepare}): a
    database that cannot be opened or reached is a L{db.CannotOpen}.
    """
    try:
        return db.prepare(url)
    except db.SchemaTooNew:
        raise
    except Exception as e:
        raise db.CannotOpen(url, e)


#: The errors a tool over the database says in their own words.
DATABASE_ERRORS = (db.SchemaTooNew, db.CannotOpen)


@defer.inlineCallbacks
def run(reactor: Any, options: Options,
        out: IO[str]) -> Generator[defer.Deferred[Any], Any, None]:
    """
    Run the command C{options} (parsed L{Options}) writing to C{out}.

    @return: a Deferred that fires when done.
    """
    url = options["url"]
    prepared(url)
    database = db.Database(url, reactor)
    try:
        records = query.Records(database)
        # postOptions refuses a command line without a command.
        command = COMMANDS[cast(str, options.subCommand)]
        yield command(records, options.subOptions, out)
    finally:
        database.close()


def main(argv: Optional[Sequence[str]] = None,
         out: Optional[IO[str]] = None) -> None:
    """
    The command-line entry point.
    """
    out = sys.stdout if out is None else out
    options = Options()
    Tool("hub.records", DATABASE_ERRORS).react(
        options, sys.argv[1:] if argv is None else argv,
        lambda reactor, options: run(reactor, options, out))
