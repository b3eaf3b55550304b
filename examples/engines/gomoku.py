#!/usr/bin/env python3
"""
A random legal gomoku player for gamehub's stdio protocol
(docs/protocols/engines.md): each request line in, one action out.
It plays next to a stone when it can, anywhere legal otherwise.
"""

import json
import random
import sys


def choose(request, rng):
    legal = [tuple(cell) for cell in request["legal"]]
    stones = {tuple(cell) for cell in request["position"]["moves"]}
    near = [(x, y) for x, y in legal
            if any((x + dx, y + dy) in stones
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1))]
    return list(rng.choice(near or legal))


def main():
    rng = random.Random()
    for line in sys.stdin:
        request = json.loads(line)
        action = choose(request, rng)
        print(json.dumps({"action": action,
                          "debug": "%d legal cells" % len(request["legal"])}),
              flush=True)


if __name__ == "__main__":
    main()
