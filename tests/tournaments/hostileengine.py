"""
A hostile gomoku engine, for the hostile-engine suite
(L{tests.tournaments.test_hostile}): C{python hostileengine.py MODE HOST
PORT NAME ROOM [ARG...]}.

Once its bot has connected (its sandbox's own C{/proc/net/tcp} shows the
connection), a child of it misbehaves as MODE says, and prints one line
C{hostile MODE: JSON}; meanwhile it plays its game as the hub's bot
client does (C{python -m hub.bots}, level 1):

  - C{forkbomb}: forks until it cannot, and keeps the children;
  - C{memoryhog}: allocates until it cannot, and keeps it;
  - C{diskfiller}: writes until it cannot, everywhere it tries;
  - C{silent}: plays nothing (its bot waits 600 s before each move);
  - C{garbage}: prints garbage without end, and sends garbage to its
    own listener on a second connection;
  - C{intruder}: tries the hub's database (ARG 1), the web face's port
    (ARG 2) and the public game port (ARG 3), looks for another engine's
    key in every process it can see, and registers on its listener as
    each other entrant (ARG 4, comma-separated), with its own key and
    without.
"""

import json
import os
import socket
import sys
import time


def connected(port, seconds=60):
    """
    Wait until this sandbox has a connection to 127.0.0.1:PORT.
    """
    wanted = ":%04X" % (port,)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open("/proc/net/tcp") as f:
                for line in f.readlines()[1:]:
                    fields = line.split()
                    if fields[2].endswith(wanted) and fields[3] == "01":
                        return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def say(mode, found):
    print("hostile %s: %s" % (mode, json.dumps(found, sort_keys=True)),
          flush=True)


def forkbomb():
    children = 0
    while True:
        try:
            pid = os.fork()
        except OSError as e:
            say("forkbomb", {"children": children, "stopped": e.strerror})
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        children += 1
    time.sleep(600)


def memoryhog():
    blocks = []
    try:
        while True:
            blocks.append(bytearray(16 * 1024 * 1024))
    except MemoryError:
        pass
    say("memoryhog", {"mib": 16 * len(blocks)})
    time.sleep(600)


def diskfiller():
    found = {}
    for path in ("/tmp/fill", os.getcwd() + "/fill", "/usr/fill",
                 "/dev/shm/fill"):
        written = 0
        try:
            with open(path, "wb") as f:
                while True:
                    f.write(b"x" * 1048576)
                    f.flush()
                    written += 1
        except OSError as e:
            found[path] = [written, e.strerror]
    say("diskfiller", found)
    time.sleep(600)


def garbage(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        for i in range(100):
            s.sendall(b"<garbage \x00\xff %d>" % (i,) * 100)
    except OSError:
        pass
    noise = os.urandom(4096).hex() + "\n"
    while True:
        sys.stdout.write(noise)


def intruder(port, name, database, web, public, others):
    import sqlite3
    found = {}
    for how, url in (("read", "file:%s?mode=ro" % database),
                     ("write", database)):
        try:
            c = sqlite3.connect(url, uri=how == "read")
            c.execute("UPDATE accounts SET role = 'admin'")
            c.commit()
            found["database " + how] = "done"
        except sqlite3.Error as e:
            found["database " + how] = str(e)
    for what, p in (("web", web), ("public", public)):
        try:
            socket.create_connection(("127.0.0.1", int(p)), timeout=5)
            found[what] = "connected"
        except OSError as e:
            found[what] = e.__class__.__name__
    keys = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/environ" % (pid,), "rb") as f:
                    keys += [v for v in f.read().split(b"\0")
                             if v.startswith(b"GAMEHUB_KEY=")]
            except OSError:
                pass
    found["keys seen"] = len(set(keys))
    own = os.environ.get("GAMEHUB_KEY", "")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    from hub.wire import gomoku as W
    stolen = []
    tries = [(o, wire) for o in others.split(",") if o and o != name
             for wire in (o + "#" + own, o)]
    for other, wire in tries:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(W.encodeMessage(W.regMessage(wire, session=1)))
        scanner = W.FrameScanner()
        answer = None
        while answer is None:
            data = s.recv(4096)
            if not data:
                break
            for frame in scanner.feed(data):
                answer = W.decodeMessage(frame)
        if answer is not None and answer.get("status") == 0:
            stolen.append(wire)
        s.close()
    found["names tried"] = len(tries)
    found["names taken"] = stolen
    say("intruder", found)
    time.sleep(600)


def main(mode, host, port, name, room, *args):
    port = int(port)
    if mode != "silent" and os.fork() == 0:
        try:
            if connected(port):
                if mode == "forkbomb":
                    forkbomb()
                elif mode == "memoryhog":
                    memoryhog()
                elif mode == "diskfiller":
                    diskfiller()
                elif mode == "garbage":
                    garbage(port)
                elif mode == "intruder":
                    intruder(port, name, *args)
        finally:
            os._exit(0)
    bot = [sys.executable, "-m", "hub.bots",
           "gomoku://%s:%d" % (host, port), "--count", "1", "--name", name,
           "--key-env", "--room", room, "--level", "1", "--games", "1",
           "--seed", "3", "--timeout", "300",
           "--delay", "600" if mode == "silent" else "0"]
    os.execvp(bot[0], bot)


if __name__ == "__main__":
    main(*sys.argv[1:])
