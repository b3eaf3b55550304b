"""
Command line entry point of the desktop client::

    python -m client_pyglet gomoku://127.0.0.1:11011 --name alice
    python -m client_pyglet                      (the start screen)
    python -m client_pyglet --offline checkers   (no server needed)
    python -m client_pyglet --watch http://127.0.0.1:8080/games/live-1

This is the only module of the client that touches the global reactor; it
hands the reactor (and its clock) to everything below.
"""

import argparse
import os
import sys

from hub.client.net import GAME_KINDS, parseURL
from hub.bots import LEVELS
from hub.client import i18n

def makeParser():
    """
    The argument parser of C{python -m client_pyglet}.
    """
    p = argparse.ArgumentParser(
        prog="python -m client_pyglet",
        description="Desktop client for gamehub: checkers, Splendor, "
                    "gomoku.")
    p.add_argument("url", nargs="?", default=None,
                   help="checkers://host:port, splendor://host:port "
                        "or gomoku://host:port; without it (and without "
                        "--offline) the start screen opens")
    p.add_argument("--offline", default=None, choices=GAME_KINDS,
                   metavar="GAME",
                   help="play GAME (checkers, splendor, gomoku) without a "
                        "server: a hub runs inside the client on "
                        "127.0.0.1; with --bot the game starts at once")
    p.add_argument("--watch", default=None, metavar="URL",
                   help="watch a game from a hub's web face, read-only: "
                        "live while it runs, then its replay "
                        "(http://HOST:PORT/games/ID, the game's page)")
    p.add_argument("--seat", default=None, metavar="REGION",
                   help="offline checkers: your region (A-F; default A)")
    p.add_argument("--humans", type=int, default=1, metavar="N",
                   help="offline checkers, Splendor: people at this "
                        "screen (hot seat when more than 1)")
    p.add_argument("--opponent-level", type=int, default=2,
                   choices=LEVELS,
                   help="offline: level of the bots in the other seats "
                        "(default 2)")
    p.add_argument("--colour", default="black", choices=("black", "white"),
                   help="offline gomoku: your colour (default black)")
    p.add_argument("--bot-delay", type=float, default=None,
                   metavar="SECONDS",
                   help="seconds the bots wait before each action")
    p.add_argument("--records", default=None, metavar="DB",
                   help="offline: where games are recorded (sqlite:PATH "
                        "or none; default a file in the user's data "
                        "directory)")
    p.add_argument("--name", default=None,
                   help="player name (checkers, gomoku; default the one "
                        "remembered by the start screen); NAME#KEY or "
                        "NAME__KEY is NAME with --key KEY")
    p.add_argument("--key", default=None,
                   help="play key of the account --name (sent in the name "
                        "field, never shown)")
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
                        "N players are in the room; offline: the player "
                        "count")
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
                        "of at the end of the game, then quit (for demos)")
    p.add_argument("--lang", default=None, choices=i18n.LANGUAGES,
                   help="the language of the windows (default: the "
                        "system locale's, LC_ALL, LC_MESSAGES or LANG; "
                        "English if it has no catalog)")
    p.add_argument("--width", type=int, default=1100)
    p.add_argument("--height", type=int, default=760)
    return p


def nameAndKey(args):
    """
    The name and play key the options C{args} give: C{--name} and
    C{--key}; a keyed C{--name} (C{alice#KEY}, C{alice__KEY}) is the
    name and its key, so that neither the title bar nor the player lists
    show the key.  Without a key, the start screen's remembered one is
    used if it proves this name (L{client_pyglet.settings}).
    """
    from hub.client.keyed import splitName
    name, key = splitName(args.name)
    if args.key is not None:
        key = args.key
    return name, key


def chooseLanguage(asked, environ=None):
    """
    The language of the windows: C{asked} (C{--lang}), else the system
    locale's (L{i18n.systemLanguage}).
    """
    return asked or i18n.systemLanguage(environ)


def main(argv=None):
    """
    Parse the command line, start the client and run the reactor.

    @return: the process exit status.
    """
    args = makeParser().parse_args(argv)
    i18n.setLanguage(chooseLanguage(args.lang))
    from hub import extras
    extras.require("client", "client_pyglet", "the desktop client")
    game, host, port = None, "127.0.0.1", 0
    if args.url is not None:
        if args.offline:
            sys.stderr.write("client_pyglet: give a URL or --offline, "
                             "not both\n")
            return 2
        try:
            game, host, port = parseURL(args.url)
        except ValueError as e:
            sys.stderr.write("client_pyglet: %s\n" % (e,))
            return 2
    elif args.offline:
        game = args.offline
    if args.watch is not None:
        if args.url is not None or args.offline:
            sys.stderr.write("client_pyglet: --watch goes alone (no URL, "
                             "no --offline)\n")
            return 2
        from hub.client.webapi import parseWatchURL
        try:
            parseWatchURL(args.watch)
        except ValueError as e:
            sys.stderr.write("client_pyglet: %s\n" % (e,))
            return 2
    if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        sys.stderr.write(
            "client_pyglet: no display (DISPLAY is not set); run it under "
            "a desktop session or `xvfb-run -a`\n")
        return 3
    from hub.client.userdirs import UserConfig
    config = UserConfig().load()
    if args.name is None:
        args.name = config.get("name") or "player%d" % (
            os.getpid() % 10000,)
    name, key = nameAndKey(args)

    from twisted.internet import reactor
    from twisted.logger import (
        Logger, globalLogBeginner, textFileLogObserver)
    if os.environ.get("CLIENT_PYGLET_LOG"):
        globalLogBeginner.beginLoggingTo(
            [textFileLogObserver(sys.stderr)])
    Logger().info("the windows speak {language}", language=i18n.language())

    from client_pyglet.app import App, Options
    options = Options(
        game=game, host=host, port=port, name=name, key=key, room=args.room,
        password=args.password, bot=args.bot,
        level=args.bot if args.bot else args.level,
        exitAfterGame=args.exit_after_game, players=args.players,
        turnSeconds=args.turn_seconds,
        screenshotAfter=args.screenshot_after, screenshot=args.screenshot,
        size=(args.width, args.height), offline=args.offline,
        seat=args.seat, humans=args.humans,
        opponentLevel=args.opponent_level, colour=args.colour,
        botDelay=args.bot_delay, records=args.records, watch=args.watch)
    app = App(reactor, reactor, options, config=config)
    reactor.callWhenRunning(app.start)
    reactor.run()
    return app.exitCode


if __name__ == "__main__":
    sys.exit(main())
