"""
Closed connections that held half a frame: 500 gomoku connections each send
64 KB of an unfinished frame, then close, for six rounds; the hub's RSS is
printed after each round.  Before closed connections were freed at once,
it climbed until the cyclic garbage collector ran.

    python bench/closed_frames.py [--rounds 6] [--clients 500]

It starts C{twistd -n gamehub} (records off) on free loopback ports from the
current directory's tree.
"""

import argparse
import socket
import subprocess
import time


def freePort():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss(pid):
    for line in open("/proc/%d/status" % (pid,)):
        if line.startswith("VmRSS"):
            return int(line.split()[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--clients", type=int, default=500)
    args = parser.parse_args()
    port = freePort()
    hub = subprocess.Popen(
        ["twistd", "-n", "--pidfile=", "gamehub", "--gomoku-port",
         "tcp:%d:interface=127.0.0.1" % (port,), "--checkers-port", "none",
         "--splendor-port", "none", "--web-port", "none", "--db", "none",
         "--max-connections-per-ip", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        print("start: RSS %.1f MB" % (rss(hub.pid) / 1024,))
        payload = b'<{"msg_type":3,"name":"' + b"x" * 64000
        for round in range(args.rounds):
            clients = []
            for _ in range(args.clients):
                client = socket.create_connection(("127.0.0.1", port))
                client.sendall(payload)
                clients.append(client)
            time.sleep(0.5)
            for client in clients:
                client.close()
            time.sleep(1.0)
            print("round %d: RSS %.1f MB" % (round + 1,
                                             rss(hub.pid) / 1024))
    finally:
        hub.terminate()
        hub.wait()


if __name__ == "__main__":
    main()
