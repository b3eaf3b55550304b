"""
No error swallowed under hub/: every errback logs its failure, traps a
named type (re-raising the rest) or otherwise uses it, and no C{except}
is bare or an C{except Exception} that only passes.
"""

import ast
import os

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Errbacks still to fix (module, line): this list only shrinks.
REMAINING = set()


def hubSources():
    for top, dirs, names in os.walk(os.path.join(ROOT, "hub")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(top, name)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, ROOT), ast.parse(f.read())


def errbacks(tree):
    """
    The errbacks given to C{addErrback} and C{addCallbacks}.
    """
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr == "addErrback" and node.args:
            yield node.args[0]
        elif node.func.attr == "addCallbacks":
            if len(node.args) > 1:
                yield node.args[1]
            for keyword in node.keywords:
                if keyword.arg == "errback":
                    yield keyword.value


def uses(body, name):
    return any(isinstance(n, ast.Name) and n.id == name
               for part in body for n in ast.walk(part))


def drops(errback, functions):
    """
    Whether C{errback} ignores its failure: a lambda that returns a
    constant without looking at it, or a function of the same module
    whose body never names its failure argument.
    """
    if isinstance(errback, ast.Lambda):
        arguments = errback.args.args
        if not arguments:
            return True
        return (isinstance(errback.body, ast.Constant)
                and not uses([errback.body], arguments[0].arg))
    if isinstance(errback, ast.Attribute):
        name = errback.attr
    elif isinstance(errback, ast.Name):
        name = errback.id
    else:
        return False
    for function in functions.get(name, ()):
        arguments = [a.arg for a in function.args.args
                     if a.arg not in ("self", "cls")]
        if not arguments or not uses(function.body, arguments[0]):
            return True
    return False


def swallowedFailures(tree):
    functions = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
    for errback in errbacks(tree):
        if drops(errback, functions):
            yield errback.lineno, "errback drops its failure"


def swallowingExcepts(tree):
    for node in ast.walk(tree):
        if not isinstance(node, ast.ExceptHandler):
            continue
        if node.type is None:
            yield node.lineno, "bare except"
        elif (isinstance(node.type, ast.Name)
              and node.type.id in ("Exception", "BaseException")
              and all(isinstance(s, ast.Pass) for s in node.body)):
            yield node.lineno, "except {} that only passes".format(
                node.type.id)


class SwallowedTests(SynchronousTestCase):
    """
    The checks, on hub/ and on examples of what they catch.
    """

    def check(self, source):
        tree = ast.parse(source)
        return [what for _, what in
                list(swallowedFailures(tree)) + list(swallowingExcepts(tree))]

    def test_noErrbackDropsItsFailure(self):
        """
        No errback under hub/ drops its failure (but L{REMAINING}).
        """
        found = [(name, line, what) for name, tree in hubSources()
                 for line, what in swallowedFailures(tree)
                 if (name, line) not in REMAINING]
        self.assertEqual(found, [])

    def test_noExceptSwallows(self):
        """
        No C{except:} and no C{except Exception: pass} under hub/.
        """
        found = [(name, line, what) for name, tree in hubSources()
                 for line, what in swallowingExcepts(tree)]
        self.assertEqual(found, [])

    def test_catchesDroppingErrbacks(self):
        """
        The check names C{addErrback(lambda f: None)}, an errback method
        that never looks at its failure, and the errback of
        C{addCallbacks}; not one that traps or logs.
        """
        self.assertEqual(self.check("d.addErrback(lambda f: None)"),
                         ["errback drops its failure"])
        self.assertEqual(self.check(
            "class A:\n"
            "    def _quiet(self, failure):\n"
            "        return None\n"
            "    def go(self, d):\n"
            "        d.addCallbacks(self.go, self._quiet)\n"),
            ["errback drops its failure"])
        self.assertEqual(self.check(
            "d.addCallbacks(f, errback=lambda _: 0)"),
            ["errback drops its failure"])
        self.assertEqual(self.check(
            "def trapped(failure):\n"
            "    failure.trap(KeyError)\n"
            "d.addErrback(trapped)\n"
            "d.addErrback(lambda f: log.failure('x', f))\n"), [])

    def test_catchesSwallowingExcepts(self):
        """
        The check names a bare C{except:} and C{except Exception: pass};
        not a named exception's C{pass}, nor one that does something.
        """
        self.assertEqual(self.check(
            "try:\n    f()\nexcept:\n    raise\n"), ["bare except"])
        self.assertEqual(self.check(
            "try:\n    f()\nexcept Exception:\n    pass\n"),
            ["except Exception that only passes"])
        self.assertEqual(self.check(
            "try:\n    f()\nexcept OSError:\n    pass\n"
            "try:\n    f()\nexcept Exception:\n    log.failure('x')\n"),
            [])
