"""
C{python -m hub.accounts}: the operator's accounts, from the command line,
against the hub's C{--db} (created or migrated as the hub does it, so it
works before the hub ever ran and while it runs).

    python -m hub.accounts --db URL add NAME [--role admin|moderator]
    python -m hub.accounts --db URL key|passwd|list|audit|invite ...

Each command, what it reads and what it prints: docs/accounts.md (its
opening section).  A key, a token or an invite code is printed only on
the last line of the command that made it (C{key: KEY}, C{token: TOKEN},
C{invite: CODE}); no command prints a password or a hash.
"""

import getpass
import re
import sys
from typing import Any, Generator, List, Mapping, Optional, TextIO

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.python import usage

from hub.accounts.model import Accounts
from hub.accounts.store import AccountError
from hub.accounts.websessions import WebSessions
from hub.catalogs import N_
from hub.commandline import Tool, firstParagraph
from hub.records import db
from hub.records.cli import (
    DATABASE_ERRORS, Command, DatabaseOptions, databaseOption, prepared)
from hub.records.notation import utc

DESCRIPTION = firstParagraph(__doc__)
_DURATION = re.compile(r"^(\d+)([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


#: What a duration is, said when one is not (a template of the web's
#: catalogs: C{/admin} says it in the page's language).
DURATION_WORDS = N_("a duration is a number and s, m, h or d, as in 30s, "
                    "10m, 2h, 7d")


def parseDuration(value: str) -> int:
    """
    C{30s}, C{10m}, C{2h} or C{7d} in seconds.

    @raise ValueError: for anything else (L{DURATION_WORDS}).
    """
    match = _DURATION.match(value.strip())
    if match is None or int(match.group(1)) == 0:
        raise ValueError(DURATION_WORDS)
    return int(match.group(1)) * _UNITS[match.group(2)]


class AddOptions(Command):
    synopsis = "NAME [--role admin|moderator]"
    optParameters = [["role", None, "player",
                      "player, moderator or admin."]]

    def parseArgs(self, name: str) -> None:
        self["name"] = name


class NameOptions(Command):
    synopsis = "NAME"

    def parseArgs(self, name: str) -> None:
        self["name"] = name


class RoleOptions(Command):
    synopsis = "NAME ROLE"

    def parseArgs(self, name: str, role: str) -> None:
        self["name"] = name
        self["role"] = role


class DisplayNameOptions(Command):
    synopsis = "NAME [TEXT]"

    def parseArgs(self, name: str, text: Optional[str] = None) -> None:
        self["name"] = name
        self["text"] = text


class BanOptions(Command):
    synopsis = "NAME-or-CIDR --for DURATION --reason TEXT"
    optParameters = [
        ["for", None, None, "How long: 30s, 10m, 2h, 7d.", parseDuration],
        ["reason", None, None, "Why (kept in the audit)."],
    ]

    def parseArgs(self, target: str) -> None:
        self["target"] = target

    def postOptions(self) -> None:
        if self["for"] is None or not self["reason"]:
            raise usage.UsageError("ban needs --for DURATION and --reason")


class UnbanOptions(Command):
    synopsis = "NAME-or-CIDR"

    def parseArgs(self, target: str) -> None:
        self["target"] = target


class NoOptions(Command):
    synopsis = ""


def _days(value: str) -> float:
    try:
        days = float(value)
    except ValueError:
        raise usage.UsageError("--days is a number of days")
    if not 0 < days <= 3650:
        raise usage.UsageError("--days is more than 0, at most 3650")
    return days


class TokenOptions(Command):
    synopsis = "NAME [--days DAYS] [--label TEXT]"
    optParameters = [
        ["days", None, 30, "Days until the token expires.", _days],
        ["label", None, "", "A name for the token, shown in the lists."],
    ]

    def parseArgs(self, name: str) -> None:
        self["name"] = name


class RevokeOptions(Command):
    synopsis = "ID"

    def parseArgs(self, tokenId: str) -> None:
        self["id"] = tokenId


class Options(DatabaseOptions):
    """
    C{python -m hub.accounts} options.
    """

    tool = "hub.accounts"
    longdesc = DESCRIPTION
    optParameters = [databaseOption()]
    subCommands = [
        ["add", None, AddOptions, "Register an account; prints its key."],
        ["key", None, NameOptions, "Make a new play key; prints it."],
        ["passwd", None, NameOptions, "Change a password."],
        ["role", None, RoleOptions, "Set a role: player, moderator, admin."],
        ["display-name", None, DisplayNameOptions, "Set (\"\" clears) or "
         "print an account's display name."],
        ["ban", None, BanOptions, "Ban an account or addresses."],
        ["unban", None, UnbanOptions, "Lift a ban."],
        ["list", None, NoOptions, "The accounts and address bans."],
        ["audit", None, NoOptions, "The last moderation actions."],
        ["token", None, TokenOptions, "Make an admin API token; prints "
         "it."],
        ["tokens", None, NoOptions, "The admin API tokens (never the "
         "tokens)."],
        ["revoke-token", None, RevokeOptions, "Revoke an admin API token "
         "by its id."],
        ["invite", None, NoOptions, "Make an invite code; prints it."],
    ]

    noDatabase = "--db none keeps no accounts"


def readPassword(stdin: TextIO) -> str:
    """
    The password: standard input's first line when it is not a terminal,
    else asked twice without echo.
    """
    if not stdin.isatty():
        password = stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            raise AccountError(N_("the passwords differ"))
    if not password:
        raise AccountError(N_("the password is empty"))
    return password


def _when(moment: Optional[float]) -> str:
    return utc(moment) if moment is not None else "-"


@defer.inlineCallbacks
def displayNameCommand(accounts: Accounts, sub: Mapping[str, Any],
                       out: TextIO) -> Generator[Deferred[Any], Any, None]:
    """
    C{display-name NAME [TEXT]}: set, clear (C{""}) or print the display
    name of an account.
    """
    name, text = sub["name"], sub["text"]
    if text is None:
        shown = yield accounts.displayName(name)
        out.write("{}: {}\n".format(name, shown if shown is not None
                                    else "no display name"))
        return
    shown = yield accounts.setDisplayName(name, text)
    if shown is None:
        out.write("display name of {} cleared\n".format(name))
    else:
        out.write("display name of {} is now {}\n".format(name, shown))


@defer.inlineCallbacks
def run(reactor: Any, options: Options, out: TextIO,
        stdin: TextIO) -> Generator[Deferred[Any], Any, None]:
    """
    Run the command C{options} (parsed L{Options}) writing to C{out}.
    """
    url = options["url"]
    prepared(url)
    database = db.Database(url, reactor)
    try:
        accounts = Accounts(database, reactor)
        command, sub = options.subCommand, options.subOptions
        if command == "add":
            password = readPassword(stdin)
            key = yield accounts.add(sub["name"], password, sub["role"])
            out.write("added {} ({})\n".format(sub["name"], sub["role"]))
            out.write("key: {}\n".format(key))
        elif command == "key":
            key = yield accounts.newKey(sub["name"])
            out.write("key: {}\n".format(key))
        elif command == "passwd":
            yield accounts.setPassword(sub["name"], readPassword(stdin))
            out.write("password of {} changed\n".format(sub["name"]))
        elif command == "role":
            yield accounts.setRole(sub["name"], sub["role"])
            out.write("{} is {}\n".format(sub["name"], sub["role"]))
        elif command == "display-name":
            yield displayNameCommand(accounts, sub, out)
        elif command == "ban":
            yield accounts.ban(sub["target"], sub["for"], sub["reason"])
            out.write("banned {} for {}s\n".format(sub["target"],
                                                   sub["for"]))
        elif command == "unban":
            yield accounts.unban(sub["target"])
            out.write("unbanned {}\n".format(sub["target"]))
        elif command == "list":
            found, bans = yield accounts.list()
            out.write("{:<10} {:<10} {:<20} {:<20} {}\n".format(
                "name", "role", "created", "last seen", "banned until"))
            for a in found:
                ban = "-"
                if a.bannedUntil is not None and a.bannedUntil > \
                        reactor.seconds():
                    ban = "{} ({})".format(utc(a.bannedUntil), a.banReason)
                out.write("{:<10} {:<10} {:<20} {:<20} {}\n".format(
                    a.name, a.role, _when(a.createdAt), _when(a.lastSeen),
                    ban))
            for b in bans:
                out.write("address {} banned until {} ({})\n".format(
                    b.cidr, utc(b.until), b.reason))
        elif command == "token":
            token = yield WebSessions(database, reactor).newToken(
                sub["name"], seconds=sub["days"] * 86400,
                label=sub["label"])
            out.write("token: {}\n".format(token))
        elif command == "tokens":
            found = yield WebSessions(database, reactor).tokens()
            out.write("{:<12} {:<10} {:<12} {:<20} {:<20} {}\n".format(
                "id", "name", "label", "created", "last used", "expires"))
            for t in found:
                expiry = _when(t.expiresAt)
                if t.expiresAt is not None and \
                        t.expiresAt <= reactor.seconds():
                    expiry += " (expired)"
                out.write("{:<12} {:<10} {:<12} {:<20} {:<20} {}\n".format(
                    t.tokenId, t.name, t.label or "-", _when(t.createdAt),
                    _when(t.lastUsed), expiry))
        elif command == "revoke-token":
            name = yield WebSessions(database, reactor).revokeToken(
                sub["id"])
            out.write("revoked token {} of {}\n".format(sub["id"], name))
        elif command == "invite":
            code = yield WebSessions(database, reactor).newInvite()
            out.write("invite: {}\n".format(code))
        elif command == "audit":
            for e in (yield accounts.audit()):
                line = "{}  {:<8} {:<13} {:<18} {}".format(
                    utc(e.at), e.actor, e.action, e.target, e.reason)
                if e.address:
                    line += " (from {})".format(e.address)
                out.write(line.rstrip() + "\n")
    finally:
        database.close()


def main(argv: Optional[List[str]] = None, out: Optional[TextIO] = None,
         stdin: Optional[TextIO] = None) -> None:
    """
    The command-line entry point.
    """
    out = sys.stdout if out is None else out
    stdin = sys.stdin if stdin is None else stdin
    Tool("hub.accounts", DATABASE_ERRORS + (AccountError,)).react(
        Options(), sys.argv[1:] if argv is None else argv,
        lambda reactor, options: run(reactor, options, out, stdin))
