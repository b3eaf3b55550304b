#!/usr/bin/env python3
"""
A random legal Splendor player for gamehub's stdio protocol
(docs/protocols/engines.md): each request line in, one action
({"op", "card", "gems"}) out.  It buys a card when it can, takes gems
otherwise, and reserves only when nothing else is legal.
"""

import json
import random
import sys

PREFERENCE = ("buy_card", "get_gems", "discard_gems", "get_noble")


def choose(request, rng):
    actions = request["legal"]
    for op in PREFERENCE:
        some = [a for a in actions if a["op"] == op]
        if some:
            return rng.choice(some)
    return rng.choice(actions)


def main():
    rng = random.Random()
    for line in sys.stdin:
        request = json.loads(line)
        action = choose(request, rng)
        print(json.dumps({"action": action,
                          "debug": "seat %d, %s" % (request["seat"],
                                                    action["op"])}),
              flush=True)


if __name__ == "__main__":
    main()
