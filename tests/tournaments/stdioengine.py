"""
A stdio engine for the tests (docs/protocols/engines.md), fair or
hostile: C{python stdioengine.py [MODE [SEED]]}.

It reads one request a line and answers a random element of its
C{legal} (seeded), with a C{debug} text; any game.  MODE:

  - C{fair}: as above;
  - C{late}: sleeps 1.5 x its C{turnMs} before its second answer;
  - C{ponder}: a thread spins all the time (while stopped, it cannot);
  - C{illegal}: its second answer is its first one again;
  - C{garbled}: its second answer is C{h8} (no JSON object);
  - C{silent}: answers nothing after its first answer;
  - C{exit}: exits with status 3 at its second request;
  - C{debug}: 10 MB of C{{"debug": ...}} lines before its first answer.
"""

import json
import random
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "fair"
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def spin():
    while True:
        pass


def main():
    rng = random.Random(SEED)
    if MODE == "ponder":
        threading.Thread(target=spin, daemon=True).start()
    answers = 0
    first = None
    for line in sys.stdin:
        request = json.loads(line)
        answers += 1
        if MODE == "debug" and answers == 1:
            debug = json.dumps({"debug": "x" * 1000}) + "\n"
            sys.stdout.write(debug * (10 * 1024 * 1024 // len(debug)))
            sys.stdout.flush()
        if answers == 2:
            if MODE == "late":
                time.sleep(1.5 * request["turnMs"] / 1000.0)
            elif MODE == "illegal":
                say({"action": first, "debug": "the same again"})
                continue
            elif MODE == "garbled":
                sys.stdout.write("h8\n")
                sys.stdout.flush()
                continue
            elif MODE == "exit":
                sys.exit(3)
        if MODE == "silent" and answers > 1:
            continue
        action = rng.choice(request["legal"])
        if first is None:
            first = action
        say({"action": action, "debug": "%s answer %d of %d legal" % (
            MODE, answers, len(request["legal"]))})
    return 0


if __name__ == "__main__":
    sys.exit(main())
