"""
Objects are whole when made: in the composition root (L{hub.tap},
L{hub.service}) and in the web face, the tournaments and the accounts,
no object is finished by setting an attribute of it after it was made.
Its collaborators are passed to its constructor.

The rule, read from the source with L{ast}: an assignment (plain,
augmented, annotated, or unpacked from a tuple), a C{del} or a
C{setattr} may name an attribute only through C{self} or C{cls}, or
through an object L{ALLOWED} names with its reason.
"""

import ast
import glob
import os

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The packages checked, and the composition root's modules.
PACKAGES = ("hub/web", "hub/accounts", "hub/tournaments", "hub/cluster")
ROOTS = tuple(sorted(
    path[len(ROOT) + 1:] for package in PACKAGES
    for path in glob.glob(os.path.join(ROOT, package, "**", "*.py"),
                          recursive=True))) + ("hub/tap.py", "hub/service.py")

_RECORDS = "the module's own mutable records, not collaborators"
_PAIRED = "a player and its session (or connection) name each other"
_REQUEST = ("twisted.web's request: routing (postpath) and per-request "
            "data, as Twisted's resources do")
_BUILT = ("the factory finishes the protocol it builds, as Twisted's "
          "Factory.buildProtocol does")
_UNFINISHED = ("unfinished: the cluster, an add-on made after the hub, "
               "changes what the hub made; left, each a line to remove")
#: Path -> the object (as written) set through -> why that is no wiring.
ALLOWED = {
    "hub/cluster/gate.py": {"inner": _PAIRED, "gate": _BUILT},
    "hub/cluster/link.py": {
        "protocol": _BUILT,
        "gate.inner": "the client's address that a link relays, on the "
                      "protocol built for it (" + _UNFINISHED + ")"},
    "hub/cluster/routes.py": {
        "self.protocol": "a route decides for its protocol: the table or "
                         "echo it then answers with (" + _UNFINISHED + ")"},
    "hub/cluster/service.py": {
        "hub.sessions": _UNFINISHED, "factory.seats": _UNFINISHED},
    "hub/accounts/check.py": {
        "self._loop": "Twisted's LoopingCall takes its clock so",
        "self._prune": "Twisted's LoopingCall takes its clock so"},
    "hub/accounts/hashing.py": {"_lowered": "a threading.local"},
    "hub/accounts/names.py": {"_checkers": "a threading.local"},
    "hub/tournaments/brains.py": {"player": _PAIRED},
    "hub/tournaments/director.py": {"run": _RECORDS, "live": _RECORDS},
    "hub/tournaments/engines.py": {"seat": _RECORDS, "game": _RECORDS},
    "hub/tournaments/gomocup.py": {"wait": _RECORDS},
    "hub/web/accountpages.py": {"request": _REQUEST},
    "hub/web/adminactions.py": {"change": "a made function's name, doc"},
    "hub/web/api.py": {"request": _REQUEST},
    "hub/web/pages.py": {"translated": "a copy of a template tag"},
    "hub/web/play/core.py": {
        "bot": _PAIRED, "player": _PAIRED, "connection": _PAIRED},
    "hub/web/play/player.py": {"old": _PAIRED},
    "hub/web/tournaments.py": {"request": _REQUEST},
    "hub/web/ws.py": {
        "protocol": "the factory finishes the protocol it builds, as "
                    "Twisted's Factory.buildProtocol does",
        "channel": "the web door's gate of one HTTP connection (hub.web."
                   "door), handed over to its WebSocket"},
}


def targets(node):
    """
    The attribute nodes that C{node} (a statement or a call) sets.
    """
    if isinstance(node, ast.Assign):
        found = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        found = [node.target]
    elif isinstance(node, ast.Delete):
        found = node.targets
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
          and node.func.id in ("setattr", "delattr") and node.args):
        return [node]
    else:
        return []
    flat = []
    while found:
        target = found.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            found.extend(target.elts)
        elif isinstance(target, ast.Starred):
            found.append(target.value)
        elif isinstance(target, ast.Attribute):
            flat.append(target)
    return flat


def owner(target):
    """
    The name an attribute is set through: C{x} of C{x.a = ...} or
    C{setattr(x, ...)}, or None when it is not a plain name.
    """
    value = target.args[0] if isinstance(target, ast.Call) else target.value
    return value.id if isinstance(value, ast.Name) else None


def through(target):
    """
    The object (as written) an attribute is set through.
    """
    if isinstance(target, ast.Call):
        return ast.unparse(target.args[0])
    return ast.unparse(target.value)


def foreignAssignments(source, allowed=()):
    """
    C{(line, text)} of each attribute set through anything but C{self}
    or C{cls} in the module text C{source}, but for those set through
    an object named in C{allowed}.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        for target in targets(node):
            if (owner(target) not in ("self", "cls")
                    and through(target) not in allowed):
                found.append((target.lineno, ast.unparse(target)))
    return sorted(found)


class NoFinishingTests(SynchronousTestCase):
    """
    The composition root's modules pass collaborators to constructors.
    """

    def test_roots(self):
        """
        No attribute of another object is set in L{ROOTS}, but through
        the objects L{ALLOWED} names.
        """
        self.assertIn("hub/web/site.py", ROOTS)
        self.assertIn("hub/tournaments/director.py", ROOTS)
        for path in ROOTS:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                found = foreignAssignments(f.read(), ALLOWED.get(path, ()))
            self.assertEqual(found, [], path)

    def test_allowedUsed(self):
        """
        Each entry of L{ALLOWED} is still needed: the allow-list only
        shrinks.
        """
        for path, allowed in ALLOWED.items():
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                found = {text for line, text in
                         foreignAssignments(f.read())}
            for name in allowed:
                self.assertTrue(
                    any(text.startswith(name + ".") or
                        text.startswith("setattr(" + name + ",")
                        for text in found), (path, name))

    def test_rule(self):
        """
        The check finds an attribute set on another object, however it
        is written, and lets C{self}'s and C{cls}'s be.
        """
        source = "\n".join([
            "a.b = 1",
            "a.b.c += 1",
            "x, (a.d, y) = 1, (2, 3)",
            "a.e: int = 1",
            "setattr(a, 'f', 1)",
            "del a.g",
            "a().h = 1",
            "self.i = cls.j = 1",
            "k = a.l",
            "a.m(n=1)",
        ])
        self.assertEqual(foreignAssignments(source), [
            (1, "a.b"), (2, "a.b.c"), (3, "a.d"), (4, "a.e"),
            (5, "setattr(a, 'f', 1)"), (6, "a.g"), (7, "a().h")])
        self.assertEqual(foreignAssignments(source, {"a", "a.b"}),
                         [(7, "a().h")])
