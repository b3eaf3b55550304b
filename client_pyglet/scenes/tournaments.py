"""
The Tournaments screen: a hub's events (from its web face), Join with
the name and play key of the start screen, then wait for "your next
game" and be taken to its room (C{EVENT-ROUND-BOARD}) in the game's own
protocol, as the keyed name.
"""

from twisted.internet import defer

from hub.client.i18n import N_, _
from hub.client.tournaments import (
    OPEN_STATES, NextGamePoller, TournamentAPI)
from hub.client.webapi import DEFAULT_WEB_PORT
from client_pyglet.scenes.base import (
    BAD, GOLD, GOOD, MUTED, PANEL, PANEL_LIGHT, Scene)
from client_pyglet.scenes.start import GAME_TITLES
from client_pyglet.scenes.watch import ListingScene

#: Seconds between two looks at the list of events.
LIST_SECONDS = 5.0
#: How each state and format is named on screen.
STATE_NAMES = {"created": N_("upcoming"), "running": N_("running"),
               "paused": N_("paused"), "finished": N_("finished")}
FORMAT_NAMES = {"round-robin": N_("round robin"), "swiss": N_("Swiss"),
                "arena": N_("arena")}


class TournamentsScene(ListingScene):
    """
    The events of the hub whose web face is C{root}.

    @ivar events: the events as the API lists them, or None before the
        first answer.
    @ivar entered: the event joined (its id), or None.
    @ivar waiting: what the screen says about the joined event's next
        game, or None.
    """

    title = N_("Tournaments")
    listSeconds = LIST_SECONDS

    def __init__(self, app, root, gamePorts):
        self.root = root
        self.gamePorts = dict(gamePorts)
        Scene.__init__(self, app)

    def setup(self):
        self.api = TournamentAPI(self.app.reactor, self.root)
        self.events = None
        self.entered = None
        self.enteredKind = None
        self.waiting = None
        self.poller = None
        self._entering = None
        self.startListing()

    def close(self):
        self.stopListing()
        if self._entering is not None:
            self._entering.cancel()
        if self.poller is not None:
            self.poller.stop()
        Scene.close(self)

    # the list
    def fetch(self):
        return self.api.events()

    def listed(self, events):
        self.events = events
        if self.poller is None:
            self.problem = None
        self.invalidate()

    def problemText(self, why):
        return _("no tournaments from %s: %s") % (self.root, why)

    # joining
    def join(self, eventId, kind):
        """
        Enter event C{eventId} as the start screen's name, proven with its
        play key; then wait for our next game.
        """
        o = self.app.options
        if not o.key:
            self.problem = _("type your account's play key beside your "
                             "name on the start screen to join")
            return
        if self._entering is not None:
            return
        self.problem = None
        d = self._entering = self.api.enter(eventId, o.name, o.key)

        def entered(answer):
            self._entering = None
            self.entered = eventId
            self.enteredKind = kind
            self.waiting = _("You are in. Waiting for your next game ...")
            self.poller = NextGamePoller(
                self.api, self.app.clock, eventId, answer.get("name", o.name),
                self.gameReady, self._pollProblem)
            self.poller.start()
            self.invalidate()

        def refused(failure):
            self._entering = None
            if failure.check(defer.CancelledError):
                return
            self.problem = _("could not join: %s") % (
                failure.getErrorMessage(),)
            self.invalidate()
        d.addCallbacks(entered, refused)

    def _pollProblem(self, text):
        self.problem = None if text is None else \
            _("the hub does not answer: %s") % (text,)
        self.invalidate()

    def gameReady(self, kind, room):
        """
        Our game is ready: to its room, in its game's protocol, as the
        name proven with the key.
        """
        kind = kind or self.enteredKind
        host = self.root.split("://", 1)[-1].rsplit(":", 1)[0]
        o = self.app.options
        self.app.connection.connect(kind, host, self.gamePorts[kind],
                                    o.name, o.key, room=room)

    # drawing
    def build(self):
        w, h = self.width, self.height
        top = h - 80
        self.text(_("Tournaments at %s") % (self.root,), 30, top, size=16,
                  bold=True)
        self.text(_("playing as %s") % (self.app.options.name,), w - 30,
                  top, size=12, color=MUTED, anchor_x="right")
        self.rect(30, 150, w - 60, top - 180, PANEL, radius=12)
        y = top - 40
        if self.events is None:
            self.text(_("Asking the hub ..."), 50, y - 20, size=12,
                      color=MUTED)
        elif not self.events:
            self.text(_("No tournaments on this hub."), 50, y - 20,
                      size=12, color=MUTED)
        for event in (self.events or [])[:8]:
            y -= 52
            self.buildEvent(event, y, w)
        if self.waiting:
            self.text(self.waiting, 50, 120, size=13, bold=True, color=GOLD)
        if self.problem:
            self.text(self.problem, 50, 98, size=11, color=BAD)
        self.field("web", _("another hub: web address HOST:PORT (port %d "
                             "by default)") % (DEFAULT_WEB_PORT,), 30, 50,
                   400, value=self.root.split("://", 1)[-1])
        self.button(_("Look"), 440, 50, 100, 30, self.lookAt, size=12)
        self.button(_("Back"), w - 150, 50, 120, 30,
                    self.app.navigator.showStart, size=12)

    def buildEvent(self, event, y, w):
        eventId = event.get("id")
        kind = event.get("kind", "")
        state = event.get("state", "")
        mine = eventId == self.entered
        self.rect(44, y, w - 88, 44, PANEL_LIGHT, radius=8)
        self.text(event.get("name", ""), 60, y + 15, size=13, bold=True,
                  width=300)
        self.text("%s · %s" % (_(GAME_TITLES.get(kind, kind)),
                               _(FORMAT_NAMES.get(event.get("format"),
                                                  event.get("format", "")))),
                  380, y + 15, size=12)
        self.text(_(STATE_NAMES.get(state, state)), w - 330, y + 15,
                  size=11, color=GOOD if state == "running" else MUTED)
        if mine:
            self.text(_("joined"), w - 120, y + 15, size=12, bold=True,
                      color=GOOD, anchor_x="center")
        elif kind in self.gamePorts:
            self.button(_("Join"), w - 180, y + 6, 120, 32, self.join,
                        eventId, kind, size=11,
                        enabled=state in OPEN_STATES
                        and self.entered is None)

    def showAt(self, root):
        self.app.connection.showTournaments(root, self.gamePorts)
