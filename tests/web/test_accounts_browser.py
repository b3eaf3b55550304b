"""
The accounts' pages in a real browser (Debian's C{chromium} through
C{selenium}, headless, as L{tests.web.test_browser} drives it) against
the real C{twistd -n gamehub --db sqlite:PATH}: a person registers, logs
in and sees a play key; a player's session cannot open C{/admin}; an
admin made with C{python -m hub.accounts} kicks a connected gomoku
player, bans an account and reads the audit; a person logged in plays at
C{/play} under the account, and logged out is a guest.
"""

import os
import shutil
import tempfile
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from hub.accounts import names
from hub.wire import gomoku as gwire

from tests.accounts.test_endtoend import accountsCommand, closedWithin
from tests.endtoend import GamehubServer, GomokuClient
from tests.web.test_browser import WAIT, browser

PASSWORD = "Correct-Horse-Battery-9"


class AccountsBrowserTests(SynchronousTestCase):
    """
    A person at the accounts' pages.
    """

    def setUp(self):
        self.driver = browser()
        self.addCleanup(self.driver.quit)
        folder = tempfile.mkdtemp(prefix="gamehub-accounts-web-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        accountsCommand(self.url, "add", "root", "--role", "admin",
                        stdin=PASSWORD + "\n")
        self.server = GamehubServer(self, "--db", self.url, "--announce",
                                    "no", games=("gomoku", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def one(self, selector):
        found = self.wait(lambda: self.find(selector), "no " + selector)
        return found[0]

    def wait(self, condition, message):
        # A page being replaced by the next one (a form sent) makes its
        # elements stale: asked again at the next poll.
        from selenium.common.exceptions import (
            NoSuchElementException, StaleElementReferenceException)
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(
            self.driver, WAIT, poll_frequency=0.1,
            ignored_exceptions=(StaleElementReferenceException,
                                NoSuchElementException)).until(
            lambda driver: condition(), message)

    def fill(self, form, **fields):
        """
        Type into the fields of the form C{form} (a CSS selector) as a
        person does, then press its button.
        """
        for name, text in fields.items():
            element = self.one("{} [name={}]".format(form, name))
            element.clear()
            element.send_keys(text)
        self.one(form + " button").click()

    def heading(self):
        found = self.find("main h1")
        return found[0].text if found else None

    def mainText(self):
        found = self.find("main")
        return found[0].text if found else ""

    def open(self, path):
        self.driver.get(self.base + path)

    def logIn(self, name):
        self.open("/login")
        self.fill("form.login", name=name, password=PASSWORD)
        self.wait(lambda: self.heading() == "Your account",
                  "not logged in as " + name)

    def logOut(self):
        self.open("/account")
        self.one("form.logout button").click()
        self.wait(lambda: self.driver.current_url.rstrip("/") == self.base,
                  "not logged out")

    def nameKnown(self, name):
        """
        Whether the hub's name check (refreshed every 2 s) refuses
        C{name} to a gomoku guest: it has read the account.
        """
        player = GomokuClient(self.server.port("gomoku"))
        try:
            player.send(gwire.regMessage(name, player.nextSession(),
                                         gwire.INVALID_TOKEN))
            return player.receive()["status"] == gwire.S_PLAYER_EXISTS
        finally:
            player.close()

    def test_registerPlayAdminister(self):
        # A person registers: the page shows a play key once.
        self.open("/")
        self.one("nav a.account").click()
        self.wait(lambda: self.heading() == "Log in", "no login page")
        self.one("a[href='/register']").click()
        self.fill("form.register", name="alice", password=PASSWORD,
                  again=PASSWORD)
        self.wait(lambda: self.heading() == "Registered", "not registered")
        key = self.one(".play-key").text
        self.assertRegex(key, r"^[A-Za-z0-9]{%d}$" % (names.KEY_LENGTH,))
        self.assertIn("alice__" + key, self.one(".new-key").text)
        secrets = [PASSWORD, key]
        cookies = {c["name"]: c for c in self.driver.get_cookies()}
        secrets.append(cookies["gamehub_session"]["value"])
        self.assertTrue(cookies["gamehub_session"]["httpOnly"])
        self.assertEqual(cookies["gamehub_session"]["sameSite"], "Lax")
        self.assertFalse(cookies["gamehub_session"]["secure"])

        # Logged out and in again, she sees her account, not the key, and
        # makes a new one.
        self.logOut()
        self.logIn("alice")
        self.assertNotIn(key, self.driver.page_source)
        self.one("form.new-key-form button").click()
        self.wait(lambda: self.heading() == "Your new play key", "no key")
        newKey = self.one(".play-key").text
        self.assertNotEqual(newKey, key)
        secrets.append(newKey)
        secrets.append(self.driver.get_cookie("gamehub_session")["value"])

        # A player's session cannot open /admin.
        self.open("/admin")
        self.wait(lambda: self.heading() == "Forbidden", "admin opened")
        self.assertFalse(self.find("table.connections"))
        self.logOut()

        # A gomoku player is connected; the admin kicks it.
        player = GomokuClient(self.server.port("gomoku"))
        self.addCleanup(player.close)
        player.send(gwire.regMessage("carl", player.nextSession(),
                                     gwire.INVALID_TOKEN))
        self.assertEqual(player.receive()["status"], gwire.S_OK)
        self.logIn("root")
        secrets.append(self.driver.get_cookie("gamehub_session")["value"])
        self.one("nav a.admin").click()
        self.wait(lambda: self.heading() == "Moderation", "no admin page")
        row = self.one("tr.connection[data-name=carl]")
        self.assertIn("gomoku", row.text)
        self.assertIn("127.0.0.1", row.text)
        self.fill("tr.connection[data-name=carl] form.kick",
                  reason="testing kicks")
        self.wait(lambda: "Connection closed." in self.mainText(),
                  "no kick")
        self.assertTrue(closedWithin(player, WAIT))
        self.assertFalse(self.find("tr.connection[data-name=carl]"))

        # She bans alice, and reads the audit.
        self.fill("form.ban", target="alice", reason="spam")
        self.wait(lambda: "Banned." in self.mainText(), "no ban")
        self.one("a[href='/admin/audit']").click()
        self.wait(lambda: self.heading() == "Audit", "no audit")
        rows = [r.text for r in self.find("tr.audit-row")]
        self.assertTrue(any("ban" in r and "alice" in r and "spam" in r
                            for r in rows), rows)
        self.assertTrue(any("kick" in r and "carl" in r and
                            "testing kicks" in r for r in rows), rows)
        self.assertTrue(all("root" in r for r in rows[:2]), rows)
        self.logOut()

        # Banned, alice cannot log in.
        self.open("/login")
        self.fill("form.login", name="alice", password=PASSWORD)
        self.wait(lambda: "banned" in self.mainText(), "logged in")

        # No password, key or session id in the hub's log or metrics.
        with urllib.request.urlopen(self.base + "/metrics",
                                    timeout=WAIT) as response:
            metrics = response.read().decode("utf-8")
        self.assertIn("gamehub_web_logins_total", metrics)
        everything = "\n".join(self.server.output) + metrics
        for secret in secrets:
            self.assertNotIn(secret, everything)

    def test_playLoggedIn(self):
        """
        Logged in, C{/play} plays under the account at once (no name
        asked); logged out, the same browser is a guest asked for a name,
        and the account's name is refused with a hint to log in.
        """
        accountsCommand(self.url, "add", "dora", stdin=PASSWORD + "\n")
        self.wait(lambda: self.nameKnown("dora"),
                  "the hub's name check never read dora")
        self.logIn("dora")
        self.open("/play")
        self.wait(lambda: "Hello, dora." in self.one("#status").text,
                  "not playing as dora")
        self.assertFalse(self.find("#name"))
        self.logOut()
        # Logged out, the tab's stored name and resume token are a
        # guest's hello: the account's name is refused.
        self.open("/play")
        self.wait(lambda: "if it is yours, log in."
                          in self.one("#error").text,
                  "a guest took the account's name")
        self.one("#name").clear()
        self.one("#name").send_keys("guest1")
        self.one("#hello").click()
        self.wait(lambda: "Hello, guest1." in self.one("#status").text,
                  "the guest is not playing")

    #: Each control of the page's forms (the play page's own, #play, too):
    #: its name, rendered height (CSS px) and font size, and the body's.
    CONTROLS = """
    const controls = document.querySelectorAll(
      "main form input:not([type=hidden]):not([type=checkbox]), " +
      "main form button, main form select");
    return [getComputedStyle(document.body).fontSize,
            Array.from(controls, node => [
              node.name || node.id || node.textContent,
              node.getBoundingClientRect().height,
              getComputedStyle(node).fontSize])];
    """

    def assertControlsAsPlay(self, path):
        """
        Every control of C{path}'s forms is as the play page's are: at
        least 40 px high (a finger's), in the page's font size.
        """
        self.open(path)
        self.one("main form")
        body, controls = self.driver.execute_script(self.CONTROLS)
        self.assertTrue(controls, path)
        for name, height, size in controls:
            self.assertGreaterEqual(height, 40, (path, name))
            self.assertEqual(size, body, (path, name))

    def test_formsAndHeader(self):
        """
        The forms of C{/register}, C{/login} and C{/admin} have the play
        page's controls; a name too long for an account is not cut short
        in the field, and the answer says the limit; every page's header
        links to the tournaments, and says "account" to a visitor not
        logged in, the login pages too.
        """
        for path in ("/", "/play", "/login", "/register",
                     "/leaderboard/gomoku", "/tournaments"):
            self.open(path)
            self.assertEqual(self.one("nav a.account").text, "account",
                             path)
            self.assertEqual(self.one("nav a.tournaments").get_attribute(
                "href"), self.base + "/tournaments")
        self.one("nav a.tournaments").click()
        self.wait(lambda: self.heading() == "Tournaments",
                  "no tournaments page")
        self.assertControlsAsPlay("/play")
        self.assertControlsAsPlay("/login")
        self.assertControlsAsPlay("/register")
        name = "toolongname"
        self.one("form.register [name=name]").send_keys(name)
        self.assertEqual(self.one("form.register [name=name]")
                         .get_attribute("value"), name)
        self.fill("form.register", password=PASSWORD, again=PASSWORD)
        self.wait(lambda: "at most" in self.one(".message.error").text,
                  "the limit is not said")
        self.assertEqual(self.one(".message.error").text,
                         "A name has at most {} characters; this one has "
                         "{}.".format(names.MAX_NAME, len(name)))
        self.assertEqual(self.one("form.register [name=name]")
                         .get_attribute("value"), name)
        self.logIn("root")
        self.assertControlsAsPlay("/admin")
