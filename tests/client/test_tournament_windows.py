"""
The desktop client's Tournaments entry against C{twistd -n gamehub}: from
the start screen to the hub's events, Join with the account's name and
play key (the web face's C{POST /api/tournaments/ID/entry}), the event
started with the CLI, and the client taken into its game's room
(C{EVENT-ROUND-BOARD}) as its keyed name.

A window test: run it under C{xvfb-run -a}; without a display it fails.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from twisted.internet import defer, reactor, task
from twisted.trial.unittest import TestCase

from hub.client import state as S
from hub.client.session import Options
from hub.client.userdirs import UserConfig
from tests.client.test_offline_windows import (
    ROOT, NoStop, assertPNG, keepShot, labelTexts)
from tests.client.test_windows import requireDisplay
from tests.endtoend import GamehubServer

#: Seconds any one step may take on a loaded machine.
STEP_TIMEOUT = 60


def until(condition, timeout=STEP_TIMEOUT, step=0.05):
    """
    A Deferred firing once C{condition()} holds (looked at every C{step}
    seconds while the reactor runs the window); it fails after
    C{timeout} seconds.
    """
    d = defer.Deferred()

    def look():
        if not d.called and condition():
            loop.stop()
            d.callback(None)
    loop = task.LoopingCall(look)
    loop.start(step, now=True)

    def stop(result):
        if loop.running:
            loop.stop()
        return result
    return d.addTimeout(timeout, reactor).addBoth(stop)


class TournamentEntryTests(TestCase):
    """
    A person joins an event from the desktop client and is taken to its
    game.
    """

    timeout = 6 * STEP_TIMEOUT

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-tournament-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.db = "sqlite:" + os.path.join(self.dir, "hub.sqlite")
        added = self.command("hub.accounts", "add", "alice",
                             stdin=b"a long password\n")
        self.key = re.search(r"key: (\w+)", added).group(1)
        self.server = GamehubServer(self, "--db", self.db,
                                    games=("checkers", "web"))
        self.webPort = self.server.port("web")

    def command(self, module, *argv, stdin=b""):
        """
        Run C{python -m MODULE --db DB ARGV...}, blocking (the hub runs
        in its own process); its output.
        """
        result = subprocess.run(
            [sys.executable, "-m", module, "--db", self.db] + list(argv),
            cwd=ROOT, input=stdin, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=STEP_TIMEOUT)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.decode("utf-8")

    def api(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (
                self.webPort, path), timeout=STEP_TIMEOUT) as response:
            return json.loads(response.read().decode("utf-8"))

    def click(self, app, method, *args):
        """
        Click the area of the scene shown whose callback is C{method}
        (with C{args}).
        """
        app.pumpOnce()
        for (x, y, w, h, cb, a) in app.scene._hits:
            if getattr(cb, "__name__", None) == method and \
                    (not args or a == args):
                app.on_mouse_motion(x + w / 2, y + h / 2, 0, 0)
                app.on_mouse_press(x + w / 2, y + h / 2, 1, 0)
                return
        self.fail("no %s%r on %r" % (method, args, app.scene))

    def type(self, app, field, text):
        """
        Click the field C{field}, empty it and type C{text}.
        """
        from pyglet.window import key
        self.click(app, "setFocus", field)
        for _ in range(64):
            app.on_key_press(key.BACKSPACE, 0)
        app.on_text(text)

    @defer.inlineCallbacks
    def test_joinAndPlay(self):
        """
        The start screen's Tournaments lists the hub's event; Join enters
        the account (the key proves it and appears in no log); once the
        CLI starts the event, the client is in the room the director
        opened for it, as alice, in the checkers protocol, and ready.
        """
        from client_pyglet.app import App
        eventId = int(self.command(
            "hub.tournaments", "create", "--name", "Desk cup", "--game",
            "checkers", "--format", "round-robin", "--players-per-table",
            "2").splitlines()[-1])
        self.command("hub.tournaments", "enter", "--guest", str(eventId),
                     "bob1")
        app = App(NoStop(), reactor, Options(game=None, name="alice",
                                             key=self.key),
                  config=UserConfig(os.path.join(self.dir, "c.json")),
                  hubBrowserFactory=lambda reactor, onChange: None)
        app.start()
        self.addCleanup(app.stop, 0)
        self.assertEqual(type(app.scene).__name__, "StartScene")
        app.pumpOnce()
        self.assertIn("Tournaments", [b.label for b in app.scene.buttons])
        self.type(app, "address",
                  "127.0.0.1:%d" % (self.server.port("checkers"),))
        self.click(app, "tournamentsTyped")
        self.assertEqual(type(app.scene).__name__, "TournamentsScene")
        self.assertEqual(app.scene.gamePorts["checkers"],
                         self.server.port("checkers"))
        # The default web port is not this hub's: look at ours.
        self.type(app, "web", "127.0.0.1:%d" % (self.webPort,))
        self.click(app, "lookAt")
        scene = app.scene
        yield until(lambda: scene.events is not None and any(
            e["id"] == eventId for e in scene.events))
        app.pumpOnce()
        self.assertIn("Desk cup", labelTexts(scene))
        self.click(app, "join", eventId, "checkers")
        yield until(lambda: scene.entered == eventId or scene.problem)
        self.assertIsNone(scene.problem)
        entrants = self.api("/api/tournaments/%d" % (eventId,))
        self.assertIn("alice", json.dumps(entrants))
        app.pumpOnce()
        shot = os.path.join(self.dir, "tournaments.png")
        yield app.screenshot(shot).addTimeout(STEP_TIMEOUT, reactor)
        keepShot(shot, "client-tournaments.png")
        assertPNG(self, shot, {"accent": (58, 110, 160)})

        self.command("hub.tournaments", "start", str(eventId))
        self.server.waitForLog(r"tournament %d: room %d-1-1 opened"
                               % (eventId, eventId), timeout=STEP_TIMEOUT)
        room = json.loads(json.dumps(self.api(
            "/api/tournaments/%d/next?name=alice" % (eventId,))))["room"]
        self.assertEqual(room, "%d-1-1" % (eventId,))
        yield until(lambda: app.session is not None
                    and app.session.state.phase == S.ROOM
                    and app.session.state.roomId == room)
        st = app.session.state
        self.assertEqual(app.options.game, "checkers")
        self.assertEqual(app.options.port, self.server.port("checkers"))
        self.assertEqual(st.shownName, "alice")
        # The room echoes the name field as sent (keyed): ours.
        self.assertEqual([name for name, ready in st.members], [st.name])
        self.assertEqual(type(app.scene).__name__, "CheckersRoomScene")
        self.server.waitForLog(r"'alice' joined checkers room '%s'" % (room,),
                               timeout=STEP_TIMEOUT)
        # Ready to play at once, as a browser entrant is.
        yield until(lambda: dict(app.session.state.members).get(st.name))
        self.assertNotIn(self.key, "".join(self.server.output))
