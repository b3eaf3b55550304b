"""
The composition root makes every object whole: in L{hub.tap} (which
builds the hub's graph) and L{hub.web.site} (which builds the web
face's), no object is finished by setting an attribute of it after it
was made.  Its collaborators are passed to its constructor.

The rule, read from the source with L{ast}: an assignment (plain,
augmented, annotated, or unpacked from a tuple), a C{del} or a
C{setattr} may name an attribute only through C{self} or C{cls}.
"""

import ast
import os

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The modules that wire the hub's objects together.
ROOTS = ("hub/tap.py", "hub/web/site.py")


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


def foreignAssignments(source):
    """
    C{(line, text)} of each attribute set through anything but C{self}
    or C{cls} in the module text C{source}.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        for target in targets(node):
            if owner(target) not in ("self", "cls"):
                found.append((target.lineno, ast.unparse(target)))
    return sorted(found)


class NoFinishingTests(SynchronousTestCase):
    """
    The composition root's modules pass collaborators to constructors.
    """

    def test_roots(self):
        """
        No attribute of another object is set in L{ROOTS}.
        """
        for path in ROOTS:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                self.assertEqual(foreignAssignments(f.read()), [], path)

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
