"""
The bot client: bots that play gamehub's games over the real wire
protocols, one connection per bot (C{python -m hub.bots}; docs/bots.md).

The client-side protocol logic is L{hub.client}, which the desktop client
shares: L{hub.client.net} frames and decodes with L{hub.wire}, the
C{hub.client.state_*} machines follow the lobby and the game,
L{hub.client.lobbyflow} enters the room, readies and starts, and
L{hub.client.autoplay.AutoPlayer} plays the bot's turns.  This module
only adds a team of bots, their names (kept from game to game, asked
again once when taken, then the next team's seats), the games loop and
the result lines.  Every step waits for an event, bounded
(L{hub.client.net.ANSWER_SECONDS}, C{--timeout}); a failure is one line
on standard error and exit status 1.
"""

import argparse
import os
import random
import re
import sys
from typing import (
    Any, Generator, Iterable, List, Mapping, Optional, Sequence, cast)

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IProtocol
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.bots import botFor
from hub.client import events as E
from hub.client import net
from hub.client import state as S
from hub.client.autoplay import AutoPlayer
from hub.client.keyed import KEY_SEPARATORS, keyedName, plainName

#: The environment variable of C{--key-env} (the tournament engine
#: runner's, L{hub.tournaments.commands.KEY_VARIABLE}).
KEY_VARIABLE = "GAMEHUB_KEY"
from hub.client.lobbyflow import RENAME_SECONDS, LobbyFlow
from hub.client.machines import GameState, stateFor
from hub.client.net import parseURL
from hub.client.state_gomoku import resultText
from hub.wire import gomoku as gomokuWire

#: Seconds a bot waits for the server to confirm that it left (gomoku:
#: the room exit) before it just closes its connection.
LEAVE_SECONDS = 10
#: Exit status of a failed run.
FAILED = 1
#: Gomoku: names tried after the first when a name is taken.
NAME_TRIES = 10
#: A name prefix: letters, digits and C{_}, short enough that the seat
#: number fits the checkers limit of 20 characters.
NAME_PREFIX = re.compile(r"^[A-Za-z0-9_]{1,16}$")


def botNames(prefix: str, seat: int, count: int,
             tries: int = NAME_TRIES) -> List[str]:
    """
    The names a bot of seat C{seat} (from 1) in a team of C{count} asks
    for, in order: its own, again, then the seats of the next teams.
    """
    own = "%s%d" % (prefix, seat)
    return [own, own] + ["%s%d" % (prefix, seat + k * count)
                         for k in range(1, tries + 1)]


class BotFailed(Exception):
    """
    A bot could not play its game to the end; the message says why.
    """


class BotPlayer:
    """
    One bot: a connection, the game's client state machine, an
    L{AutoPlayer} with the bot's strategy, and the lobby steps.

    @ivar name: the player name (gomoku and checkers).
    @ivar state: the L{hub.client.state.ClientState}.
    @ivar lobby: the L{LobbyFlow} that enters the room, readies and
        starts.
    @ivar entered: a Deferred firing with True once the bot is in its
        room (or at its table), with False if it failed before.
    @ivar done: a Deferred firing with the state once the game is over,
        or failing with L{BotFailed}.
    """

    log = Logger()

    def __init__(self, reactor: Any, kind: str, host: str, port: int,
                 name: str, level: int, seed: int = 0,
                 room: Optional[str] = None, team: int = 1,
                 creator: bool = False, delay: float = 0.0,
                 otherNames: Iterable[str] = ()) -> None:
        """
        @param otherNames: the names to ask for, in order, when C{name}
            is taken (gomoku: on the hub; checkers: in the room).
        """
        self.reactor = reactor
        self.kind = kind
        self.host = host
        self.port = port
        self.name = name
        self.room = room
        self.team = team
        self.creator = creator
        # (Any: each game's fields are read after a look at the kind)
        self.state: Any = stateFor(kind, name)
        self.autoplay = AutoPlayer(self.state, reactor, level,
                                   bot=botFor(kind, level, seed),
                                   delay=delay)
        self.entered: Deferred[bool] = defer.Deferred()
        self.done: Deferred[GameState] = defer.Deferred()
        self._otherNames = list(otherNames)
        self._protocol: Any = None  # the connected protocol
        self._leaving: Optional[Deferred[None]] = None
        self._leaveTimer: Optional[IDelayedCall] = None
        self._rename: Optional[IDelayedCall] = None
        self.state.subscribe(self._event)
        self.lobby = LobbyFlow(self.state, reactor, room, team=team,
                               create=creator,
                               mayCreate=creator or team == 1, delay=0,
                               onFailed=self._fail,
                               nextName=self._nextName)

    @property
    def address(self) -> str:
        return "%s:%d" % (self.host, self.port)

    def start(self) -> "Deferred[GameState]":
        """
        Connect; L{entered} fires when in the room, L{done} when the game
        is over.

        @return: L{done}.
        """
        d = net.connect(self.reactor, self.kind, self.host, self.port,
                        self.state, clock=self.reactor)
        d.addCallback(self._connected)
        d.addErrback(self._connectFailed)
        return self.done

    def stop(self) -> None:
        """
        Stop playing and close the connection at once.
        """
        self.autoplay.setEnabled(False)
        self.lobby.stop()
        if self._rename is not None and self._rename.active():
            self._rename.cancel()
        if self._protocol is not None and self._protocol.transport:
            self._protocol.transport.loseConnection()

    def leave(self) -> "Deferred[None]":
        """
        Leave the server after the game: a gomoku bot exits its room
        first, so that the room is gone before the next game; then the
        connection is closed.

        @return: a Deferred firing once the connection is closed.
        """
        if self._leaving is not None:
            return self._leaving
        self._leaving = defer.Deferred()
        self.autoplay.setEnabled(False)
        self.lobby.stop()
        if not self.state.connected:
            self._leaving.callback(None)
            return self._leaving
        self._leaveTimer = self.reactor.callLater(LEAVE_SECONDS, self.stop)
        if self.kind == "gomoku" and self.state.room is not None:
            self.state.exitRoom()
        else:
            self.stop()
        return self._leaving

    def expire(self, seconds: float) -> None:
        """
        C{seconds} went by without the end of the game: fail, saying
        what we were waiting for.
        """
        st = self.state
        if st.phase == S.GAME:
            reason = "the game did not end within %d s" % (seconds,)
        elif self.kind == "splendor":
            reason = ("no game started at the table within %d s: waiting "
                      "for players" % (seconds,))
        elif st.phase in (S.ROOM, S.OVER):
            reason = ("no game started in room %r within %d s: waiting "
                      "for players" % (self.room, seconds))
        else:
            reason = "could not enter room %r within %d s" % (self.room,
                                                              seconds)
        self._fail(reason)

    def _connected(self, protocol: IProtocol) -> None:
        self._protocol = protocol
        self.autoplay.setEnabled(True)

    def _connectFailed(self, reason: Failure) -> None:
        self._fail("cannot connect to %s: %s" % (
            self.address, net.connectError(reason)))

    def _fail(self, text: str) -> None:
        if not self.entered.called:
            self.entered.callback(False)
        if not self.done.called:
            self.done.errback(BotFailed(text))

    def _event(self, event: object) -> None:
        st = self.state
        if self._leaving is not None:
            if isinstance(event, E.PhaseChanged) and event.new == S.LOBBY:
                self.stop()   # the room exit is confirmed
            elif isinstance(event, E.Disconnected):
                # (connected when it left: the timer is set)
                assert self._leaveTimer is not None
                if self._leaveTimer.active():
                    self._leaveTimer.cancel()
                if not self._leaving.called:
                    self._leaving.callback(None)
            return
        if isinstance(event, E.WrongServer):
            self._fail("%s %s: is it a %s port?" % (
                self.address, event.reason, self.kind))
            return
        if isinstance(event, E.RegisterFailed):
            self._registerFailed(event.status)
        elif isinstance(event, E.PhaseChanged):
            new = event.new
            if new == S.OVER and not self.done.called:
                self.done.callback(st)
            elif new == S.CLOSED:
                self._fail("the connection closed before the game ended")
        elif isinstance(event, E.Disconnected) and not self.done.called:
            self._fail("the connection closed before the game ended")
        if st.phase == S.ROOM and not self.entered.called:
            self.entered.callback(True)

    def _nextName(self) -> Optional[str]:
        """
        Checkers: our join was refused (the name may be taken in the
        room): the next name to try, or None.
        """
        if not self._otherNames:
            return None
        name = self._otherNames.pop(0)
        self.log.info("bot name {old!r} refused: trying {new!r}",
                      old=self.name, new=name)
        self.name = name
        return name

    def _registerFailed(self, status: int) -> None:
        """
        Gomoku: our name was refused; ask for the next one, if it was
        taken and another is left.
        """
        if status != gomokuWire.S_PLAYER_EXISTS or not self._otherNames:
            # (A keyed name shows only its plain part: the key, even a
            # mistyped one, is printed nowhere.)
            self._fail("could not register as %r: %s"
                       % (plainName(self.name), resultText(status)))
            return
        name = self._otherNames.pop(0)
        self.log.info("bot name {old!r} is taken: trying {new!r}",
                      old=self.name, new=name)
        self.name = name
        self._rename = self.reactor.callLater(
            RENAME_SECONDS, self.state.register, name)


def describe(kind: str, bots: Sequence[BotPlayer]) -> str:
    """
    A one-line result of a finished game, from the bots' states.
    """
    if kind == "gomoku":
        parts = ["%s %s" % (b.name, b.state.result) for b in bots]
        moves = max(b.state.moveCount for b in bots)
        return "gomoku room %s: %s after %d moves" % (
            bots[0].room, ", ".join(parts), moves)
    if kind == "checkers":
        ranking = bots[0].state.ranking or []
        return "checkers room %s: ranking %s" % (bots[0].room,
                                                 " ".join(ranking))
    st = bots[0].state
    ids = {b.state.myId: b.name for b in bots}
    points = ""
    if st.table is not None:
        points = " points " + " ".join(
            "%s:%d" % (ids.get(pid, pid), st.table.points(seat))
            for seat, pid in enumerate(st.sequence))
    return "splendor: winner %s (player %s)%s" % (
        ids.get(st.winnerId, "another player"), st.winnerId, points)


@defer.inlineCallbacks
def playGame(
        reactor: Any, kind: str, host: str, port: int, count: int, level: int,
        room: Optional[str], seed: int, delay: float, timeout: float,
        prefix: str, names: Optional[List[Optional[str]]] = None,
        keyed: Optional[str] = None) -> Generator["Deferred[Any]", Any, str]:
    """
    Connect C{count} bots, play one game, leave.  A lone bot plays as
    C{keyed} when given (the keyed name of an account, L{keyedName}).

    A gomoku team's creator goes first; the other bot starts once the
    room exists.

    @param prefix: the bots' name prefix: seat C{n} (from 1) is called
        C{prefix + str(n)} (see L{botNames}).
    @param names: the names the bots had in the run's last game, by
        seat, or None; updated with the names they play under.
    @return: a Deferred firing with the one-line result, or failing with
        L{BotFailed}.
    """
    if keyed is not None and count == 1:
        # The account's own name, proven with its key: no other name.
        bots = [BotPlayer(reactor, kind, host, port, keyed, level,
                          seed=seed, room=room, team=count, creator=False,
                          delay=delay, otherNames=[])]
    else:
        if names is None:
            names = [None] * count
        bots = []
        for i in range(count):
            wanted = botNames(prefix, i + 1, count)
            last = names[i]
            if last is not None and last != wanted[0]:
                wanted = [last, last] + wanted
            bots.append(BotPlayer(
                reactor, kind, host, port, wanted[0], level, seed=seed + i,
                room=room, team=count, creator=(i == 0 and count > 1),
                delay=delay, otherNames=wanted[1:]))

    def expire() -> None:
        for b in bots:
            b.expire(timeout)
    timer = reactor.callLater(timeout, expire)
    try:
        if kind == "gomoku" and count > 1:
            creator = bots[0].start()
            if not (yield bots[0].entered):
                yield creator    # raises its BotFailed
            dones = [creator] + [b.start() for b in bots[1:]]
        else:
            dones = [b.start() for b in bots]
        try:
            yield defer.gatherResults(dones, consumeErrors=True)
        except defer.FirstError as e:
            raise cast(BaseException, e.subFailure.value)
    except BotFailed:
        for b in bots:
            b.stop()
        raise
    finally:
        if timer.active():
            timer.cancel()
    if names is not None:
        names[:] = [b.name for b in bots]
    yield defer.gatherResults([b.leave() for b in bots])
    return describe(kind, bots)


def makeParser() -> argparse.ArgumentParser:
    """
    The argument parser of C{python -m hub.bots}.
    """
    p = argparse.ArgumentParser(
        prog="python -m hub.bots",
        description="Bots that play gamehub's games over the network.")
    p.add_argument("url", help="gomoku://HOST:PORT, checkers://HOST:PORT "
                               "or splendor://HOST:PORT")
    p.add_argument("--count", type=int, default=None,
                   help="bots to connect (default 2, or 1 with a key; 1 "
                        "joins a room that people are in)")
    p.add_argument("--level", type=int, default=2, choices=(1, 2, 3),
                   help="1 random, 2 heuristic, 3 search (default 2)")
    p.add_argument("--room", default=None,
                   help="room to join or create (gomoku, checkers)")
    p.add_argument("--games", type=int, default=1,
                   help="games to play one after the other (default 1)")
    p.add_argument("--name", default=None,
                   help="name prefix of the bots, followed by the seat: "
                        "bot2_1, bot2_2... (default bot<level>_); letters, "
                        "digits and _, at most 16; with --key or "
                        "--key-env, the account's name, exactly")
    p.add_argument("--key", default=None,
                   help="play key of the account --name (one bot, "
                        "--count 1): the bot sends NAME__KEY (checkers) "
                        "or NAME#KEY (gomoku); empty for none")
    p.add_argument("--key-env", action="store_true",
                   help="take the play key from the environment variable "
                        "%s, as a tournament's engine runner sets it "
                        "(other local users can see a command line, "
                        "not an environment); unset or empty for none"
                        % (KEY_VARIABLE,))
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the bots' strategies, the same for every "
                        "game (default: a new random seed per game)")
    p.add_argument("--delay", type=float, default=0.2,
                   help="seconds a bot waits before each action "
                        "(default 0.2)")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds allowed per game (default 900)")
    return p


def ownName(options: argparse.Namespace, kind: str,
            environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """
    Settle C{options.key} (from C{--key}, or with C{--key-env} from
    L{KEY_VARIABLE} in C{environ}, default the process's; an empty one
    is none) and C{options.count} (default 2, or 1 with a key option),
    and give the one name the bot plays under: with a key option and a
    game of names, C{--name} exactly, keyed with the key if there is
    one (an empty key: a tournament's C{{key}} where the hub checks no
    names).

    @return: that name, or None for the prefix and seat names.
    @raise SystemExit: the options contradict each other.
    """
    keyed = options.key is not None or options.key_env
    if options.key_env:
        if options.key is not None:
            raise SystemExit("python -m hub.bots: --key or --key-env, "
                             "not both")
        environ = os.environ if environ is None else environ
        options.key = environ.get(KEY_VARIABLE)
    if not options.key:
        options.key = None
    if options.count is None:
        # A key is one account's: one bot.
        options.count = 1 if keyed else 2
    if options.key is not None and kind not in KEY_SEPARATORS:
        raise SystemExit("python -m hub.bots: %s players have no "
                         "names: no --key" % (kind,))
    if not keyed or kind not in KEY_SEPARATORS:
        return None
    if options.count != 1 or not options.name:
        raise SystemExit("python -m hub.bots: --key needs --count 1 "
                         "and --name (the account's name)")
    if options.key is None:
        return options.name
    return keyedName(kind, options.name, options.key)


def gameSeeds(seed: Optional[int], games: int,
              rng: Optional[random.Random] = None) -> List[int]:
    """
    The seed of each of C{games} games: C{seed} every time when given
    (the run can be replayed), else a new random one per game.
    """
    if seed is not None:
        return [seed] * games
    rng = rng or random.SystemRandom()
    return [rng.randrange(2 ** 31) for _ in range(games)]


@defer.inlineCallbacks
def main(reactor: Any, *argv: str) -> Generator["Deferred[Any]", Any, None]:
    """
    Run the bot client (for L{twisted.internet.task.react}).

    A failure is printed as one line on standard error and ends the run
    with exit status 1 (L{SystemExit}).
    """
    options = makeParser().parse_args(argv)
    try:
        kind, host, port = parseURL(options.url)
    except ValueError as e:
        raise SystemExit("python -m hub.bots: %s" % (e,))
    if options.count is not None and options.count < 1:
        raise SystemExit("python -m hub.bots: --count must be at least 1")
    prefix = options.name or "bot%d_" % (options.level,)
    if not NAME_PREFIX.match(prefix):
        raise SystemExit("python -m hub.bots: --name must be 1 to 16 "
                         "letters, digits or _")
    name = ownName(options, kind)
    room = options.room or ("bots_%d" % (os.getpid(),)
                            if kind != "splendor" else None)
    if kind == "gomoku" and options.count > 2:
        raise SystemExit("python -m hub.bots: a gomoku room holds 2")
    seeds = gameSeeds(options.seed, options.games)
    names: List[Optional[str]] = [None] * options.count
    for number, seed in enumerate(seeds, 1):
        try:
            line = yield playGame(
                reactor, kind, host, port, options.count, options.level,
                room, seed, options.delay, options.timeout, prefix, names,
                name)
        except BotFailed as e:
            sys.stdout.flush()
            print("python -m hub.bots: game %d failed: %s" % (number, e),
                  file=sys.stderr)
            raise SystemExit(FAILED)
        if name is not None:
            # The key is printed nowhere: the line shows the plain name.
            line = line.replace(name, options.name)
        print("game %d: %s" % (number, line))
        sys.stdout.flush()
