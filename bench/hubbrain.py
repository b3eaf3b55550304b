"""
The hub's own gomoku bot as an engine over standard streams, for
C{bench/arena.py --protocol gomocup|stdio}: C{python hubbrain.py
gomocup|stdio LEVEL} plays as C{python -m hub.bots} does at LEVEL, but
as a Gomocup brain (START, BEGIN, TURN, BOARD, RESTART, ABOUT, END) or
a stdio engine (docs/protocols/engines.md), so that an arena of them
is compared with ordinary bot play at the same strength.
"""

import json
import sys

from hub.bots import botFor
from hub.games.gomoku import GomokuGame


def gomocup(bot):
    game = GomokuGame()

    def play():
        x, y = bot.chooseAction(game, game.currentSeat)
        game.apply(game.currentSeat, (x, y))
        print("%d,%d" % (x, y), flush=True)

    lines = iter(sys.stdin)
    for line in lines:
        words = line.strip().split(" ", 1)
        command = words[0].upper()
        if command in ("START", "RESTART"):
            game = GomokuGame()
            print("OK", flush=True)
        elif command == "BEGIN":
            play()
        elif command == "TURN":
            x, y = (int(v) for v in words[1].split(","))
            game.apply(game.currentSeat, (x, y))
            play()
        elif command == "BOARD":
            game = GomokuGame()
            for row in lines:
                if row.strip().upper() == "DONE":
                    break
                x, y, _ = (int(v) for v in row.strip().split(","))
                game.apply(game.currentSeat, (x, y))
            play()
        elif command == "ABOUT":
            print('name="hubbot", version="1", author="gamehub"',
                  flush=True)
        elif command == "END":
            return
        elif command != "INFO":
            print("UNKNOWN " + command, flush=True)


def stdio(bot):
    for line in sys.stdin:
        request = json.loads(line)
        game = GomokuGame()
        for x, y in request["position"]["moves"]:
            game.apply(game.currentSeat, (x, y))
        print(json.dumps({"action": list(bot.chooseAction(
            game, request["seat"]))}), flush=True)


if __name__ == "__main__":
    protocol, level = sys.argv[1], int(sys.argv[2])
    {"gomocup": gomocup, "stdio": stdio}[protocol](botFor("gomoku", level))
