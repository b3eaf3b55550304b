"""
The bot client: bots that play gamehub's games over the real wire
protocols, one connection per bot.

    python -m hub.bots gomoku://HOST:PORT --count 2 --level 2
    python -m hub.bots checkers://HOST:PORT --room R --count 3 --level 2
    python -m hub.bots splendor://HOST:PORT --count 4 --level 2

The client-side protocol logic is L{hub.client}, which the desktop client
shares: L{hub.client.net} frames and decodes with L{hub.wire}, the
C{hub.client.state_*} machines follow the lobby and the game, and
L{hub.client.pilot.AutoPlayer} plays the bot's turns.  This module
only adds the lobby steps of a team of bots (create or join, ready,
start), the games loop and the result lines.

Every step waits for an event (a reply, a room update, a closed
connection), each bounded: a server that does not answer within
L{hub.client.net.ANSWER_SECONDS}, a game that has not ended after
C{--timeout}.  A failure is one line on standard error and exit
status 1.
"""

import argparse
import os
import random
import sys

from twisted.internet import defer
from twisted.logger import Logger

from hub.bots import botFor
from hub.client import net
from hub.client import state as S
from hub.client.net import parseURL
from hub.client.pilot import AutoPlayer
from hub.client.session import Options, makeState
from hub.client.state_gomoku import resultText
from hub.wire import gomoku as gomokuWire

#: Seconds a bot waits for the server to confirm that it left (gomoku:
#: the room exit) before it just closes its connection.
LEAVE_SECONDS = 10
#: Gomoku room steps (join, create) tried before giving up; a join and a
#: create can cross another client's create and exit.
ROOM_TRIES = 10
#: Exit status of a failed run.
FAILED = 1


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
    @ivar entered: a Deferred firing with True once the bot is in its
        room (or at its table), with False if it failed before.
    @ivar done: a Deferred firing with the state once the game is over,
        or failing with L{BotFailed}.
    """

    log = Logger()

    def __init__(self, reactor, kind, host, port, name, level, seed=0,
                 room=None, team=1, creator=False, delay=0.0):
        self.reactor = reactor
        self.kind = kind
        self.host = host
        self.port = port
        self.name = name
        self.room = room
        self.team = team
        self.creator = creator
        self.state = makeState(kind, Options(game=kind, name=name))
        self.autoplay = AutoPlayer(self.state, reactor, level,
                                   bot=botFor(kind, level, seed),
                                   delay=delay)
        self.entered = defer.Deferred()
        self.done = defer.Deferred()
        self._readied = False
        self._started = False
        self._tries = 0
        self._protocol = None
        self._leaving = None
        self._leaveTimer = None
        self.state.subscribe(self._event)

    @property
    def address(self):
        return "%s:%d" % (self.host, self.port)

    def start(self):
        """
        Connect; L{entered} fires when in the room, L{done} when the game
        is over.

        @return: L{done}.
        """
        d = net.connect(self.reactor, self.kind, self.host, self.port,
                        self.state, clock=self.reactor)
        d.addCallbacks(self._connected, self._connectFailed)
        return self.done

    def stop(self):
        """
        Stop playing and close the connection at once.
        """
        self.autoplay.setEnabled(False)
        if self._protocol is not None and self._protocol.transport:
            self._protocol.transport.loseConnection()

    def leave(self):
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
        if not self.state.connected:
            self._leaving.callback(None)
            return self._leaving
        self._leaveTimer = self.reactor.callLater(LEAVE_SECONDS, self.stop)
        if self.kind == "gomoku" and self.state.room is not None:
            self.state.exitRoom()
        else:
            self.stop()
        return self._leaving

    def expire(self, seconds):
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

    def _connected(self, protocol):
        self._protocol = protocol
        self.autoplay.setEnabled(True)

    def _connectFailed(self, reason):
        self._fail("cannot connect to %s: %s" % (
            self.address, net.connectError(reason)))

    def _fail(self, text):
        if not self.entered.called:
            self.entered.callback(False)
        if not self.done.called:
            self.done.errback(BotFailed(text))

    def _event(self, event, **details):
        st = self.state
        if self._leaving is not None:
            if event == "phase" and details["new"] == S.LOBBY:
                self.stop()   # the room exit is confirmed
            elif event == "disconnected":
                if self._leaveTimer.active():
                    self._leaveTimer.cancel()
                if not self._leaving.called:
                    self._leaving.callback(None)
            return
        if event == "wrongServer":
            self._fail("%s %s: is it a %s port?" % (
                self.address, details["reason"], self.kind))
            return
        if event == "phase":
            new = details["new"]
            if new == S.LOBBY:
                self.reactor.callLater(0, self._enter)
            elif new == S.OVER and not self.done.called:
                self.done.callback(st)
            elif new == S.CLOSED:
                self._fail("the connection closed before the game ended")
        elif event == "disconnected" and not self.done.called:
            self._fail("the connection closed before the game ended")
        if event == "roomFailed":
            self._roomFailed(details.get("status"))
        elif event == "joinFailed":
            reason = st.messages[-1][1] if st.messages else ""
            self._fail("could not join room %r: %s" % (self.room, reason))
        if st.phase == S.ROOM:
            if not self.entered.called:
                self.entered.callback(True)
            self._inRoom()

    # Lobby steps.

    def _enter(self):
        st = self.state
        if st.phase != S.LOBBY or self.done.called:
            return
        if self.kind == "gomoku":
            if self.creator:
                st.createRoom(self.room)
            else:
                st.joinRoom(self.room)
        elif self.kind == "checkers":
            st.join(self.room, self.name)

    def _roomFailed(self, status):
        # gomoku: the room is not there yet (create it), or it was made
        # meanwhile (join it).
        self._tries += 1
        st = self.state
        mayCreate = self.creator or self.team == 1
        if self._tries > ROOM_TRIES or status not in (
                gomokuWire.S_ROOM_EXISTS, gomokuWire.S_ROOM_NOT_EXISTS) \
                or (status == gomokuWire.S_ROOM_NOT_EXISTS
                    and not mayCreate):
            self._fail("could not enter room %r: %s"
                       % (self.room, resultText(status)))
        elif status == gomokuWire.S_ROOM_EXISTS:
            self.reactor.callLater(0, st.joinRoom, self.room)
        else:
            self.reactor.callLater(0, st.createRoom, self.room)

    def _inRoom(self):
        st = self.state
        if self.kind == "gomoku":
            room = st.room or {}
            if st.isOwner():
                if (not self._started and room.get("guest")
                        and room.get("gs") == gomokuWire.PLAYER_STATE_READY):
                    self._started = True
                    self.reactor.callLater(0, st.startGame)
            elif not self._readied:
                self._readied = True
                self.reactor.callLater(0, st.setReady, True)
            return
        if self._readied:
            return
        if self.kind == "checkers":
            present = len(st.members)
        else:
            # NEW_PLAYER announces us too: count ids, not entries
            present = len(set(p[0] for p in st.players) | {st.myId})
        if present >= self.team:
            self._readied = True
            self.reactor.callLater(0, st.setReady, True)


def describe(kind, bots):
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
def playGame(reactor, kind, host, port, count, level, room, seed, delay,
             timeout, prefix):
    """
    Connect C{count} bots, play one game, leave.

    A gomoku team's creator goes first; the other bot starts once the
    room exists.

    @return: a Deferred firing with the one-line result, or failing with
        L{BotFailed}.
    """
    bots = [BotPlayer(reactor, kind, host, port,
                      "%s%d" % (prefix, i + 1), level,
                      seed=seed + i, room=room, team=count,
                      creator=(i == 0 and count > 1), delay=delay)
            for i in range(count)]

    def expire():
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
            raise e.subFailure.value
    except BotFailed:
        for b in bots:
            b.stop()
        raise
    finally:
        if timer.active():
            timer.cancel()
    yield defer.gatherResults([b.leave() for b in bots])
    return describe(kind, bots)


def makeParser():
    """
    The argument parser of C{python -m hub.bots}.
    """
    p = argparse.ArgumentParser(
        prog="python -m hub.bots",
        description="Bots that play gamehub's games over the network.")
    p.add_argument("url", help="gomoku://HOST:PORT, checkers://HOST:PORT "
                               "or splendor://HOST:PORT")
    p.add_argument("--count", type=int, default=2,
                   help="bots to connect (default 2; 1 joins a room that "
                        "people are in)")
    p.add_argument("--level", type=int, default=2, choices=(1, 2, 3),
                   help="1 random, 2 heuristic, 3 search (default 2)")
    p.add_argument("--room", default=None,
                   help="room to join or create (gomoku, checkers)")
    p.add_argument("--games", type=int, default=1,
                   help="games to play one after the other (default 1)")
    p.add_argument("--name", default=None,
                   help="name prefix of the bots (default bot<pid>_)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the bots' strategies, the same for every "
                        "game (default: a new random seed per game)")
    p.add_argument("--delay", type=float, default=0.2,
                   help="seconds a bot waits before each action "
                        "(default 0.2)")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds allowed per game (default 900)")
    return p


def gameSeeds(seed, games, rng=None):
    """
    The seed of each of C{games} games: C{seed} every time when given
    (the run can be replayed), else a new random one per game.
    """
    if seed is not None:
        return [seed] * games
    rng = rng or random.SystemRandom()
    return [rng.randrange(2 ** 31) for _ in range(games)]


@defer.inlineCallbacks
def main(reactor, *argv):
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
    if options.count < 1:
        raise SystemExit("python -m hub.bots: --count must be at least 1")
    prefix = options.name or "bot%d_" % (os.getpid(),)
    room = options.room or ("bots_%d" % (os.getpid(),)
                            if kind != "splendor" else None)
    if kind == "gomoku" and options.count > 2:
        raise SystemExit("python -m hub.bots: a gomoku room holds 2")
    seeds = gameSeeds(options.seed, options.games)
    for number, seed in enumerate(seeds, 1):
        try:
            line = yield playGame(
                reactor, kind, host, port, options.count, options.level,
                room, seed, options.delay, options.timeout,
                "%s%d_" % (prefix, number))
        except BotFailed as e:
            sys.stdout.flush()
            print("python -m hub.bots: game %d failed: %s" % (number, e),
                  file=sys.stderr)
            raise SystemExit(FAILED)
        print("game %d: %s" % (number, line))
        sys.stdout.flush()
