"""
A gomoku engine that plays only illegal moves, for the engine runner's
tests: C{python illegalengine.py HOST PORT NAME ROOM}.

It registers, joins C{ROOM} (waiting for it to exist) as the guest,
readies, and then answers every turn with a stone off the board, until
the game ends; it prints what it did and the result, and exits 0.
Plain sockets and L{hub.wire.gomoku}: no Twisted, no client layer.
"""

import socket
import sys
import time

from hub.wire import gomoku as W

#: A point off the 15x15 board.
OFF_BOARD = (99, 99)


def main(host, port, name, room):
    connection = socket.create_connection((host, int(port)))
    connection.settimeout(60)
    scanner = W.FrameScanner()
    session = [0]
    pending = {}

    def send(kind, build, *args, **kw):
        session[0] += 1
        pending[session[0]] = kind
        connection.sendall(W.encodeMessage(
            build(*args, session=session[0], **kw)))

    def move():
        time.sleep(0.02)
        send("move", W.moveMessage, 0, OFF_BOARD[0], OFF_BOARD[1],
             token=W.INVALID_U64)

    send("reg", W.regMessage, name)
    refused = 0
    while True:
        data = connection.recv(65536)
        if not data:
            print("connection closed", flush=True)
            return 1
        for payload in scanner.feed(data):
            message = W.decodeMessage(payload)
            kind = message["msg_type"]
            if kind == W.MSG_RESULT:
                what = pending.pop(message["session"], None)
                status = message["status"]
                if what == "reg":
                    send("join", W.roomOpMessage, W.RO_ROOM_JOIN, room, "")
                elif what == "join" and status:
                    time.sleep(0.1)
                    send("join", W.roomOpMessage, W.RO_ROOM_JOIN, room, "")
                elif what == "join":
                    send("ready", W.stateMessage, W.PLAYER_STATE_READY)
                elif what == "move" and status == W.S_MATCH_ILLEGAL_MOVE:
                    refused += 1
                    print("move refused", refused, flush=True)
                    move()
            elif kind == W.MSG_GAME and message["state"] == \
                    W.GAME_STATE_RUNNING:
                print("game started", flush=True)
                move()
            elif kind == W.MSG_MOVE:
                move()
            elif kind == W.MSG_GAME and message["state"] == W.GAME_STATE_END:
                print("game over: result", message["ex"], flush=True)
                return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
