"""
No private name is used outside its module: under C{hub/} and
C{client_pyglet/}, a name with a single leading underscore (C{_name}; not
C{__dunder__}, not gettext's C{_}) is used only by the module that
defines it, and a library's only in L{hub.twistedinternals}.

The rule, read from the source with L{ast}:
 - C{x._name} (read, written or deleted, or C{getattr(x, "_name")} and
   its kin) through anything but C{self} or C{cls} needs C{_name} defined
   in the same module: a C{def}, a C{class}, an assignment, or
   C{self._name = ...};
 - C{self._name} and C{cls._name} need C{_name} defined in some module
   of the hub or the client (an attribute its own base class keeps);
   otherwise it is a library's, inherited;
 - C{from m import _name}, and any import of a private module, are
   refused.
L{hub.twistedinternals} is the fence: it may use the libraries' private
names, each listed in its C{PRIVATE}, and it holds the allow-list
(C{PRIVATE_USES}) of the uses still to remove.
"""

import ast
import os

from twisted.trial.unittest import SynchronousTestCase

from hub import twistedinternals

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = "hub/twistedinternals.py"
#: The functions that reach an attribute named by a string.
BY_NAME = ("getattr", "setattr", "hasattr", "delattr")


def sources():
    """
    C{(path from the root, syntax tree)} of every module under C{hub/}
    and C{client_pyglet/}.
    """
    for folder in ("hub", "client_pyglet"):
        for top, dirs, names in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(top, name)
                    relative = os.path.relpath(path, ROOT)
                    with open(path, encoding="utf-8") as f:
                        yield (relative.replace(os.sep, "/"),
                               ast.parse(f.read()))


def isPrivate(name):
    """
    Whether C{name} is private: one leading underscore or two without
    trailing ones; not gettext's C{_}.
    """
    return (name.startswith("_") and name != "_"
            and not (name.startswith("__") and name.endswith("__")))


def throughSelf(node):
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def definedNames(tree):
    """
    The names C{tree} defines: functions, classes, assigned names and the
    attributes it assigns through C{self} or C{cls}.
    """
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx,
                                                          ast.Load):
            names.add(node.id)
        elif (isinstance(node, ast.Attribute)
              and not isinstance(node.ctx, ast.Load)
              and throughSelf(node.value)):
            names.add(node.attr)
    return names


def attributes(tree):
    """
    C{(line, object, name)} for each attribute C{tree} reaches, by a dot
    or by C{getattr} and its kin with a constant name.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            yield node.lineno, node.value, node.attr
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in BY_NAME and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            yield node.lineno, node.args[0], node.args[1].value


def privateImports(tree):
    """
    C{(line, name)} for each private name or module C{tree} imports.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                for part in alias.name.split("."):
                    if isPrivate(part):
                        yield node.lineno, part
        elif isinstance(node, ast.ImportFrom):
            for part in (node.module or "").split("."):
                if isPrivate(part):
                    yield node.lineno, part
            for alias in node.names:
                if isPrivate(alias.name):
                    yield node.lineno, alias.name


def privateUses(tree, known=frozenset()):
    """
    C{(line, name, what)} for each private name C{tree} uses but does not
    define.

    @param known: the names the other modules of the hub and the client
        define (an attribute C{self} may inherit from them).
    """
    own = definedNames(tree)
    for line, name in privateImports(tree):
        yield line, name, "imported"
    for line, value, name in attributes(tree):
        if not isPrivate(name) or name in own:
            continue
        if not throughSelf(value):
            yield line, name, "another module's"
        elif name not in known:
            yield line, name, "a library's, through self"


def findings(modules):
    """
    C{(path, line, name, what)} for each private name a module of
    C{modules} (C{(path, tree)}) uses and does not define, but in the
    fence.
    """
    known = set()
    for path, tree in modules:
        if path != FENCE:
            known |= definedNames(tree)
    return [(path, line, name, what) for path, tree in modules
            if path != FENCE
            for line, name, what in privateUses(tree, known)]


class PrivateAttributeTests(SynchronousTestCase):
    """
    The check, on the hub and the client and on examples of what it
    catches.
    """

    def check(self, source, known=frozenset()):
        return sorted((name, what) for _, name, what in
                      privateUses(ast.parse(source), known))

    def test_noPrivateUsedOutsideItsModule(self):
        """
        No module under C{hub/} or C{client_pyglet/} uses a private name
        of another module or of a library, but those of
        C{twistedinternals.PRIVATE_USES}.
        """
        found = [(path, line, name, what)
                 for path, line, name, what in findings(list(sources()))
                 if (path, name) not in twistedinternals.PRIVATE_USES]
        self.assertEqual(found, [])

    def test_allowedStillUsed(self):
        """
        Every entry of C{twistedinternals.PRIVATE_USES} is still used: a
        use fixed leaves the list.
        """
        used = {(path, name) for path, _, name, _ in
                findings(list(sources()))}
        self.assertEqual(
            sorted(twistedinternals.PRIVATE_USES - used), [])

    def test_fenceListsItsPrivates(self):
        """
        Every private name of a library that L{hub.twistedinternals} uses
        is named in its C{PRIVATE}.
        """
        listed = {dotted.rsplit(".", 1)[1]
                  for dotted, _ in twistedinternals.PRIVATE}
        tree = dict(sources())[FENCE]
        used = {name for _, name, _ in privateUses(tree)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                used |= {name for name in definedNames(node)
                         if isPrivate(name)}
        self.assertTrue(used)
        self.assertEqual(sorted(used - listed), [])

    def test_catchesOthers(self):
        """
        The check names another module's private function or attribute
        (by a dot or by C{getattr}), the import of a private name or
        module, and a private through C{super()}.
        """
        self.assertEqual(self.check(
            "from hub.web import pages\n"
            "pages._deferredPage(request)\n"
            "board._active[0] = False\n"
            "getattr(board, '_active')\n"
            "super()._begin()\n"),
            [("_active", "another module's"),
             ("_active", "another module's"),
             ("_begin", "another module's"),
             ("_deferredPage", "another module's")])
        self.assertEqual(self.check(
            "from hub.web.pages import _logFailure\n"
            "from twisted.python import _pydoctor\n"
            "import twisted._version\n"),
            [("_logFailure", "imported"), ("_pydoctor", "imported"),
             ("_version", "imported")])

    def test_catchesLibraryThroughSelf(self):
        """
        C{self._name} that no module of the hub or the client defines is
        a library's, inherited.
        """
        source = ("class R(LineOnlyReceiver):\n"
                  "    def drop(self):\n"
                  "        self._buffer = b''\n"
                  "        return self._buffer\n")
        self.assertEqual(self.check(source), [])
        source = ("class R(LineOnlyReceiver):\n"
                  "    def drop(self):\n"
                  "        return len(self._buffer)\n")
        self.assertEqual(self.check(source),
                         [("_buffer", "a library's, through self")])
        self.assertEqual(self.check(source, known={"_buffer"}), [])

    def test_allowsOwn(self):
        """
        A module's own private names, through C{self} or not, dunders and
        gettext's C{_} pass.
        """
        self.assertEqual(self.check(
            "from hub.client.i18n import _\n"
            "def _helper():\n"
            "    pass\n"
            "class A:\n"
            "    _limit = 3\n"
            "    def __init__(self):\n"
            "        self._seen = []\n"
            "    def copy(self, other):\n"
            "        other._seen = list(self._seen)\n"
            "        return A._limit, self.__class__, _helper\n"), [])
