"""
Command line entry point of the desktop client::

    python -m client_pyglet gomoku://127.0.0.1:11011 --name alice

This is the only module of the client that touches the global reactor; it
hands the reactor (and its clock) to everything below.
"""

import argparse
import os
import sys

from hub.client.net import parseURL
from hub.bots import LEVELS

def makeParser():
    """
    The argument parser of C{python -m client_pyglet}.
    """
    p = argparse.ArgumentParser(
        prog="python -m client_pyglet",
        description="Desktop client for gamehub: checkers, Splendor, "
                    "gomoku.")
    p.add_argument("url", help="checkers://host:port, splendor://host:port "
                               "or gomoku://host:port")
    p.add_argument("--name", default=None,
                   help="player name (checkers, gomoku)")
    p.add_argument("--room", default=None,
                   help="room to create or join (checkers, gomoku)")
    p.add_argument("--password", default="",
                   help="room password (gomoku)")
    p.add_argument("--bot", type=int, default=None, metavar="LEVEL",
                   choices=LEVELS,
                   help="let the local bot of this level play (AI 托管) "
                        "and walk the lobby by itself")
    p.add_argument("--level", type=int, default=2, choices=LEVELS,
                   help="bot level for the 托管 toggle and hints "
                        "(default 2)")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="with --bot (checkers, Splendor): ready only once "
                        "N players are in the room")
    p.add_argument("--turn-seconds", type=float, default=15,
                   metavar="SECONDS",
                   help="checkers: the server's turn limit, for the "
                        "countdown (the protocol does not carry it; "
                        "default 15)")
    p.add_argument("--exit-after-game", action="store_true",
                   help="quit when the game has ended")
    p.add_argument("--screenshot", default=None, metavar="FILE",
                   help="save the window as PNG when the game ends")
    p.add_argument("--screenshot-after", type=float, default=None,
                   metavar="SECONDS",
                   help="save the window to FILE after SECONDS instead "
                        "of at the end of the game (for demos)")
    p.add_argument("--width", type=int, default=1100)
    p.add_argument("--height", type=int, default=760)
    return p


def main(argv=None):
    """
    Parse the command line, start the client and run the reactor.

    @return: the process exit status.
    """
    args = makeParser().parse_args(argv)
    try:
        game, host, port = parseURL(args.url)
    except ValueError as e:
        sys.stderr.write("client_pyglet: %s\n" % (e,))
        return 2
    if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        sys.stderr.write(
            "client_pyglet: no display (DISPLAY is not set); run it under "
            "a desktop session or `xvfb-run -a`\n")
        return 3
    if args.name is None:
        args.name = "player%d" % (os.getpid() % 10000,)

    from twisted.internet import reactor
    from twisted.logger import globalLogBeginner, textFileLogObserver
    if os.environ.get("CLIENT_PYGLET_LOG"):
        globalLogBeginner.beginLoggingTo(
            [textFileLogObserver(sys.stderr)])

    from client_pyglet.app import App, Options
    options = Options(
        game=game, host=host, port=port, name=args.name, room=args.room,
        password=args.password, bot=args.bot,
        level=args.bot if args.bot else args.level,
        exitAfterGame=args.exit_after_game, players=args.players,
        turnSeconds=args.turn_seconds,
        screenshotAfter=args.screenshot_after, screenshot=args.screenshot,
        size=(args.width, args.height))
    app = App(reactor, reactor, options)
    reactor.callWhenRunning(app.start)
    reactor.run()
    return app.exitCode


if __name__ == "__main__":
    sys.exit(main())
