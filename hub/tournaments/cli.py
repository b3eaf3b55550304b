"""
C{python -m hub.tournaments}: tournament events, run from the command line.
The hub serving the same database runs them: it picks up a start or a
pause within 2 seconds.

    python -m hub.tournaments --db URL create --name NAME --game KIND
        --format round-robin|swiss|arena [--rounds N] [--minutes M]
        [--players-per-table N] [--turn-seconds S]
    python -m hub.tournaments --db URL engine add EVENT ENTRANT -- COMMAND...
    python -m hub.tournaments --db URL enter [--guest] EVENT ACCOUNT
    python -m hub.tournaments --db URL withdraw EVENT ACCOUNT
    python -m hub.tournaments --db URL start|pause|resume EVENT
    python -m hub.tournaments --db URL standings EVENT --csv
    python -m hub.tournaments --db URL export EVENT

C{create} prints the new event's id on its last line; C{standings --csv}
prints C{rank,name,points} and one line per entrant, best first;
C{export} prints the event as JSON.  An engine's command line may use
the placeholders C{{host} {port} {room} {name} {key}}.
"""

from __future__ import annotations

import json
import sys
import time
from typing import List, Optional, TextIO

from twisted.python import usage

from hub.commandline import (
    Tool, ToolOptions, argumentNumber, firstParagraph)
from hub.records.cli import (
    DATABASE_ERRORS, DatabaseOptions, databaseOption, prepared)
from hub.tournaments import formats, store, views

DESCRIPTION = firstParagraph(__doc__)


def _eventId(value: str) -> int:
    return argumentNumber("EVENT (an event's id)", value)


class _EventOptions(ToolOptions):
    """
    A command on one event: C{EVENT}.
    """

    synopsis = "EVENT"

    def parseArgs(self, event: str) -> None:
        self["event"] = _eventId(event)


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
                "[--turn-seconds S]")

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


class EngineAddOptions(ToolOptions):
    """
    C{engine add EVENT ENTRANT -- COMMAND...}.
    """

    synopsis = "EVENT ENTRANT -- COMMAND..."
    longdesc = ("Register an engine entrant's command line (admins only); "
                "it may use the placeholders {host} {port} {room} {name} "
                "{key}.")

    def parseArgs(self, event: str, entrant: str, *command: str) -> None:
        self["event"] = _eventId(event)
        self["name"] = entrant
        if command and command[0] == "--":
            # The separator reaches a subcommand's arguments as given.
            command = command[1:]
        if not command:
            raise usage.UsageError("engine add needs a command after --")
        self["command"] = list(command)


class EngineOptions(ToolOptions):
    """
    C{engine}: engine entrants (admins only).
    """

    subCommands = [["add", None, EngineAddOptions,
                    "Register an engine entrant's command line."]]

    def postOptions(self) -> None:
        if self.subCommand is None:
            raise usage.UsageError("engine what? (engine add)")


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
        ["engine", None, EngineOptions, "engine add: an engine entrant."],
        ["enter", None, EnterOptions, "Enter an account."],
        ["withdraw", None, _EntrantOptions, "Withdraw an entrant."],
        ["start", None, _EventOptions, "Start the event."],
        ["pause", None, _EventOptions, "Pause it (games under way end)."],
        ["resume", None, _EventOptions, "Resume a paused event."],
        ["standings", None, StandingsOptions, "The standings."],
        ["export", None, _EventOptions, "The event as JSON."],
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
            sub["turn-seconds"], now)
        out.write("created %s event %r (%s)\n%d\n" % (
            sub["format"], sub["name"], sub["game"], eventId))
    elif command == "engine":
        add = sub.subOptions
        name = store.runBlocking(url, store.enter, add["event"],
                                 add["name"], now, add["command"])
        out.write("%s entered event %d as an engine\n" % (name,
                                                         add["event"]))
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
    elif command == "export":
        snap = store.runBlocking(url, store.snapshot, sub["event"])
        json.dump(views.eventJSON(snap), out, indent=1, sort_keys=True)
        out.write("\n")


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
