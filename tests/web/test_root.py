"""
The web face built by the composition root alone (L{hub.tap.makeService}
from the command line's options, nothing set by the test): every part of
the site is whole when made, and the parts share what they should.
"""

import os
import shutil
import tempfile

from twisted.internet.testing import MemoryReactorClock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub import tap
from hub.limits import FaceGate
from hub.tournaments.interfaces import (
    IGameReadyListener, IPairings, ITournamentListener)
from hub.web.auth import WebAuth
from hub.web.errors import WebErrors
from hub.web.interfaces import ITournamentsWeb
from hub.web.site import ACCOUNT_LINKS, HubSite


def parse(*argv):
    options = tap.Options()
    options.parseOptions(list(argv))
    return options


class CompositionRootTests(SynchronousTestCase):
    """
    L{tap.makeService} builds the web face's graph.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-root-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")

    def build(self, *argv):
        """
        The hub's service tree from C{argv}, started on a memory reactor.
        """
        top = tap.makeService(parse(
            "--gomoku-port", "tcp:0", "--checkers-port", "tcp:0",
            "--splendor-port", "tcp:0", "--web-port", "tcp:0",
            "--announce", "no", "--engine-sandbox", "none", *argv),
            MemoryReactorClock())
        self.addCleanup(top.stopService)
        top.startService()
        return top

    def test_whole(self):
        """
        With accounts and a database, the site holds the accounts, the
        events, the browser play and what the pages read, each made with
        its collaborators: the accounts' name check is the protocols',
        the events' are the director's and tell their page through feeds
        the director tells, the pages and C{/admin} share one set of
        events, and every cross-package collaborator provides its
        interface.
        """
        top = self.build("--db", self.url)
        site = top.getServiceNamed("web-port").factory
        self.assertIsInstance(site, HubSite)
        self.assertIsInstance(site.errors, WebErrors)
        self.assertIsInstance(site.gate, FaceGate)
        self.assertEqual(site.accountLinks, ACCOUNT_LINKS)
        auth = site.auth
        self.assertIsInstance(auth, WebAuth)
        names = top.getServiceNamed("gomoku-port").factory.names
        self.assertIsNotNone(names)
        self.assertIs(auth.names, names)
        for kind in ("checkers", "splendor"):
            self.assertIs(top.getServiceNamed(kind + "-port").factory.names,
                          names)
        web = site.web
        self.assertIs(web.gate, site.gate)
        self.assertEqual(web.accountLinks, ACCOUNT_LINKS)
        self.assertIs(web.lobby, top.lobby)

        director = top.getServiceNamed("tournaments").director
        self.assertTrue(verifyObject(IPairings, director))
        events = site.tournaments
        self.assertTrue(verifyObject(ITournamentsWeb, events))
        self.assertIs(events.director, director)
        self.assertIs(events.auth, auth)
        self.assertIs(events.gate, site.gate)
        self.assertIs(events.database, director.database)
        self.assertTrue(verifyObject(ITournamentListener, events.feeds))
        self.assertTrue(verifyObject(IGameReadyListener, site.play))
        self.assertEqual(director.listeners, [events.feeds, site.play])
        self.assertIs(web.abouts.__self__, events)

        root = site.resource
        self.assertIs(root.children[b"tournaments"].web, events)
        admin = root.children[b"admin"]
        self.assertIs(admin.auth, auth)
        self.assertIs(admin.children[b"tournaments"].events, events)
        self.assertIs(admin.children[b"event-start"].events, events)

    def test_withoutAccounts(self):
        """
        Without a database: no accounts, no events, no account links; the
        browser play still there, over the hub's lobby.
        """
        top = self.build("--db", "none")
        site = top.getServiceNamed("web-port").factory
        self.assertIsNone(site.auth)
        self.assertIsNone(site.tournaments)
        self.assertEqual(site.accountLinks, ())
        self.assertEqual(site.web.accountLinks, ())
        self.assertIs(site.web.gate, site.gate)
        self.assertIs(site.play.lobby, top.lobby)
        self.assertIsNone(top.getServiceNamed("gomoku-port").factory.names)
        self.assertNotIn(b"admin", site.resource.children)
