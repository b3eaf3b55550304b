"""
The bot client (C{python -m hub.bots}) against the real C{twistd -n
gamehub}: whole games over loopback for every game and player count, and
a dropped player's seat played to the end with C{--takeover bot}.
"""

import os
import re
import socket
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as gomokuWire
from tests.endtoend import GamehubServer, GomokuClient

TIMEOUT = 120
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def botClient(kind, port, *args):
    """
    Start C{python -m hub.bots kind://127.0.0.1:port args...}.
    """
    command = [sys.executable, "-m", "hub.bots",
               "%s://127.0.0.1:%d" % (kind, port), "--delay", "0",
               "--timeout", str(TIMEOUT)] + list(args)
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env)


class BotClientTests(SynchronousTestCase):
    """
    Bot teams play complete games through the server.
    """

    def play(self, kind, *args):
        """
        Run the bot client to its end; it must exit 0.

        @return: its result lines.
        """
        process = botClient(kind, self.server.port(kind), *args)
        out, err = process.communicate(timeout=TIMEOUT + 30)
        self.assertEqual(process.returncode, 0,
                         "bot client failed: %s" % (err.decode()[-2000:],))
        return out.decode().splitlines()

    def startServer(self, kind, *extra):
        self.server = GamehubServer(self, *extra, games=(kind,))

    def test_gomoku(self):
        """
        Two level 2 bots play a gomoku game to its end, twice: one wins,
        the other loses.
        """
        self.startServer("gomoku")
        lines = self.play("gomoku", "--count", "2", "--level", "2",
                          "--games", "2", "--room", "duel")
        self.assertEqual(len(lines), 2)
        for number, line in enumerate(lines, 1):
            self.assertRegex(line, r"^game %d: gomoku room duel: " % number)
            self.assertEqual(sorted(re.findall(r" (win|lose)\b", line)),
                             ["lose", "win"])

    def leaderboard(self, kind):
        """
        The server's leaderboard of C{kind} at the default minimum of
        games (C{python -m hub.records leaderboard} on its records).
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.run(
            [sys.executable, "-m", "hub.records", "leaderboard", kind],
            cwd=self.server.workdir, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=TIMEOUT,
            check=True).stdout.decode()

    def test_namesStay(self):
        """
        Bots keep their names (C{bot<level>_<seat>}) from game to game:
        after one run of five games both players of gomoku and checkers
        are on the leaderboard at its default minimum of five games (on
        a hub that checks no names: under C{--names accounts} bots play
        as guests, whom the leaderboards leave out).
        """
        for kind in ("gomoku", "checkers"):
            self.startServer(kind, "--names", "open")
            lines = self.play(kind, "--count", "2", "--level", "2",
                              "--games", "5")
            self.assertEqual(len(lines), 5)
            for line in lines:
                self.assertIn("bot2_1", line)
                self.assertIn("bot2_2", line)
            # Written in a batch up to half a second after they end.
            self.server.waitForLog(r"recorded %s game \d+" % (kind,), 5)
            board = self.leaderboard(kind)
            self.assertIn("bot2_1", board)
            self.assertIn("bot2_2", board)

    def test_nameTaken(self):
        """
        A gomoku name held by another player (another run of the same
        level) is not ours: the bot of that seat plays as the next
        team's seat, C{bot1_3} for a team of two, in every game of its
        run; the other bot keeps its own name.
        """
        self.startServer("gomoku")
        port = self.server.port("gomoku")
        holder = GomokuClient(port)
        self.addCleanup(holder.close)
        holder.send(gomokuWire.regMessage("bot1_1", holder.nextSession()))
        self.assertEqual(holder.receive()["status"], 0)
        lines = self.play("gomoku", "--count", "2", "--level", "1",
                          "--games", "2")
        self.assertEqual(len(lines), 2)
        for line in lines:
            self.assertEqual(
                sorted(re.findall(r"\b(bot1_\d+) (?:win|lose|draw)",
                                  line)), ["bot1_2", "bot1_3"], line)

    def test_gomokuCountOne(self):
        """
        Two bot clients with C{--count 1} meet in the same room (one
        creates it, the other joins as one more seat) and play; level 3
        against level 1.
        """
        self.startServer("gomoku")
        port = self.server.port("gomoku")
        first = botClient("gomoku", port, "--count", "1", "--level", "3",
                          "--room", "meet", "--name", "alpha")
        second = botClient("gomoku", port, "--count", "1", "--level", "1",
                           "--room", "meet", "--name", "beta")
        outs = [p.communicate(timeout=TIMEOUT + 30) for p in (first,
                                                              second)]
        self.assertEqual([first.returncode, second.returncode], [0, 0],
                         [err.decode()[-1000:] for out, err in outs])
        self.assertIn("alpha1 win", outs[0][0].decode())
        self.assertIn("beta1 lose", outs[1][0].decode())

    def checkCheckers(self, count, *extra):
        self.startServer("checkers", *extra)
        lines = self.play("checkers", "--room", "R", "--count", str(count),
                          "--level", "2")
        self.assertEqual(len(lines), 1)
        ranking = lines[0].split("ranking ")[1].split()
        self.assertEqual(len(ranking), count)
        self.assertEqual(len(set(ranking)), count)

    def test_checkersTwo(self):
        """
        Two checkers bots play to the end: the ranking names both.
        """
        self.checkCheckers(2)

    def test_checkersThree(self):
        """
        Three checkers bots play to the end.
        """
        self.checkCheckers(3)

    def test_checkersSix(self):
        """
        Six checkers bots play to the end.
        """
        self.checkCheckers(6)

    def test_checkersOne(self):
        """
        With --checkers-sizes 1,2,3,4,6, one bot plays the solitaire race
        home: the ranking names it alone.
        """
        self.checkCheckers(1, "--checkers-sizes", "1,2,3,4,6")

    def test_checkersFour(self):
        """
        With --checkers-four-players, four checkers bots play to the end.
        """
        self.checkCheckers(4, "--checkers-four-players")

    def checkSplendor(self, count, level="2"):
        self.startServer("splendor")
        lines = self.play("splendor", "--count", str(count), "--level",
                          level)
        self.assertEqual(len(lines), 1)
        match = re.match(r"game 1: splendor: winner (\S+) \(player \d+\) "
                         r"points (.*)$", lines[0])
        self.assertIsNotNone(match, lines[0])
        points = dict(p.split(":") for p in match.group(2).split())
        self.assertEqual(len(points), count)
        self.assertGreaterEqual(int(points[match.group(1)]), 15)

    def test_splendorTwo(self):
        """
        Two Splendor bots play to 15 points.
        """
        self.checkSplendor(2)

    def test_splendorThree(self):
        """
        Three Splendor bots (level 3) play at one table to the end.
        """
        self.checkSplendor(3, "3")

    def test_splendorFour(self):
        """
        Four Splendor bots play at one table to the end.
        """
        self.checkSplendor(4)


class TakeoverTests(SynchronousTestCase):
    """
    C{--takeover bot} keeps a game going after a player disconnects.
    """

    def test_gomoku(self):
        """
        A gomoku player drops mid-game; after the grace a server bot
        plays the seat, and the bot client on the other seat plays on to
        the end of the game.
        """
        server = GamehubServer(self, "--takeover", "bot", "--bot-delay",
                               "0.05", "--grace-seconds", "1",
                               games=("gomoku",))
        port = server.port("gomoku")
        human = GomokuClient(port)
        self.addCleanup(human.close)
        human.send(gomokuWire.regMessage("quitter", human.nextSession()))
        human.send(gomokuWire.roomOpMessage(
            gomokuWire.RO_ROOM_CREATE, "t", "", human.nextSession()))
        bot = botClient("gomoku", port, "--count", "1", "--level", "2",
                        "--room", "t", "--name", "stay")
        # The bot joins as guest (black) and readies; the human starts the
        # game, then drops.
        while True:
            m = human.receive()
            if (m["msg_type"] == gomokuWire.MSG_ROOM and m["room"]["gs"]
                    == gomokuWire.PLAYER_STATE_READY):
                break
        human.send(gomokuWire.requestMessage(gomokuWire.REQ_GAME_START,
                                             human.nextSession()))
        while human.receive()["msg_type"] != gomokuWire.MSG_GAME:
            pass
        human.close()
        out, err = bot.communicate(timeout=TIMEOUT)
        self.assertEqual(bot.returncode, 0, err.decode()[-2000:])
        self.assertRegex(out.decode(), r"game 1: gomoku room t: stay1 "
                                       r"(win|lose|draw)")

    def checkTakeover(self, kind, *roomArgs):
        """
        Two bot clients with C{--count 1} play C{kind}; one is killed
        mid-game; the other still plays the game to its end because a
        server bot plays the killed player's seat.
        """
        server = GamehubServer(self, "--takeover", "bot", "--bot-delay",
                               "0.05", games=(kind,))
        port = server.port(kind)
        common = ("--count", "1", "--level", "2") + roomArgs
        stay = botClient(kind, port, "--name", "stay", "--delay", "0.1",
                         *common)
        quitter = botClient(kind, port, "--name", "quit", "--delay", "0.1",
                            *common)
        self.addCleanup(lambda: quitter.poll() is None and quitter.kill())
        self.addCleanup(lambda: stay.poll() is None and stay.kill())
        try:
            quitter.wait(timeout=3)
        except subprocess.TimeoutExpired:
            quitter.kill()
        quitter.communicate(timeout=TIMEOUT)
        # Killed mid-game, not finished by itself.
        self.assertNotEqual(quitter.returncode, 0)
        out, err = stay.communicate(timeout=TIMEOUT)
        self.assertEqual(stay.returncode, 0, err.decode()[-2000:])
        return out.decode()

    def test_checkers(self):
        """
        A checkers player is cut off mid-game: the other finishes and the
        ranking still names both.
        """
        out = self.checkTakeover("checkers", "--room", "cut")
        ranking = out.split("ranking ")[1].split()
        self.assertEqual(sorted(ranking), ["quit1", "stay1"])

    def test_splendor(self):
        """
        A Splendor player is cut off mid-game: the table plays on to a
        winner.
        """
        out = self.checkTakeover("splendor")
        self.assertRegex(out, r"game 1: splendor: winner ")


class FailureTests(SynchronousTestCase):
    """
    Each way the bot client can fail ends it with one line on standard
    error saying why, exit status 1, and no traceback.  The cases of a
    test run at the same time.
    """

    def checkFailures(self, cases):
        """
        Run C{python -m hub.bots} for each C{(kind, port, args, pattern)}
        at once; each must fail with one line matching C{pattern}.
        """
        processes = [(botClient(kind, port, *args), pattern)
                     for kind, port, args, pattern in cases]
        for process, pattern in processes:
            self.addCleanup(lambda p=process: p.poll() is None and p.kill())
        problems = []
        for process, pattern in processes:
            out, err = process.communicate(timeout=60)
            lines = err.decode().splitlines()
            if (process.returncode != 1 or len(lines) != 1
                    or not re.match(pattern, lines[0]) or out):
                problems.append((process.args[3:], process.returncode,
                                 out.decode(), err.decode()))
        self.assertEqual(problems, [])

    def test_wrongPorts(self):
        """
        A bot client pointed at another game's port says within a few
        seconds that the server does not answer as its game does.
        """
        server = GamehubServer(self)
        port = server.port
        prefix = r"^python -m hub\.bots: game 1 failed: 127\.0\.0\.1:%d "
        self.checkFailures([
            ("gomoku", port("checkers"), (),
             prefix % port("checkers") + r"gave no answer in 5 s: is it a "
                                         r"gomoku port\?$"),
            ("gomoku", port("splendor"), (),
             prefix % port("splendor") + r"closed the connection without "
                                         r"an answer: is it a gomoku "
                                         r"port\?$"),
            ("checkers", port("gomoku"), (),
             prefix % port("gomoku") + r"gave no answer in 5 s: is it a "
                                       r"checkers port\?$"),
            ("splendor", port("checkers"), (),
             prefix % port("checkers") + r"gave no answer in 5 s: is it a "
                                         r"splendor port\?$"),
            ("splendor", port("gomoku"), (),
             prefix % port("gomoku") + r".*: is it a splendor port\?$"),
        ])

    def test_waitingAlone(self):
        """
        With C{--count 1} and nobody else, each game's bot gives up after
        C{--timeout} seconds, saying that it waited for players.
        """
        server = GamehubServer(self)
        prefix = r"^python -m hub\.bots: game 1 failed: no game started "
        self.checkFailures([
            ("gomoku", server.port("gomoku"),
             ("--count", "1", "--room", "alone", "--timeout", "2"),
             prefix + r"in room 'alone' within 2 s: waiting for players$"),
            ("checkers", server.port("checkers"),
             ("--count", "1", "--room", "alone", "--timeout", "2"),
             prefix + r"in room 'alone' within 2 s: waiting for players$"),
            ("splendor", server.port("splendor"),
             ("--count", "1", "--timeout", "2"),
             prefix + r"at the table within 2 s: waiting for players$"),
        ])

    def test_noServer(self):
        """
        Nothing listening: the connection is refused, said in one line.
        """
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.checkFailures([
            ("gomoku", port, (),
             r"^python -m hub\.bots: game 1 failed: cannot connect to "
             r"127\.0\.0\.1:%d: connection refused$" % (port,)),
        ])
