"""
A Gomocup brain for the tests, speaking the Piskvork protocol exactly:
C{python gomocupbrain.py [MODE [SEED]]}.

It answers C{START 15} and C{RESTART} with C{OK} (another size with
C{ERROR}), keeps its C{INFO} values, plays C{BEGIN}, C{TURN x,y} and
C{BOARD}...C{DONE} with a random empty cell (seeded), answers C{ABOUT},
exits on C{END}, and answers anything else with C{UNKNOWN}.  It prints
a C{MESSAGE} line before any command, and a few before each move, with
its INFO values.  MODE:

  - C{fair}: as above, LF line ends;  C{crlf}: the same with CRLF;
  - C{late}: sleeps 1.5 x its C{timeout_turn} before its second move;
  - C{ponder}: a thread spins all the time (while stopped, it cannot);
  - C{illegal}: its second move is its first one again;
  - C{garbled}: its second move is C{h8} (not C{x,y});
  - C{error}: its second move is C{ERROR I give up};
  - C{silent}: answers no move after its first;
  - C{exit}: exits with status 3 at its second move;
  - C{debug}: 10 MB of C{DEBUG} lines before each move.
"""

import random
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "fair"
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
END = "\r\n" if MODE == "crlf" else "\n"
SIZE = 15


def say(text):
    sys.stdout.write(text + END)
    sys.stdout.flush()


class Brain:
    def __init__(self):
        self.random = random.Random(SEED)
        self.info = {}
        self.board = {}
        self.moves = 0
        self.games = 0

    def play(self, command):
        self.moves += 1
        say("MESSAGE move %d of game %d after %s, info %s" % (
            self.moves, self.games, command, sorted(self.info.items())))
        for i in range(3):
            say("MESSAGE thinking %d" % (i,))
        if MODE == "debug":
            line = "DEBUG " + "x" * 1000 + END
            sys.stdout.write(line * (10 * 1024 * 1024 // len(line)))
            sys.stdout.flush()
        if self.moves == 2:
            if MODE == "late":
                time.sleep(1.5 * int(self.info["timeout_turn"]) / 1000.0)
            elif MODE == "illegal":
                say("%d,%d" % self.first)
                return
            elif MODE == "garbled":
                say("h8")
                return
            elif MODE == "error":
                say("ERROR I give up")
                return
            elif MODE == "exit":
                sys.exit(3)
        if MODE == "silent" and self.moves > 1:
            return
        empty = [(x, y) for x in range(SIZE) for y in range(SIZE)
                 if (x, y) not in self.board]
        move = self.random.choice(empty)
        if self.moves == 1:
            self.first = move
        self.board[move] = 1
        say("%d,%d" % move)

    def command(self, line):
        words = line.strip().split(" ", 1)
        command = words[0].upper()
        rest = words[1] if len(words) > 1 else ""
        if command == "START":
            say("OK" if rest.strip() == "15" else "ERROR size 15 only")
        elif command == "RESTART":
            self.board = {}
            self.moves = 0
            self.games += 1
            say("OK")
        elif command == "INFO":
            key, _, value = rest.partition(" ")
            self.info[key] = value
        elif command == "BEGIN":
            self.play(command)
        elif command == "TURN":
            x, y = (int(v) for v in rest.split(","))
            self.board[(x, y)] = 2
            self.play(command)
        elif command == "BOARD":
            self.board = {}
            for row in sys.stdin:
                row = row.strip()
                if row.upper() == "DONE":
                    break
                x, y, field = (int(v) for v in row.split(","))
                self.board[(x, y)] = field
            self.play(command)
        elif command == "ABOUT":
            say('name="testbrain-%s", version="1.0", author="gamehub '
                'tests", country="CZ"' % (MODE,))
        elif command == "END":
            sys.exit(0)
        else:
            say("UNKNOWN %s" % (command,))


def spin():
    while True:
        pass


def main():
    say("MESSAGE testbrain %s ready" % (MODE,))
    if MODE == "ponder":
        threading.Thread(target=spin, daemon=True).start()
    brain = Brain()
    for line in sys.stdin:
        brain.command(line)


if __name__ == "__main__":
    main()
