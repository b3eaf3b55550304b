#!/usr/bin/env python3
"""
A random legal Chinese checkers player for gamehub's stdio protocol
(docs/protocols/engines.md): each request line in, one action (a path
of cells) out.  It picks at random among the longest paths, so that it
hops when it can.
"""

import json
import random
import sys


def choose(request, rng):
    paths = request["legal"]
    longest = max(len(path) for path in paths)
    return rng.choice([path for path in paths if len(path) == longest])


def main():
    rng = random.Random()
    for line in sys.stdin:
        request = json.loads(line)
        path = choose(request, rng)
        print(json.dumps({"action": path}), flush=True)


if __name__ == "__main__":
    main()
