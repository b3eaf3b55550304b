"""
C{python -m hub.tournaments}: tournament events, run from the command line.
The hub serving the same database runs them: it picks up a start or a
pause within 2 seconds.

    python -m hub.tournaments --db URL create --name NAME --game KIND
        --format round-robin|swiss|arena [--rounds N] [--minutes M] ...
    python -m hub.tournaments --db URL engine register NAME [...] -- COMMAND...
    python -m hub.tournaments --db URL enter|withdraw|start|standings ...

Every command, what it prints, and the engines' command lines (their
placeholders; only this CLI, run on the server, registers one):
docs/tournaments.md, its opening section and "Engines".
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from typing import Any, List, Optional, Sequence, TextIO

from twisted.python import usage

from hub.commandline import (
    Tool, ToolOptions, argumentNumber, firstParagraph)
from hub.records.cli import (
    DATABASE_ERRORS, DatabaseOptions, databaseOption, prepared)
from hub.tournaments import catalog, formats, psqexport, store, views
from hub.tournaments.interfaces import (
    ENGINE_CPU_SECONDS, ENGINE_MEMORY_BYTES, PROTOCOLS)

DESCRIPTION = firstParagraph(__doc__)


def _eventId(value: str) -> int:
    number: int = argumentNumber("EVENT (an event's id)", value)
    return number


class _EventOptions(ToolOptions):
    """
    A command on one event: C{EVENT}.
    """

    synopsis = "EVENT"

    def parseArgs(self, event: str) -> None:
        self["event"] = _eventId(event)


class ExportOptions(_EventOptions):
    """
    C{export EVENT [--psq DIR]}.
    """

    synopsis = "EVENT [--psq DIR]"

    optParameters = [
        ["psq", None, None, "Write each gomoku game of the event as a "
         "Piskvork record, DIR/ROOM.psq, and all of them as "
         "DIR/event-EVENT-psq.zip (instead of the JSON)."],
    ]

    def parseArgs(self, event: str, *rest: str) -> None:
        # Also after the event, as the docs write it.
        _EventOptions.parseArgs(self, event)
        if len(rest) == 2 and rest[0] == "--psq":
            self["psq"] = rest[1]
        elif rest:
            raise usage.UsageError("export EVENT [--psq DIR]")


class _EntrantOptions(ToolOptions):
    """
    A command on one entrant of one event: C{EVENT ACCOUNT}.
    """

    synopsis = "EVENT ACCOUNT"

    def parseArgs(self, event: str, account: str) -> None:
        self["event"] = _eventId(event)
        self["name"] = account


class EnterOptions(_EntrantOptions):
    """
    C{enter [--guest] EVENT ACCOUNT}.
    """

    synopsis = "[--guest] EVENT ACCOUNT"

    optFlags = [["guest", None, "Enter a name no account owns (a guest's) "
                 "instead of an account."]]


class CreateOptions(ToolOptions):
    """
    C{create}: a new event.
    """

    synopsis = ("--name NAME --game KIND --format round-robin|swiss|arena "
                "[--rounds N] [--minutes M] [--players-per-table N] "
                "[--turn-seconds S] [--turn-ms MS] [--match-ms MS] "
                "[--pondering] [--openings FILE|default]")

    optParameters = [
        ["name", None, None, "The event's name."],
        ["game", None, None, "gomoku, checkers or splendor."],
        ["format", None, None, "round-robin, swiss or arena."],
        ["rounds", None, None, "Swiss: how many rounds.", int],
        ["minutes", None, None, "Arena: how long it lasts.", float],
        ["players-per-table", None, None,
         "Players per game (gomoku 2; checkers 2/3/4/6; Splendor 2/3/4; "
         "by default 2, and 3 for Splendor).", int],
        ["turn-seconds", None, None, "The turn clock of the event's "
         "games (the hub's default if not given).", float],
        ["turn-ms", None, None, "Gomocup brains: milliseconds a turn "
         "(INFO timeout_turn; by default the turn clock's).", int],
        ["match-ms", None, None, "Gomocup brains: milliseconds of a "
         "game's time bank (INFO timeout_match; none by default).", int],
        ["openings", None, None, "Gomoku: a file of openings (one a line, "
         "in the hub's notation: h8 i9 j10), or 'default' for the hub's "
         "list; the games of engines over standard streams start from "
         "them."],
    ]
    optFlags = [
        ["pondering", None, "Engines keep running off turn (by default "
         "their processes are stopped between their turns)."],
    ]

    def postOptions(self) -> None:
        for required in ("name", "game", "format"):
            if not self[required]:
                raise usage.UsageError("create needs --%s" % (required,))
        if self["format"] not in formats.FORMATS:
            raise usage.UsageError("--format is one of " +
                                   ", ".join(formats.FORMATS))
        if self["players-per-table"] is None:
            self["players-per-table"] = 3 if self["game"] == "splendor" \
                else 2
        if self["openings"] is not None:
            self["openings"] = readOpenings(self["openings"])


def readOpenings(path: str) -> List[Any]:
    """
    The openings of C{path} (L{hub.wire.gomocup.parseOpenings}), or of the
    hub's own list for C{default}.

    @raise usage.UsageError: it cannot be read, or is not a list.
    """
    from hub.wire import gomocup
    if path == "default":
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "openings.txt")
    try:
        with open(path, encoding="utf-8") as f:
            openings = gomocup.parseOpenings(f)
    except (OSError, ValueError) as e:
        raise usage.UsageError("--openings: {}".format(e))
    if not openings:
        raise usage.UsageError("--openings: no opening in " + path)
    return openings


def _command(command: Sequence[str], required: bool) -> List[str]:
    command = list(command)
    if command and command[0] == "--":
        # The separator reaches a subcommand's arguments as given.
        command = command[1:]
    if required and not command:
        raise usage.UsageError("a command is needed after --")
    return command


def _seconds(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


class EngineRegisterOptions(ToolOptions):
    """
    C{engine register NAME [options] -- COMMAND...} (the options before
    or after NAME).
    """

    synopsis = "NAME [options] -- COMMAND..."

    #: How many words before the command are not options.
    leading = 1

    def parseOptions(self, options: Optional[Sequence[str]] = None) -> None:
        words = list(sys.argv[1:] if options is None else options)
        end = words.index("--") if "--" in words else len(words)
        head, command = words[:end], words[end:]
        valued = {"--" + p[0] for p in self.optParameters}
        flags: List[str] = []
        names: List[str] = []
        i = 0
        while i < len(head):
            word = head[i]
            if word.startswith("-") or len(names) >= self.leading:
                flags.append(word)
                if word in valued and i + 1 < len(head):
                    flags.append(head[i + 1])
                    i += 1
            else:
                names.append(word)
            i += 1
        super().parseOptions(flags + names + command)

    optParameters: List[List[Any]] = [
        ["protocol", None, "tcp", "How it plays: " + ", ".join(PROTOCOLS)
         + " (tcp: its game's own protocol, connecting to {host}:{port};"
         " gomocup: a Piskvork brain over stdin and stdout, gomoku "
         "only; stdio: JSON lines over stdin and stdout, any game)."],
        ["cpu-seconds", None, ENGINE_CPU_SECONDS, "Its CPU seconds per "
         "game (RLIMIT_CPU; 0: no limit).", _seconds],
        ["memory", None, str(ENGINE_MEMORY_BYTES), "Its memory per process "
         "(RLIMIT_AS): bytes, or with K, M or G (512M; 0: no limit)."],
        ["folder", None, None, "Its own files: shown read-only to it (at "
         "the same path) and where it starts."],
    ]

    def parseArgs(self, name: str, *command: str) -> None:
        self["name"] = name
        self["command"] = _command(command, True)

    def postOptions(self) -> None:
        if self["protocol"] not in PROTOCOLS:
            raise usage.UsageError("--protocol is one of " +
                                   ", ".join(PROTOCOLS))
        try:
            self["memory"] = catalog.parseSize(self["memory"])
        except ValueError as e:
            raise usage.UsageError("--memory: %s" % (e,))
        folder = self["folder"]
        if folder is not None:
            folder = os.path.abspath(folder)
            if not os.path.isdir(folder):
                raise usage.UsageError("--folder %s is no folder" % (
                    folder,))
            self["folder"] = folder


class EngineAddOptions(EngineRegisterOptions):
    """
    C{engine add EVENT NAME [options] [-- COMMAND...]}: enter a
    registered engine, or register it first.
    """

    synopsis = "EVENT NAME [options] [-- COMMAND...]"
    leading = 2

    # An engine's event comes first (usage.Options' way: parseArgs takes
    # each command's own words).
    def parseArgs(  # type: ignore[override]
            self, event: str, name: str, *command: str) -> None:
        self["event"] = _eventId(event)
        self["name"] = name
        self["command"] = _command(command, False)


class EngineNameOptions(ToolOptions):
    """
    C{engine remove NAME}.
    """

    synopsis = "NAME"

    def parseArgs(self, name: str) -> None:
        self["name"] = name


class EngineOptions(ToolOptions):
    """
    C{engine}: the engine catalog (the server's operator only).
    """

    subCommands = [
        ["register", None, EngineRegisterOptions,
         "Register (or change) an engine: its command line and limits."],
        ["add", None, EngineAddOptions,
         "Enter a registered engine in an event (with -- COMMAND, "
         "register it first)."],
        ["list", None, usage.Options, "The registered engines."],
        ["remove", None, EngineNameOptions, "Unregister an engine."],
    ]

    def postOptions(self) -> None:
        if self.subCommand is None:
            raise usage.UsageError("engine what? (register, add, list, "
                                   "remove)")


class StandingsOptions(_EventOptions):
    """
    C{standings EVENT [--csv]} (C{--csv} before or after C{EVENT}).
    """

    synopsis = "EVENT [--csv]"

    optFlags = [["csv", None, "As CSV: rank,name,points."]]

    def parseArgs(self, event: str, *rest: str) -> None:
        self["event"] = _eventId(event)
        for extra in rest:
            if extra != "--csv":
                raise usage.UsageError("unexpected %r" % (extra,))
            self["csv"] = True


class Options(DatabaseOptions):
    """
    C{python -m hub.tournaments}.
    """

    tool = "hub.tournaments"
    longdesc = DESCRIPTION
    optParameters = [databaseOption()]
    subCommands = [
        ["create", None, CreateOptions, "Create an event; prints its id."],
        ["engine", None, EngineOptions, "engine register|add|list|remove: "
         "the engine catalog."],
        ["enter", None, EnterOptions, "Enter an account."],
        ["withdraw", None, _EntrantOptions, "Withdraw an entrant."],
        ["start", None, _EventOptions, "Start the event."],
        ["pause", None, _EventOptions, "Pause it (games under way end)."],
        ["resume", None, _EventOptions, "Resume a paused event."],
        ["standings", None, StandingsOptions, "The standings."],
        ["export", None, ExportOptions, "The event as JSON, or its "
         "gomoku games as Piskvork records (--psq DIR)."],
    ]

    noDatabase = "--db none keeps no events"
    program = "hub.tournaments"


def run(options: Options, out: TextIO) -> None:
    """
    Run the command of C{options}, writing to C{out}.

    @raise store.TournamentError: the command was refused.
    """
    url = options["url"]
    command, sub = options.subCommand, options.subOptions
    prepared(url)
    now = time.time()
    if command == "create":
        eventId = store.runBlocking(
            url, store.createEvent, sub["name"], sub["game"], sub["format"],
            sub["rounds"], sub["minutes"], sub["players-per-table"],
            sub["turn-seconds"], now, sub["turn-ms"], sub["match-ms"],
            bool(sub["pondering"]), sub["openings"] or ())
        out.write("created %s event %r (%s)\n%d\n" % (
            sub["format"], sub["name"], sub["game"], eventId))
    elif command == "engine":
        runEngine(url, sub.subCommand, sub.subOptions, now, out)
    elif command == "enter":
        name = store.runBlocking(url, store.enter, sub["event"], sub["name"],
                                 now, None, bool(sub["guest"]))
        out.write("%s entered event %d%s\n" % (
            name, sub["event"], " as a guest" if sub["guest"] else ""))
    elif command == "withdraw":
        store.runBlocking(url, store.withdraw, sub["event"], sub["name"])
        out.write("%s withdrew from event %d\n" % (sub["name"],
                                                  sub["event"]))
    elif command in ("start", "pause", "resume"):
        event = store.runBlocking(url, store.requestState, sub["event"],
                                  command, now)
        out.write("event %d is %s\n" % (event.id, event.state))
    elif command == "standings":
        snap = store.runBlocking(url, store.snapshot, sub["event"])
        if sub["csv"]:
            out.write(views.standingsCSV(snap))
        else:
            for line in views.eventStandings(snap):
                out.write("%3d. %-24s %s\n" % (
                    line.rank, line.name, views.formatPoints(line.points)))
    elif command == "export" and sub["psq"]:
        records = store.runBlocking(url, psqexport.eventGomokuGames,
                                    sub["event"])
        paths = psqexport.writePsq(records, sub["psq"], sub["event"])
        out.write("%d games written to %s\n" % (len(paths) - 1,
                                                sub["psq"]))
    elif command == "export":
        snap = store.runBlocking(url, store.snapshot, sub["event"])
        json.dump(views.eventJSON(snap), out, indent=1, sort_keys=True)
        out.write("\n")


def _register(cursor: Any, options: usage.Options, now: float) -> Any:
    return catalog.register(
        cursor, options["name"], options["command"], now, options["folder"],
        options["protocol"], options["cpu-seconds"], options["memory"])


def _registerAndEnter(cursor: Any, options: usage.Options,
                      now: float) -> str:
    if options["command"]:
        _register(cursor, options, now)
    return store.enter(cursor, options["event"], options["name"], now,
                       options["name"])


def runEngine(url: Any, command: str, options: usage.Options, now: float,
              out: TextIO) -> None:
    """
    Run C{engine COMMAND}.
    """
    if command == "register":
        spec = store.runBlocking(url, _register, options, now)
        out.write("engine %s registered: %s\n" % (spec.name,
                                                   describe(spec)))
    elif command == "add":
        name = store.runBlocking(url, _registerAndEnter, options, now)
        out.write("%s entered event %d as an engine\n" % (name,
                                                         options["event"]))
    elif command == "list":
        for spec in store.runBlocking(url, catalog.engines):
            out.write("%s: %s\n    %s\n" % (spec.name, describe(spec),
                                            shlex.join(spec.command)))
    elif command == "remove":
        store.runBlocking(url, catalog.unregister, options["name"])
        out.write("engine %s removed\n" % (options["name"],))


def describe(spec: Any) -> str:
    """
    An engine's protocol, limits and folder, in words.
    """
    return "%s, %s CPU seconds, %s bytes of memory%s" % (
        spec.protocol, spec.cpuSeconds or "no limit of",
        spec.memoryBytes or "no limit of",
        ", in " + spec.folder if spec.folder else "")


def main(argv: Optional[List[str]] = None,
         out: Optional[TextIO] = None) -> None:
    """
    The command-line entry point.
    """
    output = sys.stdout if out is None else out
    Tool("hub.tournaments", DATABASE_ERRORS + (store.TournamentError,)).main(
        Options(), sys.argv[1:] if argv is None else argv,
        lambda options: run(options, output))


__all__ = ["main", "Options"]
