"""
The wheel that C{python -m build} makes is the whole of gamehub: every
module and data file under C{hub/}, C{client_pyglet/} and
C{twisted/plugins/}, nothing of C{tests/} or C{bench/}, and metadata that
declares every distribution those modules import (and nothing unused).

The wheel is built once for this module, the way a release is: an sdist,
then the wheel from the unpacked sdist.  Building from the sdist means a
clean build folder every time (a wheel built in the source tree takes
whatever an earlier build left in C{build/lib}, which would hide a module
the configuration no longer lists).  When the build backend is installed
here (the test extra pulls in setuptools) it runs with C{--no-isolation}:
about a second, and no download of setuptools into a fresh environment
on every run; otherwise C{build} makes its isolated environment.
"""

import ast
import atexit
import email.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from importlib.metadata import packages_distributions

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: The folders whose every file goes into the wheel.
PACKAGED = ("hub", "client_pyglet", "twisted/plugins")

#: Files in those folders that are made by running the code, not shipped.
MADE = re.compile(r"(^|/)__pycache__/|\.py[co]$|(^|/)dropin\.cache$")

#: Our own top-level names: imported, but no requirement.
OWN = {"hub", "client_pyglet"}

#: Our own distribution (it shares the top-level name "twisted").
GAMEHUB = "gamehub"

#: The extra that only gathers the others for the tests.
TEST_EXTRA = "test"

_built = {}


def distributionsOf(top):
    """
    The normalized names of the installed distributions that provide the
    top-level name C{top}, gamehub left out (the mapping is computed
    once).
    """
    if "owners" not in _built:
        _built["owners"] = packages_distributions()
    return {normalize(d) for d in _built["owners"].get(top, [top])} - {
        GAMEHUB}


def sourceFiles():
    """
    Every file of the packaged folders, as paths relative to the project
    with C{/} separators.
    """
    found = set()
    for folder in PACKAGED:
        for path, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                relative = os.path.relpath(os.path.join(path, name), ROOT)
                relative = relative.replace(os.sep, "/")
                if not MADE.search(relative):
                    found.add(relative)
    return found


def isolationArguments():
    """
    C{["--no-isolation"]} if this interpreter has every build requirement
    that C{pyproject.toml} names, else C{[]}.  (Read here rather than by
    C{build}'s own check, which runs the backend twice: two seconds.)
    """
    import tomllib
    from importlib.metadata import PackageNotFoundError, version
    from packaging.requirements import Requirement
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        required = tomllib.load(f)["build-system"]["requires"]
    for line in required:
        requirement = Requirement(line)
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            return []
        if not requirement.specifier.contains(installed, prereleases=True):
            return []
    return ["--no-isolation"]


def builtWheel():
    """
    The path of the wheel built from this tree (built on the first call).
    """
    if "wheel" not in _built:
        outdir = tempfile.mkdtemp(prefix="gamehub-wheel-")
        atexit.register(shutil.rmtree, outdir, True)
        command = ([sys.executable, "-m", "build"] + isolationArguments()
                   + ["--outdir", outdir, ROOT])
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=600)
        if done.returncode:
            raise AssertionError("python -m build failed:\n" +
                                 done.stdout.decode()[-3000:])
        [name] = [n for n in os.listdir(outdir) if n.endswith(".whl")]
        _built["wheel"] = os.path.join(outdir, name)
    return _built["wheel"]


def wheelFiles():
    """
    The names in the wheel, its metadata folder left out.
    """
    with zipfile.ZipFile(builtWheel()) as wheel:
        return {name for name in wheel.namelist()
                if ".dist-info/" not in name}


def wheelMetadata():
    """
    The wheel's C{METADATA}, parsed.
    """
    with zipfile.ZipFile(builtWheel()) as wheel:
        [name] = [n for n in wheel.namelist()
                  if n.endswith(".dist-info/METADATA")]
        text = wheel.read(name).decode("utf-8")
    return email.parser.Parser().parsestr(text)


def requirements():
    """
    The wheel's requirements: a L{dict} mapping each extra (C{None} for
    the bare install) to the set of normalized distribution names.
    """
    from packaging.requirements import Requirement
    found = {}
    for line in wheelMetadata().get_all("Requires-Dist") or []:
        requirement = Requirement(line)
        match = re.search(r"""extra\s*==\s*["']([^"']+)["']""",
                          str(requirement.marker or ""))
        extra = match.group(1) if match else None
        found.setdefault(extra, set()).add(normalize(requirement.name))
    return found


def normalize(name):
    """
    A distribution name as PEP 503 compares them.
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def importedTopLevels():
    """
    The top-level names imported anywhere in the packaged folders (inside
    functions too), the standard library's left out: a L{dict} mapping
    each to one file that imports it (computed once).
    """
    if "imports" in _built:
        return _built["imports"]
    found = _built["imports"] = {}
    for relative in sorted(sourceFiles()):
        if not relative.endswith(".py"):
            continue
        with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
            tree = ast.parse(f.read(), relative)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names:
                    found.setdefault(top, relative)
    return found


class WheelFilesTests(SynchronousTestCase):
    """
    The wheel's file list.
    """

    def test_everyModule(self):
        """
        Every C{.py} file under C{hub/}, C{client_pyglet/} and
        C{twisted/plugins/} is in the wheel.
        """
        modules = {f for f in sourceFiles() if f.endswith(".py")}
        self.assertIn("hub/cluster/service.py", modules)
        self.assertIn("twisted/plugins/gamehub_reuseport.py", modules)
        self.assertEqual(sorted(modules - wheelFiles()), [])

    def test_everyDataFile(self):
        """
        Every other file there (the web face's static files, the
        migrations, the card data) is in the wheel.
        """
        data = {f for f in sourceFiles() if not f.endswith(".py")}
        for expected in ("hub/web/static/hub.css",
                         "hub/web/static/lobby.js",
                         "hub/games/splendor_cards.json"):
            self.assertIn(expected, data)
        self.assertTrue([f for f in data if f.endswith(".sql")])
        self.assertEqual(sorted(data - wheelFiles()), [])

    def test_nothingElse(self):
        """
        The wheel holds those folders' files only: no tests, no
        benchmarks, no caches.
        """
        self.assertEqual(sorted(wheelFiles() - sourceFiles()), [])

    def test_pluginsNamespace(self):
        """
        The plugins go into Twisted's C{twisted/plugins/}, which gamehub
        must not claim: no C{__init__.py} there or in C{twisted/}.
        """
        files = wheelFiles()
        self.assertNotIn("twisted/__init__.py", files)
        self.assertNotIn("twisted/plugins/__init__.py", files)


class WheelMetadataTests(SynchronousTestCase):
    """
    The wheel's requirements match the imports.
    """

    def test_everyImportDeclared(self):
        """
        Each distribution that a packaged module imports is required by
        the bare install or by one of the feature extras.
        """
        declared = set()
        for extra, names in requirements().items():
            if extra != TEST_EXTRA:
                declared |= names
        missing = []
        for top, where in sorted(importedTopLevels().items()):
            if top in OWN:
                continue
            if not distributionsOf(top) & declared:
                missing.append("{} (imported in {})".format(top, where))
        self.assertEqual(missing, [])

    def test_nothingUnused(self):
        """
        Each distribution the bare install or a feature extra requires is
        imported by a packaged module.
        """
        imported = set()
        for top in importedTopLevels():
            imported |= distributionsOf(top)
        unused = []
        for extra, names in requirements().items():
            if extra != TEST_EXTRA:
                unused += sorted(names - imported)
        self.assertEqual(unused, [])

    def test_extras(self):
        """
        The optional parts are extras: the PostgreSQL driver, the Redis
        client and the desktop client's pyglet; the test extra pulls them
        all in.
        """
        found = requirements()
        self.assertNotIn("psycopg", found[None])
        self.assertNotIn("txredisapi", found[None])
        self.assertNotIn("pyglet", found[None])
        self.assertEqual(found["postgres"], {"psycopg"})
        self.assertEqual(found["cluster"], {"txredisapi"})
        self.assertEqual(found["client"], {"pyglet"})
        self.assertIn("gamehub", found[TEST_EXTRA])
        self.assertNotIn("pytest-twisted", found[TEST_EXTRA])

    def test_oldestTwistedTested(self):
        """
        The oldest Twisted and the oldest autobahn that C{.ci/run} tests
        are the lower bounds of their requirements, and each requirement
        has an upper bound (the hub uses internals of both:
        L{hub.twistedinternals}).
        """
        from packaging.requirements import Requirement
        from packaging.version import Version
        with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
            script = f.read()
        for name, variable in (("twisted", "OLDEST_TWISTED"),
                               ("autobahn", "OLDEST_AUTOBAHN")):
            [line] = [line for line in
                      wheelMetadata().get_all("Requires-Dist")
                      if normalize(Requirement(line).name) == name]
            bounds = {spec.operator: Version(spec.version)
                      for spec in Requirement(line).specifier}
            tested = re.search(r"^%s=(\S+)$" % (variable,), script, re.M)
            self.assertEqual(bounds.get(">="), Version(tested.group(1)),
                             name)
            self.assertIn("<", bounds, name)
