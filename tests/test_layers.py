"""
The layers of the design (C{docs/architecture.md}): every module under
C{hub/} and C{client_pyglet/} imports only from its own layer or below
(within its layer, only the packages written before its own), the
imports form no cycle, and nothing under C{hub/} imports the desktop
client (C{client_pyglet}) or pyglet.

The imports are read from the source with L{ast}, every one of them,
those inside functions included, so an import that runs only on some
path counts as much as one at the top of a module.

A package's C{__main__} module is a program that nothing imports, and
it is in its package's layer like any other module: C{python -m
hub.bots} finds the network bot player of L{hub.client} through the
distribution's entry points (L{hub.programs}) instead of importing it.
The packages, too, form no cycle among themselves.
"""

import ast
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile

import networkx
from twisted.trial.unittest import SynchronousTestCase

import hub

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUI = ("client_pyglet", "pyglet")

#: The named layers, lowest first, and the packages and modules of each
#: (the part of a module's name after C{hub.}, or C{client_pyglet}).
#: The bare C{hub} package (its C{__init__}) is below them all.  Within a
#: layer, imports follow the order written: a package imports only the
#: packages written before it in its layer, and those of lower layers.
LAYERS = (
    ("package", ("hub",)),
    ("pure", ("ihub", "wire", "games", "clock", "net", "withouttls",
              "twistedinternals", "logs", "mdns", "extras", "programs",
              "commandline", "catalogs")),
    ("shared services", ("limits", "bots", "thinkers", "lobby", "sessions",
                         "connection", "health", "sandbox", "metrics")),
    ("tables", ("tables",)),
    ("stores", ("records", "accounts")),
    ("listeners and back ends", ("tournaments", "cluster", "announce")),
    ("faces", ("protocols", "web")),
    ("process", ("service", "exposure", "heap", "tap")),
    ("client", ("client",)),
    ("window", ("pyglet", "client_pyglet")),
)
LAYER = {part: number for number, (name, parts) in enumerate(LAYERS)
         for part in parts}
#: Each package's place in the order: its layer, then where it is
#: written in it.
ORDER = {part: (number, index)
         for number, (name, parts) in enumerate(LAYERS)
         for index, part in enumerate(parts)}


#: The libraries nearly every module of C{hub/} imports: L{PROBE} imports
#: them once, checked free of GUI modules, before it forks.
LIBRARIES = ("attr", "zope.interface", "twisted.python.failure",
             "twisted.logger", "twisted.internet.defer",
             "twisted.internet.protocol", "twisted.internet.endpoints",
             "twisted.application.service", "twisted.web.server")
#: Imports each module named in its arguments alone, each in a child
#: forked from an interpreter that has imported nothing of C{hub/} (as
#: fresh as C{python -c}, without its start-up and the L{LIBRARIES}
#: each time), and prints a line of JSON for each: its name and the GUI
#: modules it brought in, or why it could not be imported.  A first
#: line names the GUI modules the libraries brought in.
PROBE = """
import importlib, json, os, sys, traceback
for library in {libraries!r}:
    importlib.import_module(library)
print(json.dumps(sorted(m for m in sys.modules
                        if m.split(".")[0] in {gui!r})), flush=True)
for name in sys.argv[1:]:
    reading, writing = os.pipe()
    pid = os.fork()
    if not pid:
        os.close(reading)
        try:
            importlib.import_module(name)
            report = {{"gui": sorted(m for m in sys.modules
                                    if m.split(".")[0] in {gui!r})}}
        except BaseException:
            report = {{"failed": traceback.format_exc()[-500:]}}
        with os.fdopen(writing, "w") as out:
            json.dump(dict(report, name=name), out)
        os._exit(0)
    os.close(writing)
    with os.fdopen(reading) as answer:
        print(answer.read(), flush=True)
    os.waitpid(pid, 0)
""".format(gui=GUI, libraries=LIBRARIES)


def hubModules():
    """
    The names of every module and package under C{hub/}.
    """
    names = ["hub"]
    for info in pkgutil.walk_packages(hub.__path__, "hub."):
        names.append(info.name)
    return sorted(names)


def sourceModules(root=ROOT):
    """
    Every module of C{hub/} and C{client_pyglet/}, from the files.

    @return: a dict of module name to source path.
    """
    modules = {}
    for top in ("hub", "client_pyglet"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, root)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                modules[".".join(parts)] = path
    return modules


def component(module):
    """
    The part of C{module}'s name that places it in a layer: C{"tables"}
    for C{hub.tables.base}, C{"client_pyglet"}, C{"pyglet"}, C{"hub"}.
    """
    parts = module.split(".")
    if parts[0] != "hub":
        return parts[0]
    return parts[1] if len(parts) > 1 else "hub"


def layerOf(module):
    """
    The layer number of C{module} (a C{__main__} is in its package's).

    @raise KeyError: for a package that is in no layer.
    """
    return LAYER[component(module)]


def importsOf(module, path, modules):
    """
    What C{module} (at C{path}) imports of C{hub}, C{client_pyglet} and
    pyglet, each as C{(line, imported module)}: C{from a import b} names
    C{a.b} when that is a module, else C{a}; relative imports are
    resolved.  Imports inside functions count.
    """
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    isPackage = path.endswith("__init__.py")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not isPackage:
                    base = base[:-1]
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module
                                          else []))
            else:
                source = node.module
            targets = []
            for alias in node.names:
                full = "%s.%s" % (source, alias.name)
                targets.append(full if full in modules else source)
        else:
            continue
        for target in targets:
            if target.split(".")[0] in ("hub",) + GUI:
                found.append((node.lineno, target))
    return found


def importGraph(root=ROOT):
    """
    The import graph of C{hub/} and C{client_pyglet/}.

    @return: C{(modules, edges)}: the L{sourceModules}, and a list of
        C{(importer, line, imported)} with C{imported} the module itself
        (or, outside our packages, the name as written).
    """
    modules = sourceModules(root)
    edges = []
    for module, path in sorted(modules.items()):
        for line, target in importsOf(module, path, modules):
            while target not in modules and "." in target \
                    and target.split(".")[0] != "pyglet":
                target = target.rsplit(".", 1)[0]
            edges.append((module, line, target))
    return modules, edges


def layerViolations(root=ROOT):
    """
    Every import of the tree that goes against the layers, in words.
    """
    modules, edges = importGraph(root)
    problems = []
    for module in sorted(modules):
        if component(module) not in LAYER:
            problems.append("%s: its package is in no layer of "
                            "tests/test_layers.py" % (module,))
    for importer, line, imported in edges:
        where = "%s:%d imports %s" % (
            os.path.relpath(modules[importer], root), line, imported)
        if imported.split(".")[-1] == "__main__":
            problems.append(where + ": an entry point is never imported")
            continue
        if importer.startswith("hub") and component(imported) in GUI:
            problems.append(where + ": nothing under hub/ imports the GUI")
            continue
        try:
            low, high = layerOf(importer), layerOf(imported)
        except KeyError:
            continue    # reported above
        if high > low:
            problems.append("%s: layer %d (%s) imports layer %d (%s)" % (
                where, low, component(importer), high,
                component(imported)))
        elif ORDER[component(imported)] > ORDER[component(importer)]:
            problems.append("%s: %s is written after %s in layer %d (%s)"
                            % (where, component(imported),
                               component(importer), low, LAYERS[low][0]))
    return problems


def cycles(root=ROOT, of=lambda module: module):
    """
    The import cycles (strongly connected components of more than one
    node, or a node importing itself), each a sorted list of names.

    @param of: what a module counts as: itself (the default), or its
        package (L{component}-wise, through L{packageOf}) to find cycles
        between packages.
    """
    modules, edges = importGraph(root)
    graph = networkx.DiGraph()
    graph.add_nodes_from(of(module) for module in modules)
    selfLoops = []
    for importer, line, imported in edges:
        if imported not in modules:
            continue
        if importer == imported:
            selfLoops.append([importer])
            continue
        a, b = of(importer), of(imported)
        if a != b:
            graph.add_edge(a, b)
    found = [sorted(c) for c in networkx.strongly_connected_components(graph)
             if len(c) > 1]
    return sorted(found) + selfLoops


def packageOf(module):
    """
    The package of C{module} that the layers place: C{hub.web} for
    C{hub.web.site} (its C{__main__} included), C{client_pyglet}.
    """
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "hub" else parts[0]


class ImportGraphTests(SynchronousTestCase):
    """
    The reading of the imports (a check of the test itself).
    """

    def test_someModules(self):
        """
        The walk finds the layers, the imports inside functions and the
        relative ones.
        """
        modules, edges = importGraph()
        for name in ("hub", "hub.net", "hub.client.session",
                     "hub.client.botplayer", "hub.bots.__main__",
                     "hub.protocols.gomoku", "client_pyglet.app"):
            self.assertIn(name, modules)
        imports = {(a, b) for a, line, b in edges}
        # at the top of a module
        self.assertIn(("hub.tables.base", "hub.tables.seatpilot"), imports)
        # inside a function
        self.assertIn(("hub.tables.base", "hub.thinkers.inline"), imports)
        # from a package, a module of it
        self.assertIn(("hub.announce", "hub.mdns"), imports)

    def test_findsAWrongWayImport(self):
        """
        A wrong-way import (to a higher layer, or to a package written
        later in the importer's own layer), a cycle and an unplaced
        package are found in a tree that has them.
        """
        tree = tempfile.mkdtemp(prefix="layers-")
        self.addCleanup(shutil.rmtree, tree, True)
        files = {
            "hub/__init__.py": "",
            "hub/wire/__init__.py": "",
            "hub/wire/codec.py": "def f():\n    from hub.tables import x\n",
            "hub/tables/__init__.py": "from . import x\n",
            "hub/tables/x.py": "import hub.tables\n",
            "hub/extra.py": "",
            "hub/ihub.py": "import hub.games\n",
            "hub/games/__init__.py": "",
            "hub/bots/__main__.py": "import hub.client\n",
            "hub/client/__init__.py": "",
            "client_pyglet/__init__.py": "import pyglet\n",
        }
        for name, text in files.items():
            path = os.path.join(tree, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        problems = layerViolations(tree)
        self.assertEqual(len(problems), 4, problems)
        self.assertIn("hub.extra: its package is in no layer", problems[0])
        self.assertEqual(problems[1], "hub/bots/__main__.py:1 imports "
                         "hub.client: layer 2 (bots) imports layer 8 "
                         "(client)")
        self.assertEqual(problems[2], "hub/ihub.py:1 imports hub.games: "
                         "games is written after ihub in layer 1 (pure)")
        self.assertRegex(problems[3], r"^hub/wire/codec.py:2 imports "
                                      r"hub.tables.x: "
                                      r"layer 1 \(wire\) imports layer 3 "
                                      r"\(tables\)$")
        self.assertEqual(cycles(tree), [["hub.tables", "hub.tables.x"]])
        # between packages: tables and wire import each other
        with open(os.path.join(tree, "hub/tables/x.py"), "a") as f:
            f.write("import hub.wire.codec\n")
        self.assertEqual(cycles(tree, packageOf),
                         [["hub.tables", "hub.wire"]])


class LayerTests(SynchronousTestCase):
    """
    The tree keeps to its layers.
    """

    def test_layers(self):
        """
        Every import under C{hub/} and C{client_pyglet/} goes to the
        importer's own layer (a package written before it) or one below, never to a C{__main__}, and
        never from C{hub/} to the GUI.
        """
        self.assertEqual(layerViolations(), [])

    def test_storesListenersFaces(self):
        """
        What listens to tables is cut in three named layers: the stores
        (records, accounts), then the table listeners and back ends
        (tournaments, cluster), then the faces (protocols, web).
        """
        stores = {LAYER["records"], LAYER["accounts"]}
        listeners = {LAYER["tournaments"], LAYER["cluster"]}
        faces = {LAYER["protocols"], LAYER["web"]}
        self.assertEqual([len(stores), len(listeners), len(faces)],
                         [1, 1, 1])
        self.assertLess(LAYER["tables"], min(stores))
        self.assertLess(max(stores), min(listeners))
        self.assertLess(max(listeners), min(faces))
        self.assertLess(max(faces), LAYER["tap"])
        self.assertEqual([LAYERS[n][0] for n in (
            min(stores), min(listeners), min(faces))],
            ["stores", "listeners and back ends", "faces"])

    def test_noCycles(self):
        """
        No module imports itself through others.
        """
        self.assertEqual(cycles(), [])

    def test_noPackageCycles(self):
        """
        No package imports itself through others (the imports of all its
        modules, C{__main__} included, taken together).
        """
        self.assertEqual(cycles(of=packageOf), [])

    def test_sandboxPlaced(self):
        """
        The sandbox is in the layer of the hub's services (below the
        tournaments that use it), imports nothing of the hub's but
        itself and the library fence, and what runs inside a sandbox before the program
        (L{hub.sandbox.inside}, run with no site-packages) imports
        nothing but the standard library.
        """
        self.assertEqual(layerOf("hub.sandbox.process"), LAYER["limits"])
        self.assertLess(layerOf("hub.sandbox.process"),
                        layerOf("hub.tournaments.engines"))
        modules, edges = importGraph()
        self.assertEqual(
            sorted({b for a, line, b in edges
                    if a.startswith("hub.sandbox")}),
            ["hub.sandbox.confine", "hub.sandbox.interfaces",
             "hub.twistedinternals"])
        with open(modules["hub.sandbox.inside"], encoding="utf-8") as f:
            tree = ast.parse(f.read())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add(node.module.split(".")[0])
        self.assertEqual(imported - set(sys.stdlib_module_names), set())

    def test_clientOwnRoot(self):
        """
        The client library (offline play's composition root
        L{hub.client.localhub} included) imports neither the server's
        composition root (L{hub.tap}) nor the web face: the catalogs
        both faces read are in L{hub.catalogs}, below them.
        """
        modules, edges = importGraph()
        wrong = sorted("%s imports %s" % (a, b) for a, line, b in edges
                       if component(a) in ("client", "client_pyglet")
                       and component(b) in ("tap", "web"))
        self.assertEqual(wrong, [])
        self.assertIn(("hub.client.localhub", "hub.protocols.factories"),
                      {(a, b) for a, line, b in edges})

    def test_gomocupCodecPlaced(self):
        """
        The Gomocup codec (L{hub.wire.gomocup}) is in the pure layer,
        below the tournaments' driver of its brains, and imported alone
        brings no Twisted and nothing of the hub's but itself.
        """
        self.assertEqual(layerOf("hub.wire.gomocup"), LAYER["games"])
        self.assertLess(layerOf("hub.wire.gomocup"),
                        layerOf("hub.tournaments.gomocup"))
        modules, edges = importGraph()
        self.assertEqual([b for a, line, b in edges
                          if a == "hub.wire.gomocup"], [])
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        probe = ("import sys, hub.wire.gomocup\nprint(sorted({m.split('.')"
                 "[0] for m in sys.modules} & {'twisted', 'hub'}))")
        result = subprocess.run(
            [sys.executable, "-c", probe], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(result.stdout.decode().strip(), "['hub']",
                         result.stderr.decode()[-500:])

    def test_noGUI(self):
        """
        No module under C{hub/}, imported alone, brings C{client_pyglet}
        or C{pyglet} into C{sys.modules} (through a library, too: the
        L{LIBRARIES} imported before it bring in none).
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        names = hubModules()
        result = subprocess.run(
            [sys.executable, "-c", PROBE] + names, cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        self.assertEqual(result.returncode, 0, result.stderr.decode())
        libraries, *reports = [
            json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual(libraries, [])
        self.assertEqual([report["name"] for report in reports], names)
        failures = []
        for report in reports:
            if "failed" in report:
                failures.append("%s: import failed: %s" % (
                    report["name"], report["failed"]))
            elif report["gui"]:
                failures.append("%s imports %s" % (
                    report["name"], " ".join(report["gui"])))
        self.assertEqual(failures, [])
