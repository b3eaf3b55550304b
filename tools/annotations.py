"""
How many functions under a folder are fully annotated (every parameter
but C{self} and C{cls}, and the return), per package and in all:

    python tools/annotations.py hub [--at-least 70]

With C{--at-least}, exit 1 when the whole is under that percentage.
"""

import argparse
import ast
import collections
import os
import sys


def annotated(function):
    """
    Whether C{function} (an C{ast.FunctionDef} or C{AsyncFunctionDef})
    annotates every parameter and its return.
    """
    arguments = function.args
    parameters = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    if parameters and parameters[0].arg in ("self", "cls"):
        parameters = parameters[1:]
    parameters += [a for a in (arguments.vararg, arguments.kwarg) if a]
    return function.returns is not None and all(
        p.annotation is not None for p in parameters)


def count(path):
    """
    C{(annotated, all)} functions of the module at C{path}.
    """
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    functions = [node for node in ast.walk(tree) if isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return sum(map(annotated, functions)), len(functions)


def package(root, path):
    """
    The package C{path} belongs to, under C{root}: its first folder, or
    the module itself at the top.
    """
    parts = os.path.relpath(path, root).split(os.sep)
    name = os.path.basename(root.rstrip(os.sep))
    return "/".join([name] + parts[:1]) if len(parts) > 1 else (
        name + "/" + parts[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("root")
    parser.add_argument("--at-least", type=float, default=None)
    options = parser.parse_args(argv)
    totals = collections.Counter()
    done = collections.Counter()
    for folder, _, files in os.walk(options.root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                yes, every = count(path)
                key = package(options.root, path)
                key = key if os.path.isdir(os.path.join(
                    os.path.dirname(options.root.rstrip(os.sep)),
                    key)) else "(top-level modules)"
                done[key] += yes
                totals[key] += every
    print("| package | annotated | functions | share |")
    print("|---|---|---|---|")
    for key in sorted(totals):
        print("| `{}` | {} | {} | {:.0f}% |".format(
            key, done[key], totals[key], 100 * done[key] / totals[key]))
    share = 100 * sum(done.values()) / sum(totals.values())
    print("| all | {} | {} | {:.1f}% |".format(
        sum(done.values()), sum(totals.values()), share))
    if options.at_least is not None and share < options.at_least:
        print("under {}%".format(options.at_least), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
