"""
Interfaces made whole: every method an object of the web face, the
tournaments, the accounts or the composition root calls on a collaborator
of another package is declared on a C{zope.interface} the collaborator
provides, and the collaborator passes L{verifyObject} for it.

The graph is the real one, built by L{hub.tap.makeService} from options
alone.  Each object of a checked package is read for the calls it makes
through its own attributes (C{self.a.b.m(...)}, read with L{ast} from
its class and the hub's classes it inherits), and each function of a
checked package for the calls it makes through a parameter that always
holds the same object (L{NAMED}: C{auth.moderation.kick(...)}); the
receiver is found in the graph, and its package compared with the
caller's (a package is a subpackage of C{hub}, or a module directly
under it).  Calls on library
objects pass if the library is in L{LIBRARY}; L{HELPERS} and
L{UNFINISHED} name the rest, each with its reason.
"""

import ast
import glob
import inspect
import os
import shutil
import tempfile
import textwrap

from twisted.internet.testing import MemoryReactorClock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface import providedBy
from zope.interface.verify import verifyObject

from hub import tap
from hub.accounts.interfaces import (
    IAccounts, IDisplayNames, IGuessLimits, IModeration, INameService,
    IWebSessions)
from hub.ihub import (
    IGameFactory, ILobby, IPausableFactory, IPortListener, ISessions)
from hub.records.interfaces import IDatabase, IRecords
from hub.sandbox.interfaces import ISandbox
from hub.thinkers.shares import IBotShares
from hub.tournaments.interfaces import IPairings
from hub.web.interfaces import ITournamentsWeb, IWebAuth

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: The packages whose objects' calls are checked.
CALLERS = ("hub.web", "hub.accounts", "hub.tournaments", "hub.service",
           "hub.tap")

#: The libraries whose objects a hub object may call freely: their own
#: documentation is the contract (transports, the reactor, Deferreds,
#: loggers, containers).
LIBRARY = ("builtins", "collections", "_weakrefset", "twisted.",
           "autobahn.", "argon2.")

#: Modules of the hub whose objects are small helpers made by their
#: users (counters, gates, health checks, the tracked clock); no
#: interface is asked of them.
HELPERS = {
    "hub.limits": "rate counters, gates and summary logs",
    "hub.health": "the health checks' list, the hub service's own",
    "hub.clock": "the hub service's own tracked clock (IReactorTime "
                 "otherwise)",
}

#: Parameter name -> how the site (L{hub.web.site.HubSite}) reaches the
#: one object every function of L{CALLERS} means by it.
NAMED = {"auth": lambda site: site.auth}

#: (receiver's class, method) -> what is left to do.
UNFINISHED = {}


def package(module):
    """
    The package of the module named C{module}: C{hub.web} of
    C{hub.web.play.core}, C{hub.lobby} of itself.
    """
    return ".".join(module.split(".")[:2])


def isHubObject(value):
    """
    Whether C{value} is an instance of a class of the hub.
    """
    return (not isinstance(value, type)
            and type(value).__module__.startswith("hub."))


def graph(top):
    """
    Every object of the hub reachable from C{top} through attributes and
    containers.
    """
    seen = {}
    todo = [top]
    while todo:
        value = todo.pop()
        if id(value) in seen:
            continue
        if isinstance(value, dict):
            seen[id(value)] = value
            todo.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            seen[id(value)] = value
            todo.extend(value)
        elif isHubObject(value):
            seen[id(value)] = value
            todo.extend(getattr(value, "__dict__", {}).values())
    return [value for value in seen.values() if isHubObject(value)]


_calls = {}


def methodCalls(tree):
    """
    C{(name, chain, method)} of each call C{<name>.<chain>.<method>(...)}
    in the syntax tree C{tree}, C{chain} a tuple of attribute names.
    """
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)):
            continue
        chain = []
        value = node.func.value
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if isinstance(value, ast.Name):
            yield value.id, tuple(chain), node.func.attr


def selfCalls(cls):
    """
    C{(chain, method)} of each call C{self.<chain>.<method>(...)} in
    C{cls} and the hub's classes it inherits.
    """
    if cls not in _calls:
        found = set()
        for klass in cls.__mro__:
            if not klass.__module__.startswith("hub."):
                continue
            source = textwrap.dedent(inspect.getsource(klass))
            for name, chain, method in methodCalls(ast.parse(source)):
                if name == "self" and chain:
                    found.add((chain, method))
        _calls[cls] = found
    return _calls[cls]


def crossCalls(objects):
    """
    C{(caller, chain, method, receiver)} of each call an object of
    L{CALLERS} makes on an object of another package (or a library's).
    """
    for caller in objects:
        own = package(type(caller).__module__)
        if own not in CALLERS:
            continue
        for chain, method in sorted(selfCalls(type(caller))):
            receiver = caller
            for name in chain:
                receiver = getattr(receiver, name, None)
                if receiver is None:
                    break
            if receiver is None or (
                    isHubObject(receiver)
                    and package(type(receiver).__module__) == own):
                continue
            yield caller, chain, method, receiver


def namedCalls(site):
    """
    C{(caller, chain, method, receiver)} of each call C{<name>.<chain>.
    <method>(...)} through a parameter of L{NAMED} in the modules of
    L{CALLERS}, the caller being the module's name.
    """
    for folder in CALLERS:
        path = os.path.join(ROOT, *folder.split("."))
        paths = (glob.glob(os.path.join(path, "**", "*.py"), recursive=True)
                 if os.path.isdir(path) else [path + ".py"])
        for path in sorted(paths):
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            caller = os.path.relpath(path, ROOT)
            for root, chain, method in methodCalls(tree):
                if root not in NAMED:
                    continue
                receiver = NAMED[root](site)
                for name in chain:
                    receiver = getattr(receiver, name, None)
                if (isHubObject(receiver)
                        and package(type(receiver).__module__) != package(
                            caller[:-len(".py")].replace(os.sep, "."))):
                    yield (caller, (root,) + chain, method, receiver)


def declaring(receiver, method):
    """
    The interfaces C{receiver} provides that declare C{method}.
    """
    return [interface for interface in providedBy(receiver).flattened()
            if method in interface.names(all=True)]


class CollaboratorTests(SynchronousTestCase):
    """
    The graph the composition root builds keeps to the interfaces.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-collaborators-")
        self.addCleanup(shutil.rmtree, folder, True)
        options = tap.Options()
        options.parseOptions([
            "--gomoku-port", "tcp:0", "--checkers-port", "tcp:0",
            "--splendor-port", "tcp:0", "--web-port", "tcp:0",
            "--metrics-port", "tcp:0", "--announce", "no",
            "--engine-sandbox", "none",
            "--db", "sqlite:" + os.path.join(folder, "hub.sqlite")])
        self.top = tap.makeService(options, MemoryReactorClock())
        self.addCleanup(self.top.stopService)
        self.top.startService()
        self.objects = graph(self.top)

    def test_graph(self):
        """
        The walk reaches the web face, the accounts and the tournaments.
        """
        packages = {package(type(value).__module__)
                    for value in self.objects}
        for name in CALLERS[:-1]:
            self.assertIn(name, packages)

    def test_declared(self):
        """
        Each method called across packages is declared on an interface
        the receiver provides (or is a library's, a helper's, or listed
        as unfinished), and the receiver passes L{verifyObject} for it.
        """
        missing = set()
        unused = set(UNFINISHED)
        site = self.top.getServiceNamed("web-port").factory
        calls = list(crossCalls(self.objects))
        calls.extend(namedCalls(site))
        self.assertIn(("hub/tap.py", ("auth",), "collector"),
                      {call[:3] for call in calls})
        for caller, chain, method, receiver in calls:
            module = type(receiver).__module__
            if not isHubObject(receiver):
                if not module.startswith(LIBRARY) and module != "builtins":
                    missing.add(("library", module, method))
                continue
            if package(module) in HELPERS:
                continue
            interfaces = declaring(receiver, method)
            for interface in interfaces:
                self.assertTrue(verifyObject(interface, receiver))
            key = (type(receiver).__qualname__, method)
            if interfaces:
                self.assertNotIn(key, UNFINISHED)
            elif key in UNFINISHED:
                unused.discard(key)
            else:
                missing.add((caller if isinstance(caller, str)
                             else type(caller).__qualname__,
                             ".".join(chain), method,
                             type(receiver).__qualname__))
        self.assertEqual(sorted(missing), [])
        self.assertEqual(sorted(unused), [])

    def test_verified(self):
        """
        The objects used across packages, as the composition root builds
        them, pass L{verifyObject} for their interfaces.
        """
        top = self.top
        site = top.getServiceNamed("web-port").factory
        director = top.getServiceNamed("tournaments").director
        names = top.getServiceNamed("gomoku-port").factory.names
        for interface, value in [
                (ILobby, top.lobby), (ISessions, top.sessions),
                (INameService, names), (IModeration, names.moderation),
                (IAccounts, site.auth.accounts),
                (IWebSessions, site.auth.sessions),
                (IDisplayNames, site.auth.displays),
                (IGuessLimits, site.auth.limits),
                (IDatabase, director.database),
                (IRecords, site.web.records),
                (ISandbox, director.launcher.sandbox),
                (IBotShares, site.play.shares),
                (IPairings, director), (ITournamentsWeb, site.tournaments),
                (IPausableFactory, site), (IWebAuth, site.auth)] + [
                (IGameFactory, top.getServiceNamed(kind + "-port").factory)
                for kind in ("gomoku", "checkers", "splendor")] + [
                (IPortListener, top.getServiceNamed(name))
                for name in ("gomoku-port", "web-port", "metrics-port")]:
            self.assertTrue(verifyObject(interface, value), interface)

    def test_helpersAndLibraries(self):
        """
        L{HELPERS} names modules of the hub, L{LIBRARY} none.
        """
        for name in HELPERS:
            self.assertEqual(package(name), name)
            self.assertTrue(name.startswith("hub."))
        for name in LIBRARY:
            self.assertFalse(name.startswith("hub"))


_LIBRARY = "a library's object (twisted.web's request, channel, address)"
_THREAD = "a threading.local"
_RECORD = "a record or its id: a value, not a collaborator"
_REFLECT = "reflection over the module's own records and handlers"

#: Path -> the object (as written) that C{getattr} or C{hasattr} may
#: read -> why: the library's objects, values, and what is left.
DUCKS = {
    "hub/cluster/directory.py": {
        "self.redis": "txredisapi's connection, a Redis command called by "
                      "its name"},
    "hub/cluster/gate.py": {
        "self.transport.getPeer()": _LIBRARY,
        "front": "the protocol a transport reads into (twisted's): this "
                 "gate, or a link server feeding it",
        "member.session.peer": "unfinished: a room member's peer, of any "
                               "kind, has a gate only behind a gated "
                               "factory"},
    "hub/accounts/hashing.py": {"_lowered": _THREAD},
    "hub/accounts/names.py": {"_checkers": _THREAD},
    "hub/tournaments/brains.py": {"event": _RECORD},
    "hub/tournaments/engines.py": {
        "event": _RECORD, "pairing": _RECORD, "e": _RECORD,
        "entrant": _RECORD},
    "hub/web/accountpages.py": {"error": "an exception's optional field"},
    "hub/web/api.py": {"request.getClientAddress()": _LIBRARY},
    "hub/web/auth.py": {"request.getClientAddress()": _LIBRARY},
    "hub/web/door.py": {"address": _LIBRARY, "transport": _LIBRARY,
                        "channel": _LIBRARY},
    "hub/web/errors.py": {
        "peer": _LIBRARY, "request": _LIBRARY, "self.channel": _LIBRARY,
        "self.client": _LIBRARY,
        "getattr(request, 'site', None)": _LIBRARY,
        "getattr(self.channel, 'site', None)": _LIBRARY},
    "hub/web/live.py": {"events": _REFLECT},
    "hub/web/pages.py": {"request": _LIBRARY},
    "hub/web/play/codec.py": {"message": _REFLECT},
    "hub/web/play/player.py": {"type(self)": _REFLECT, "event": _REFLECT},
    "hub/web/site.py": {"addr": _LIBRARY, "address": _LIBRARY},
    "hub/web/stream.py": {
        "request": _LIBRARY, "getattr(request, 'channel', None)": _LIBRARY,
        "self.request.channel": _LIBRARY, "transport": _LIBRARY},
    "hub/web/ws.py": {
        "transport": _LIBRARY, "request.getClientAddress()": _LIBRARY,
        "channel": "Twisted's HTTPChannel, with the gate the web door "
                   "(hub.web.door) gives it"},
    "hub/tap.py": {"options": "twisted.python.usage's Options",
                   "self": "its own optional parent"},
}


def ducks(source):
    """
    C{(line, object)} of each C{getattr} and C{hasattr} in the module
    text C{source}, the object as written.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args):
            found.append((node.lineno, ast.unparse(node.args[0])))
    return sorted(found)


class NoDuckTypingTests(SynchronousTestCase):
    """
    No C{hasattr} or C{getattr} on a collaborator: the modules the
    wiring check reads (L{tests.test_wiring.ROOTS}) ask of nothing but
    what L{DUCKS} names.
    """

    def test_ducks(self):
        """
        Every C{getattr} and C{hasattr} reads an object L{DUCKS} allows,
        and each entry of L{DUCKS} is still used.
        """
        from tests.test_wiring import ROOTS
        for path in ROOTS:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                found = ducks(f.read())
            allowed = DUCKS.get(path, {})
            self.assertEqual(
                [(line, name) for line, name in found
                 if name not in allowed], [], path)
            self.assertEqual(
                sorted(set(allowed) - {name for line, name in found}), [],
                path)

    def test_rule(self):
        """
        The check finds both, with the object as written.
        """
        self.assertEqual(
            ducks("getattr(a.b, 'c', None)\nhasattr(d(), 'e')\nx.getattr(f)"),
            [(1, "a.b"), (2, "d()")])
