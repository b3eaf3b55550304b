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
"""

import argparse
import os
import sys

from twisted.internet import defer, task
from twisted.logger import Logger

from hub.client import net
from hub.client import state as S
from hub.client.net import parseURL
from hub.client.pilot import AutoPlayer
from hub.client.session import Options, makeState
from hub.bots import botFor
from hub.wire import gomoku as gomokuWire

class BotFailed(Exception):
    """
    A bot could not play its game to the end.
    """


class BotPlayer:
    """
    One bot: a connection, the game's client state machine, an
    L{AutoPlayer} with the bot's strategy, and the lobby steps.

    @ivar name: the player name (gomoku and checkers).
    @ivar state: the L{hub.client.state.ClientState}.
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
        self.done = defer.Deferred()
        self._readied = False
        self._started = False
        self._tries = 0
        self._protocol = None
        self.state.subscribe(self._event)

    def start(self):
        """
        Connect; L{done} fires when the game is over.
        """
        d = net.connect(self.reactor, self.kind, self.host, self.port,
                        self.state)
        d.addCallbacks(self._connected, self._fail)
        return self.done

    def stop(self):
        """
        Stop playing and close the connection.
        """
        self.autoplay.setEnabled(False)
        if self._protocol is not None and self._protocol.transport:
            self._protocol.transport.loseConnection()

    def _connected(self, protocol):
        self._protocol = protocol
        self.autoplay.setEnabled(True)

    def _fail(self, reason):
        if not self.done.called:
            text = getattr(reason, "getErrorMessage", lambda: reason)()
            self.done.errback(BotFailed("%s: %s" % (self.name, text)))

    def _later(self, f, *args):
        self.reactor.callLater(0.05, f, *args)

    def _event(self, event, **details):
        st = self.state
        if event == "phase":
            new = details["new"]
            if new == S.LOBBY:
                self._enter()
            elif new == S.OVER and not self.done.called:
                self.done.callback(st)
            elif new == S.CLOSED and not self.done.called:
                self._fail("the connection closed before the game ended")
        if event == "roomFailed":
            self._roomFailed(details.get("status"))
        elif event == "joinFailed":
            reason = st.messages[-1][1] if st.messages else ""
            self._fail("could not join room %r: %s" % (self.room, reason))
        if st.phase == S.ROOM:
            self._inRoom()

    # Lobby steps.

    def _enter(self):
        st = self.state
        if self.kind == "gomoku":
            if self.creator:
                st.createRoom(self.room)
            else:
                st.joinRoom(self.room)
        elif self.kind == "checkers":
            st.join(self.room, self.name)

    def _roomFailed(self, status):
        # gomoku: the room is not there yet (create it, or wait for the
        # creator), or it was made meanwhile (join it).
        self._tries += 1
        if self._tries > 100:
            self._fail("could not enter room %r (status %r)"
                       % (self.room, status))
            return
        st = self.state
        if status == gomokuWire.S_ROOM_EXISTS:
            self._later(st.joinRoom, self.room)
        elif status == gomokuWire.S_ROOM_NOT_EXISTS and self.team == 1:
            self._later(st.createRoom, self.room)
        else:
            self.reactor.callLater(0.2, st.joinRoom, self.room)

    def _inRoom(self):
        st = self.state
        if self.kind == "gomoku":
            room = st.room or {}
            if st.isOwner():
                if (not self._started and room.get("guest")
                        and room.get("gs") == gomokuWire.PLAYER_STATE_READY):
                    self._started = True
                    self._later(st.startGame)
            elif not self._readied:
                self._readied = True
                self._later(st.setReady, True)
            return
        if self._readied:
            return
        if self.kind == "checkers":
            present = len(st.members)
        else:
            present = len(st.players) + 1
        if present >= self.team:
            self._readied = True
            self._later(st.setReady, True)


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
    Connect C{count} bots, play one game, disconnect.

    @return: a Deferred firing with the one-line result.
    """
    bots = [BotPlayer(reactor, kind, host, port,
                      "%s%d" % (prefix, i + 1), level,
                      seed=seed + i, room=room, team=count,
                      creator=(i == 0 and count > 1), delay=delay)
            for i in range(count)]
    games = defer.gatherResults([b.start() for b in bots],
                                consumeErrors=True)
    games.addTimeout(timeout, reactor)
    try:
        yield games
    except defer.FirstError as e:
        raise e.subFailure.value
    except defer.TimeoutError:
        raise BotFailed("no end after %d seconds" % (timeout,))
    finally:
        for b in bots:
            b.stop()
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
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the bots' strategies (default 0)")
    p.add_argument("--delay", type=float, default=0.2,
                   help="seconds a bot waits before each action "
                        "(default 0.2)")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds allowed per game (default 900)")
    return p


@defer.inlineCallbacks
def main(reactor, *argv):
    """
    Run the bot client (for L{twisted.internet.task.react}).
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
    for number in range(1, options.games + 1):
        if number > 1:
            # Let the server see the last game's connections go.
            yield task.deferLater(reactor, 0.5, lambda: None)
        try:
            line = yield playGame(
                reactor, kind, host, port, options.count, options.level,
                room, options.seed + 100 * number, options.delay,
                options.timeout, "%s%d_" % (prefix, number))
        except BotFailed as e:
            print("game %d: failed: %s" % (number, e), file=sys.stderr)
            sys.stdout.flush()
            raise SystemExit(1)
        print("game %d: %s" % (number, line))
        sys.stdout.flush()
