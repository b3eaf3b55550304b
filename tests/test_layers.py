"""
The layers of the design (C{docs/architecture.md}): every module under
C{hub/} and C{client_pyglet/} imports only from its own layer or below,
the imports form no cycle, and nothing under C{hub/} imports the desktop
client (C{client_pyglet}) or pyglet.

The imports are read from the source with L{ast}, every one of them,
those inside functions included, so an import that runs only on some
path counts as much as one at the top of a module.

One rule for entry points: a package's C{__main__} module is a program,
not a library; nothing imports it, and it may start any layer (e.g.
C{python -m hub.bots}, whose network bot player is L{hub.client}'s).
It still may not import pyglet or C{client_pyglet} from under C{hub/}.
"""

import ast
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile

from twisted.trial.unittest import SynchronousTestCase

import hub

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUI = ("client_pyglet", "pyglet")

#: The layers, lowest first: the packages and modules of each (the part
#: of a module's name after C{hub.}, or C{client_pyglet}).  The bare
#: C{hub} package (its C{__init__}) is below them all.
LAYERS = (
    ("hub",),
    ("wire", "games", "ihub", "clock", "net", "logs", "mdns", "extras",
     "twistedinternals"),
    ("bots", "lobby", "sessions", "limits", "connection", "health"),
    ("tables",),
    ("protocols", "records", "accounts", "web", "cluster", "tournaments",
     "metrics", "announce"),
    ("service", "tap", "exposure"),
    ("client",),
    ("client_pyglet", "pyglet"),
)
LAYER = {part: number for number, parts in enumerate(LAYERS)
         for part in parts}
#: The layer of an entry point (C{__main__}): above everything.
TOP = len(LAYERS)

#: Imports one module in a fresh interpreter and prints the GUI modules
#: it brought in.
PROBE = """
import importlib, sys
importlib.import_module(sys.argv[1])
print(" ".join(sorted(m for m in sys.modules
                      if m.split(".")[0] in {gui!r})))
""".format(gui=GUI)


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
    The layer number of C{module}; L{TOP} for an entry point.

    @raise KeyError: for a package that is in no layer.
    """
    if module.split(".")[-1] == "__main__":
        return TOP
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
    return problems


def cycles(root=ROOT):
    """
    The import cycles among the modules (strongly connected components
    of more than one module, or a module importing itself), each a
    sorted list of module names.
    """
    modules, edges = importGraph(root)
    graph = {module: set() for module in modules}
    selfLoops = []
    for importer, line, imported in edges:
        if imported == importer:
            selfLoops.append([importer])
        elif imported in graph:
            graph[importer].add(imported)
    # Tarjan, iteratively
    index, low, onStack, stack, found = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        onStack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    onStack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in onStack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component_ = []
                while True:
                    member = stack.pop()
                    onStack.discard(member)
                    component_.append(member)
                    if member == node:
                        break
                if len(component_) > 1:
                    found.append(sorted(component_))
    return sorted(found) + selfLoops


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
        self.assertIn(("hub.tables.base", "hub.bots"), imports)
        # from a package, a module of it
        self.assertIn(("hub.announce", "hub.mdns"), imports)

    def test_findsAWrongWayImport(self):
        """
        A wrong-way import, a cycle and an unplaced package are found in
        a tree that has them.
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
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("hub.extra: its package is in no layer", problems[0])
        self.assertRegex(problems[1], r"^hub/wire/codec.py:2 imports "
                                      r"hub.tables.x: "
                                      r"layer 1 \(wire\) imports layer 3 "
                                      r"\(tables\)$")
        self.assertEqual(cycles(tree), [["hub.tables", "hub.tables.x"]])


class LayerTests(SynchronousTestCase):
    """
    The tree keeps to its layers.
    """

    def test_layers(self):
        """
        Every import under C{hub/} and C{client_pyglet/} goes to the
        importer's own layer or one below (entry points aside), never to
        a C{__main__}, and never from C{hub/} to the GUI.
        """
        self.assertEqual(layerViolations(), [])

    def test_noCycles(self):
        """
        No module imports itself through others.
        """
        self.assertEqual(cycles(), [])

    def test_noGUI(self):
        """
        No module under C{hub/}, imported alone, brings C{client_pyglet}
        or C{pyglet} into C{sys.modules} (through a library, too).
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        failures = []
        for name in hubModules():
            result = subprocess.run(
                [sys.executable, "-c", PROBE, name], cwd=ROOT, env=env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                timeout=120)
            if result.returncode:
                failures.append("%s: import failed: %s" % (
                    name, result.stderr.decode()[-500:]))
            elif result.stdout.strip():
                failures.append("%s imports %s" % (
                    name, result.stdout.decode().strip()))
        self.assertEqual(failures, [])
