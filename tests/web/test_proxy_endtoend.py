"""
The real C{twistd -n gamehub} behind a real nginx (Debian's), configured
with the very block of C{docs/deploy.md} ("Behind nginx"; plain HTTP on a
free loopback port in place of its C{listen} and C{ssl_} lines), run
unprivileged with a private prefix in a temporary folder, and the hub on
C{--trusted-proxies 127.0.0.1}.  Two clients reach nginx from two source
addresses on loopback (127.0.0.2 the attacker, 127.0.0.3 the player): the
hub tells them apart in its login limits, its bans (403 at every door,
open streams and sockets closed), its audit and its log.
"""

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from twisted.trial.unittest import SynchronousTestCase

from hub.web.auth import LOGIN_ADDRESS_BURST

from tests.accounts.test_endtoend import accountsCommand
from tests.endtoend import TIMEOUT, GamehubServer, waitUntil

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DEPLOY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "docs", "deploy.md")
ATTACKER = "127.0.0.2"
PLAYER = "127.0.0.3"
PASSWORD = "Correct-Horse-Battery-9"
_CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def deployBlock():
    """
    The nginx configuration of C{docs/deploy.md}'s "Behind nginx".
    """
    with open(DEPLOY, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("### Behind nginx"):]
    return section.split("```nginx\n", 1)[1].split("```", 1)[0]


def nginxConfig(folder, port, upstream):
    """
    A whole nginx configuration: C{docs/deploy.md}'s block listening on
    C{port} over plain HTTP, proxying to the hub's web port C{upstream},
    everything it writes in C{folder}.
    """
    block = deployBlock()
    block = re.sub(r"listen 443 ssl;", "listen 127.0.0.1:%d;" % (port,),
                   block)
    block = re.sub(r"\n\s*ssl_certificate\S*\s[^\n]*", "", block)
    block = block.replace("http://127.0.0.1:8080",
                          "http://127.0.0.1:%d" % (upstream,))
    temp = "".join("    %s_temp_path %s;\n" % (kind, os.path.join(
        folder, kind)) for kind in ("client_body", "proxy", "fastcgi",
                                    "uwsgi", "scgi"))
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (user + "daemon off;\nworker_processes 1;\n"
            "pid %s;\nerror_log %s info;\n"
            "events { worker_connections 256; }\n"
            "http {\n    access_log %s;\n%s%s}\n") % (
        os.path.join(folder, "nginx.pid"),
        os.path.join(folder, "error.log"),
        os.path.join(folder, "access.log"), temp, block)


def freePort():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """
    nginx in front of C{upstream}, stopped at the test's cleanup.
    """

    def __init__(self, testCase, upstream):
        self.folder = tempfile.mkdtemp(prefix="gamehub-nginx-")
        testCase.addCleanup(shutil.rmtree, self.folder, True)
        self.port = freePort()
        path = os.path.join(self.folder, "nginx.conf")
        with open(path, "w") as f:
            f.write(nginxConfig(self.folder, self.port, upstream))
        self.process = subprocess.Popen(
            [NGINX, "-p", self.folder, "-c", path, "-e",
             os.path.join(self.folder, "error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        testCase.addCleanup(self.stop)
        waitUntil(self.accepting, TIMEOUT, self.log)

    def accepting(self):
        if self.process.poll() is not None:
            raise AssertionError("nginx exited: " + self.log())
        try:
            socket.create_connection(("127.0.0.1", self.port), 1).close()
        except OSError:
            return False
        return True

    def log(self):
        try:
            with open(os.path.join(self.folder, "error.log")) as f:
                return f.read()
        except OSError:
            return "(no nginx log)"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stderr.close()


class Client:
    """
    A blocking HTTP client of nginx from the source address C{source},
    keeping its cookies.
    """

    def __init__(self, port, source):
        self.port = port
        self.source = source
        self.cookies = {}

    def connect(self):
        return http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=TIMEOUT,
            source_address=(self.source, 0))

    def request(self, method, path, fields=None, headers=None):
        """
        C{(status, body text)}.
        """
        connection = self.connect()
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join("%s=%s" % item
                                       for item in self.cookies.items())
        body = None
        if fields is not None:
            from urllib.parse import urlencode
            body = urlencode(fields)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body, sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            for header in response.headers.get_all("Set-Cookie") or ():
                name, _, rest = header.partition("=")
                value = rest.split(";")[0]
                if value and "max-age=0" not in header.lower():
                    self.cookies[name] = value
                else:
                    self.cookies.pop(name, None)
            return response.status, text
        finally:
            connection.close()

    def login(self, name, password):
        _, page = self.request("GET", "/login")
        return self.request("POST", "/login", {
            "name": name, "password": password,
            "csrf": _CSRF.search(page).group(1)})[0]

    def raw(self, request):
        """
        A socket that sent C{request} (bytes), and the first line of the
        answer.
        """
        sock = socket.create_connection(("127.0.0.1", self.port), TIMEOUT,
                                        source_address=(self.source, 0))
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            more = sock.recv(4096)
            if not more:
                break
            data += more
        return sock, data.split(b"\r\n", 1)[0], data

    def stream(self):
        """
        An open event stream (C{/api/hub/events}), its first event read.
        """
        sock, status, data = self.raw(
            b"GET /api/hub/events HTTP/1.1\r\nHost: games.example.org\r\n"
            b"Accept: text/event-stream\r\n\r\n")
        assert b" 200 " in status, status
        while b"event: hub" not in data:
            more = sock.recv(4096)
            assert more, data
            data += more
        return sock

    def webSocket(self):
        """
        A WebSocket upgrade of C{/ws}: the socket and its status line.
        """
        sock, status, _ = self.raw(
            b"GET /ws HTTP/1.1\r\nHost: games.example.org\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n")
        return sock, status


def closedWithin(sock, seconds):
    """
    Whether the peer closes C{sock} within C{seconds} (what it sends
    meanwhile is read and dropped).
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if not sock.recv(65536):
                return True
        except socket.timeout:
            return False
        except OSError:
            return True
    return False


class BehindNginxTests(SynchronousTestCase):
    """
    The hub behind nginx, as docs/deploy.md configures them.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-proxy-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        accountsCommand(self.url, "add", "alice", stdin=PASSWORD + "\n")
        accountsCommand(self.url, "add", "root", "--role", "admin",
                        stdin=PASSWORD + "\n")
        self.hub = GamehubServer(self, "--db", self.url,
                                 "--trusted-proxies", "127.0.0.1",
                                 "--announce", "no",
                                 games=("gomoku", "web"))
        self.nginx = Nginx(self, self.hub.port("web"))
        self.attacker = Client(self.nginx.port, ATTACKER)
        self.player = Client(self.nginx.port, PLAYER)

    def logs(self):
        return "hub:\n{}\nnginx:\n{}".format("".join(self.hub.output),
                                             self.nginx.log())

    def test_lockoutIsTheAttackers(self):
        """
        An attacker hammering logins from one address is locked out; a
        player at another logs in (before, both were the proxy's one
        address: every login on the site was locked).
        """
        for n in range(LOGIN_ADDRESS_BURST + 5):
            self.assertEqual(self.attacker.login("x%d" % (n,), "guess"),
                             403)
        _, metrics = self.attacker.request("GET", "/metrics")
        locked = re.search(r'gamehub_web_logins_total\{result="locked"\} '
                           r'([0-9.]+)', metrics)
        self.assertGreaterEqual(float(locked.group(1)), 5, metrics[-500:])
        self.assertEqual(self.attacker.login("alice", PASSWORD), 403)
        self.assertEqual(self.player.login("alice", PASSWORD), 303,
                         self.logs())
        status, page = self.player.request("GET", "/account")
        self.assertEqual(status, 200)

    def test_banReachesTheClient(self):
        """
        A ban of the attacker's address (from the command line) closes
        its open event stream and WebSocket within the name service's
        refresh (2 s) and refuses it 403 at every door; the player, behind
        the same proxy, keeps its own and is served.  The log names the
        attacker's address, and the audit the admin's, for an API ban.
        """
        attackerStream = self.attacker.stream()
        attackerSocket, status = self.attacker.webSocket()
        self.assertIn(b" 101 ", status)
        playerStream = self.player.stream()
        playerSocket, status = self.player.webSocket()
        self.assertIn(b" 101 ", status)
        accountsCommand(self.url, "ban", ATTACKER, "--for", "1h",
                        "--reason", "flood")
        self.assertTrue(closedWithin(attackerStream, 10), self.logs())
        self.assertTrue(closedWithin(attackerSocket, 10), self.logs())
        self.assertFalse(closedWithin(playerStream, 0.5))
        self.assertFalse(closedWithin(playerSocket, 0.1))
        for path in ("/", "/api/hub", "/login", "/api/hub/events"):
            self.assertEqual(self.attacker.request("GET", path)[0], 403,
                             path)
            self.assertEqual(self.player.request("GET", path
                                                 if path[-6:] != "events"
                                                 else "/api/hub")[0],
                             200, path)
        _, status = self.attacker.webSocket()
        self.assertIn(b" 403 ", status)
        self.hub.waitForLog(r"closing a (web connection|WebSocket) of "
                            r"127\.0\.0\.2: banned")
        out = accountsCommand(self.url, "token", "root")
        token = out.strip().splitlines()[-1][len("token: "):]
        status, _ = self.player.request(
            "POST", "/api/admin/ban", headers={
                "Authorization": "Bearer " + token,
                "Content-Type": "application/json"})
        self.assertEqual(status, 400)
        connection = self.player.connect()
        connection.request("POST", "/api/admin/ban",
                           '{"target": "198.51.100.0/24", "for": "1h", '
                           '"reason": "x"}',
                           {"Authorization": "Bearer " + token,
                            "Content-Type": "application/json"})
        self.assertEqual(connection.getresponse().status, 200)
        connection.close()
        audit = accountsCommand(self.url, "audit")
        self.assertIn("198.51.100.0/24", audit)
        self.assertIn("(from 127.0.0.3)", audit)
