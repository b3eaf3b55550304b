"""
Tests for L{hub.announce} and L{hub.client.discovery}: the service record
a hub announces, and a hub appearing in a browser on the machine's own
interfaces and disappearing when it stops, each within five seconds.
"""

import os
import signal

from twisted.internet import reactor
from twisted.internet.address import IPv4Address
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub import tap
from hub.announce import Announcer, defaultName
from hub.client.discovery import FoundHub, HubBrowser, instanceName
from hub.wire.dnssd import SERVICE_TYPE

from tests.endtoend import GamehubServer

#: The bound on a hub's appearing in, or leaving, a browser.
SECONDS = 5


class FakePort:
    """
    An L{IListeningPort} that only tells its address.
    """

    def __init__(self, host, port):
        self.address = IPv4Address("TCP", host, port)

    def getHost(self):
        return self.address


class ServiceInfoTests(SynchronousTestCase):
    """
    L{Announcer.serviceInfo} describes the listeners reachable from the
    LAN.
    """

    def announcer(self):
        return Announcer(None, {}, name="test hub",
                         lanAddresses=lambda: ["192.0.2.7", "10.0.0.2"])

    def test_everything(self):
        """
        Games on every interface and the web port: the machine's LAN
        addresses, every game's port in TXT, the web port as the SRV
        port.
        """
        info = self.announcer().serviceInfo(
            {"checkers": FakePort("0.0.0.0", 16666),
             "gomoku": FakePort("0.0.0.0", 11011)},
            FakePort("0.0.0.0", 8080))
        self.assertEqual(info.name, "test hub." + SERVICE_TYPE)
        self.assertEqual(info.type, SERVICE_TYPE)
        self.assertEqual(info.port, 8080)
        self.assertEqual(info.parsed_addresses(),
                         ["192.0.2.7", "10.0.0.2"])
        self.assertEqual(info.properties, {
            b"txtvers": b"1", b"games": b"checkers,gomoku",
            b"checkers": b"16666", b"gomoku": b"11011", b"web": b"8080"})

    def test_loopbackLeftOut(self):
        """
        A game on loopback, or not listening, is left out; one bound to
        an address is announced at that address.
        """
        info = self.announcer().serviceInfo(
            {"checkers": FakePort("127.0.0.1", 16666),
             "gomoku": None, "splendor": FakePort("192.0.2.7", 13204)},
            None)
        self.assertEqual(info.port, 13204)
        self.assertEqual(info.parsed_addresses(), ["192.0.2.7"])
        self.assertEqual(info.properties, {
            b"txtvers": b"1", b"games": b"splendor",
            b"splendor": b"13204"})

    def test_nothingReachable(self):
        """
        With every game on loopback there is nothing to announce.
        """
        self.assertIsNone(self.announcer().serviceInfo(
            {"checkers": FakePort("127.0.0.1", 16666)},
            FakePort("0.0.0.0", 8080)))

    def test_instanceName(self):
        """
        The browser shows instance names without the service type.
        """
        self.assertEqual(instanceName("a b." + SERVICE_TYPE), "a b")
        self.assertEqual(instanceName("odd"), "odd")


class HubWatcher:
    """
    A L{HubBrowser} on the reactor and a way to wait, with a bound, for
    its list of hubs to satisfy a condition.
    """

    def __init__(self, testCase):
        self.hubs = []
        self._waiting = []
        self.browser = HubBrowser(reactor, self._changed)
        testCase.addCleanup(self.browser.stop)

    def _changed(self, hubs):
        self.hubs = hubs
        for condition, waiter in list(self._waiting):
            if condition(hubs):
                self._waiting.remove((condition, waiter))
                waiter.callback(hubs)

    def waitFor(self, condition, what):
        """
        A L{Deferred} that fires when C{condition(hubs)} holds, failing
        after L{SECONDS}.
        """
        if condition(self.hubs):
            return _fired(self.hubs)
        waiter = Deferred()
        entry = (condition, waiter)
        self._waiting.append(entry)

        def timedOut(failure):
            if entry in self._waiting:
                self._waiting.remove(entry)
            raise AssertionError("after {} s, no {}; hubs: {!r}".format(
                SECONDS, what, self.hubs))

        waiter.addTimeout(SECONDS, reactor)
        waiter.addErrback(timedOut)
        return waiter


def _fired(value):
    waiter = Deferred()
    waiter.callback(value)
    return waiter


def hubWithPort(kind, port):
    """
    A condition: some hub serves C{kind} on C{port}.
    """
    return lambda hubs: any(hub.ports.get(kind) == port for hub in hubs)


def noHubWithPort(kind, port):
    """
    A condition: no hub serves C{kind} on C{port}.
    """
    return lambda hubs: not hubWithPort(kind, port)(hubs)


class LanTests(TestCase):
    """
    A hub announced on the machine's own interfaces is found by a
    browser, and lost when it stops.
    """

    timeout = 60

    @inlineCallbacks
    def test_inProcess(self):
        """
        The service tree of C{twistd gamehub} with a game on every
        interface, one on loopback: a browser finds the hub with the
        first game's real port (not the loopback one) within five
        seconds, and loses it within five seconds of the tree stopping.
        """
        options = tap.Options()
        options.parseOptions([
            "--db", "none", "--checkers-port", "tcp:0",
            "--gomoku-port", "tcp:0:interface=127.0.0.1",
            "--splendor-port", "none", "--web-port", "none"])
        top = tap.makeService(options, reactor)
        watcher = HubWatcher(self)
        yield watcher.browser.start()
        top.startService()
        stopped = []

        def stop():
            if not stopped:
                stopped.append(True)
                return top.stopService()
        self.addCleanup(stop)
        port = top.getServiceNamed("checkers-port").port.getHost().port
        hubs = yield watcher.waitFor(hubWithPort("checkers", port),
                                     "hub with checkers on %d" % (port,))
        hub = [h for h in hubs if h.ports.get("checkers") == port][0]
        self.assertIsInstance(hub, FoundHub)
        self.assertEqual(hub.ports, {"checkers": port})
        self.assertIsNone(hub.webPort)
        self.assertNotEqual(hub.host, "127.0.0.1")
        self.assertTrue(hub.server.endswith(".local."))
        self.assertTrue(hub.name.startswith(defaultName()), hub.name)
        yield stop()
        yield watcher.waitFor(noHubWithPort("checkers", port),
                              "end of the hub on %d" % (port,))

    @inlineCallbacks
    def test_twistd(self):
        """
        C{twistd -n gamehub} announces its games; it is found within five
        seconds, and gone within five seconds of its SIGTERM.
        """
        watcher = HubWatcher(self)
        yield watcher.browser.start()
        server = GamehubServer(self, "--checkers-port=tcp:0",
                               "--splendor-port=tcp:0", "--db=none",
                               games=("checkers", "splendor"))
        ports = server.ports
        hubs = yield watcher.waitFor(
            hubWithPort("checkers", ports["checkers"]), "twistd hub")
        hub = [h for h in hubs
               if h.ports.get("checkers") == ports["checkers"]][0]
        self.assertEqual(hub.ports, ports)
        os.kill(server.pid, signal.SIGTERM)
        yield watcher.waitFor(
            noHubWithPort("checkers", ports["checkers"]),
            "end of the twistd hub")

    @inlineCallbacks
    def test_announceNo(self):
        """
        With --announce no a hub is not found; its --announce yes twin,
        started after it, is (so the browser was listening).
        """
        watcher = HubWatcher(self)
        yield watcher.browser.start()
        silent = GamehubServer(self, "--checkers-port=tcp:0", "--db=none",
                               "--announce=no", games=("checkers",))
        loud = GamehubServer(self, "--checkers-port=tcp:0", "--db=none",
                             games=("checkers",))
        yield watcher.waitFor(hubWithPort("checkers", loud.port("checkers")),
                              "the announced hub")
        self.assertFalse(hubWithPort("checkers", silent.port("checkers"))(
            watcher.hubs))


class HeldThreadPool:
    """
    A thread pool that holds each call until L{release}.
    """

    def __init__(self):
        self.held = []

    def callInThreadWithCallback(self, onResult, function, *args, **kw):
        self.held.append((onResult, function, args, kw))

    def release(self):
        onResult, function, args, kw = self.held.pop(0)
        onResult(True, function(*args, **kw))


class ThreadReactor:
    """
    A reactor whose thread pool is a L{HeldThreadPool} and whose
    C{callFromThread} calls at once.
    """

    def __init__(self):
        self.pool = HeldThreadPool()

    def getThreadPool(self):
        return self.pool

    def callFromThread(self, f, *args, **kw):
        f(*args, **kw)


class FakeZeroconf:
    closed = False

    def close(self):
        self.closed = True


class FakeListener:
    def __init__(self):
        self.waiting = Deferred()

    def whenListening(self):
        return self.waiting


class StopTests(SynchronousTestCase):
    """
    L{Announcer.stopService} at each stage leaves no zeroconf open.
    """

    def setUp(self):
        self.reactor = ThreadReactor()
        self.made = []
        self.listener = FakeListener()
        self.announcer = Announcer(
            self.reactor, {"checkers": self.listener}, name="t",
            newZeroconf=self.newZeroconf, lanAddresses=lambda: ["192.0.2.7"])

    def newZeroconf(self):
        zeroconf = FakeZeroconf()
        self.made.append(zeroconf)
        return zeroconf

    def test_beforeListening(self):
        """
        Stopped before the listeners listen: nothing is made.
        """
        self.announcer.startService()
        stopped = self.announcer.stopService()
        self.assertIsNone(self.successResultOf(stopped))
        self.listener.waiting.callback(FakePort("0.0.0.0", 1))
        self.assertEqual((self.made, self.reactor.pool.held), ([], []))

    def test_whileMaking(self):
        """
        Stopped while zeroconf is being made: it is closed once made,
        never registered, and the stop waits for that.
        """
        self.announcer.startService()
        self.listener.waiting.callback(FakePort("0.0.0.0", 1))
        stopped = self.announcer.stopService()
        self.assertNoResult(stopped)
        self.reactor.pool.release()
        self.assertNoResult(stopped)
        self.reactor.pool.release()
        self.successResultOf(stopped)
        self.assertEqual(len(self.made), 1)
        self.assertTrue(self.made[0].closed)
        self.assertIsNone(self.announcer.zeroconf)

    def test_loopbackOnly(self):
        """
        With every game on loopback, nothing is made and stopping is
        immediate.
        """
        self.announcer.startService()
        self.listener.waiting.callback(FakePort("127.0.0.1", 1))
        self.assertEqual(self.reactor.pool.held, [])
        self.successResultOf(self.announcer.stopService())
