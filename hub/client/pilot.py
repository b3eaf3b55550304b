"""
Playing for the user: L{AutoPlayer} (AI 托管 and the "suggest" hint) and
the lobby pilots that C{--bot} uses to create or join, ready and start.

Every state machine offers the same small interface for this:
C{isMyTurn()}, C{awaitingReply}, C{rules()} (an L{hub.ihub.IGameRules}
copy of the position), C{mySeat()} and C{playAction(action)}.
"""

import random

from twisted.internet import defer
from twisted.logger import Logger

from hub.client import state as S
from hub.bots import botFor

#: Seconds the bot waits before acting, so that people can follow.
BOT_DELAY = 0.25
#: After this many rejected bot actions in a row, play a random legal one.
MAX_REJECTED = 2
#: The room C{--bot} walks to when no C{--room} is given, so that two
#: bot-driven clients meet (gomoku: joined if it exists, else created;
#: checkers: joined or created by the first JOIN).
DEFAULT_ROOM = "gamehub"


def thinkNow(f, *args):
    """
    Run C{f(*args)} at once; a L{Deferred} of its result.
    """
    return defer.maybeDeferred(f, *args)


class AutoPlayer:
    """
    Plays the user's turns with the local bot while enabled, and computes
    hints on request.

    The bot thinks through C{think(f, *args)}, which returns a Deferred of
    C{f(*args)}: at once by default (L{thinkNow}), or in a thread pool so
    that a slow level does not freeze the window.  One bot thinks at a
    time, on its own copy of the position; an answer that comes after the
    position changed is dropped.

    @ivar enabled: AI 托管 is on.
    @ivar hint: the last suggested action, or None.
    """

    log = Logger()

    def __init__(self, state, clock, level, bot=None, delay=BOT_DELAY,
                 think=thinkNow):
        self.state = state
        self.clock = clock
        self.level = level
        self.delay = delay
        self.enabled = False
        self.hint = None
        self._bot = bot
        self._think = think
        self._thinking = defer.DeferredLock()
        self._position = 0
        self._call = None
        self._rejected = 0
        self._random = random.Random()
        state.subscribe(self._event)

    @property
    def bot(self):
        """
        The local bot (L{hub.bots.botFor} of the game at C{level}, with a
        random seed), made on first use.
        """
        if self._bot is None:
            self._bot = botFor(self.state.game, self.level,
                               seed=self._random.randrange(2 ** 31))
        return self._bot

    def setEnabled(self, enabled):
        """
        Turn AI 托管 on or off.
        """
        self.enabled = bool(enabled)
        if self.enabled:
            self._schedule()
        elif self._call is not None and self._call.active():
            self._call.cancel()
            self._call = None
        self.state.emit("autoplay", enabled=self.enabled)

    def toggle(self):
        """
        Flip AI 托管.
        """
        self.setEnabled(not self.enabled)

    def suggest(self):
        """
        Ask the bot for the user's move and remember it as C{hint} (and
        emit C{"hint"}) when it comes.

        @return: a L{Deferred} firing with the action, or None when it is
            not the user's turn or the position changed meanwhile.
        """
        self.hint = None
        rules = self.state.rules() if self.state.isMyTurn() else None
        if rules is None or rules.isOver:
            self.state.emit("hint", action=None)
            return defer.succeed(None)
        position = self._position

        def thought(action):
            if position != self._position:
                return None
            self.hint = action
            self.state.emit("hint", action=action)
            return action
        return self._choose(rules).addCallback(thought)

    def _choose(self, rules):
        """
        The bot's action for the user's seat in C{rules} (a copy of the
        position), one bot thinking at a time.
        """
        return self._thinking.run(self._think, self.bot.chooseAction,
                                  rules, self.state.mySeat())

    def _event(self, event, **details):
        if event in ("hint", "autoplay"):
            return
        if event == "rejected":
            self._rejected += 1
        elif event == "accepted":
            self._rejected = 0
        if event in ("turn", "phase", "moved", "rejected", "changed"):
            self.hint = None
            self._position += 1
        self._schedule()

    def _schedule(self):
        if not self.enabled or self.state.phase != S.GAME:
            return
        if self._call is not None and self._call.active():
            return
        self._call = self.clock.callLater(self.delay, self._act)

    def _mayAct(self):
        st = self.state
        return (self.enabled and st.phase == S.GAME and st.isMyTurn()
                and not st.awaitingReply and st.connected)

    def _act(self):
        self._call = None
        if not self._mayAct():
            return
        rules = self.state.rules()
        if rules is None or rules.isOver:
            # e.g. the opponent's winning move came before the server's
            # end of game: nothing to play
            return
        if self._rejected < MAX_REJECTED:
            d = self._choose(rules).addErrback(self._botFailed)
        else:
            d = defer.succeed(None)
        d.addCallback(self._play, rules, self._position)
        d.addErrback(self._playFailed)

    def _botFailed(self, failure):
        # The bot failing is logged; a random legal move is played.
        self.log.failure("bot failed", failure)
        return None

    def _playFailed(self, failure):
        self.log.failure("auto-play failed", failure)

    def _play(self, action, rules, position):
        # The position may have changed while the bot thought; then the
        # event that changed it has scheduled another turn.
        if position != self._position or not self._mayAct():
            return
        if action is None:
            actions = rules.legalActions(self.state.mySeat())
            if not actions:
                return
            action = self._random.choice(actions)
        self.log.debug("auto-play: {action!r}", action=action)
        self.state.playAction(action)


class GomokuPilot:
    """
    Walks the gomoku lobby: join C{room} (L{DEFAULT_ROOM} when none was
    given) or create it when there is none, ready as guest, start as
    owner once the guest is ready.
    """

    def __init__(self, state, clock, options):
        self.state = state
        self.clock = clock
        self.room = options.room or DEFAULT_ROOM
        self.password = options.password or ""
        self.colour = getattr(options, "colour", "white")
        self._stopped = False
        self._tries = 0
        self._call = None
        state.subscribe(self._event)

    def stop(self):
        self._stopped = True
        if self._call is not None and self._call.active():
            self._call.cancel()

    def _later(self, f, *a):
        if not self._stopped:
            self._call = self.clock.callLater(0.1, f, *a)

    def _event(self, event, **details):
        if self._stopped:
            return
        st = self.state
        if event == "phase" and details["new"] == S.LOBBY:
            self._tries = 0
            self._later(self._enter)
        elif event == "roomFailed":
            self._tries += 1
            if self._tries > 20:
                return
            status = details.get("status")
            # not there: create it; exists: join it
            if status == 515:
                from hub.client.state_gomoku import BLACK, WHITE
                colour = BLACK if self.colour == "black" else WHITE
                self._later(st.createRoom, self.room, self.password, colour)
            elif status == 514:
                self._later(st.joinRoom, self.room, self.password)
            else:
                self.clock.callLater(1.0, self._enter)
        elif event in ("room", "phase") and st.phase == S.ROOM:
            self._later(self._inRoom)

    def _enter(self):
        st = self.state
        if st.phase == S.LOBBY:
            st.joinRoom(self.room, self.password)

    def _inRoom(self):
        st = self.state
        if st.phase != S.ROOM or st.room is None:
            return
        if st.isOwner():
            if st.room.get("guest") and st.room.get("gs") == 3:
                st.startGame()
        elif st.room.get("gs") != 3 and not st.awaitingReply:
            st.setReady(True)


class ReadyPilot:
    """
    Checkers and Splendor: join (checkers: C{room}) and ready.
    """

    def __init__(self, state, clock, options):
        self.state = state
        self.clock = clock
        self.players = options.players
        self._stopped = False
        self._readied = False
        state.subscribe(self._event)

    def stop(self):
        self._stopped = True

    def _count(self):
        st = self.state
        if st.game == "checkers":
            return len(st.members)
        ids = set(p[0] for p in st.players)
        ids.add(st.myId)
        return len(ids)

    def _event(self, event, **details):
        if self._stopped:
            return
        if self.state.phase == S.ROOM and not self._readied:
            if self.players and self._count() < self.players:
                return
            self._readied = True
            self.clock.callLater(0.2, self._ready)
        elif self.state.phase != S.ROOM:
            self._readied = False

    def _ready(self):
        if not self._stopped and self.state.phase == S.ROOM:
            self.state.setReady(True)


def makePilot(state, clock, options):
    """
    The lobby pilot of C{--bot} for C{state}'s game.
    """
    if state.game == "gomoku":
        return GomokuPilot(state, clock, options)
    return ReadyPilot(state, clock, options)
