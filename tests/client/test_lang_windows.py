"""
Window tests of the client's languages: the start screen in Chinese
(C{--lang zh}, or a Chinese system locale), drawn with a CJK font.

They need a display: run them under C{xvfb-run -a}.  Without one they
fail (they do not skip).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.client import i18n
from hub.client.session import Options
from hub.client.userdirs import UserConfig
from tests.client.test_offline_windows import (
    ROOT, FakeBrowser, FakeReactor, assertPNG, keepShot, labelTexts)
from tests.client.test_windows import requireDisplay

#: Seconds the client may take to start, draw and quit.
START_TIMEOUT = 120


class ChineseStartScreenTests(SynchronousTestCase):
    """
    The start screen in Chinese, on a fake clock.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-lang-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.addCleanup(i18n.setLanguage, i18n.language())
        self.config = UserConfig(os.path.join(self.dir, "client.json"))
        self.config.set("name", "小明")

    def app(self):
        from client_pyglet.app import App
        self.clock = Clock()
        app = App(FakeReactor(), self.clock,
                  Options(game=None, name=None), config=self.config,
                  hubBrowserFactory=FakeBrowser)
        app.start()
        self.addCleanup(app.stop, 0)
        self.clock.advance(0.05)
        app.pumpOnce()
        return app

    def test_chineseLabels(self):
        """
        Under C{zh} the start screen's labels and buttons are Chinese,
        the games named as the seeds name them, in a CJK font that
        renders (the labels have a width), and a screenshot shows it.
        """
        import pyglet
        i18n.setLanguage("zh")
        app = self.app()
        texts = labelTexts(app.scene)
        for text in ("跳棋", "璀璨宝石", "五子棋", "游戏",
                     "局域网中的服务器", "小明"):
            self.assertIn(text, texts)
        labels = [b.label for b in app.scene.buttons]
        self.assertEqual(labels.count("离线对局"), 3)
        self.assertIn("加入跳棋", labels)
        self.assertIn("连接", labels)
        self.assertNotIn("Play offline", labels)
        for label in app.scene._keep:
            if isinstance(label, pyglet.text.Label) and label.text:
                self.assertIn("WenQuanYi Micro Hei", label.font_name)
        title = [o for o in app.scene._keep
                 if isinstance(o, pyglet.text.Label) and o.text == "跳棋"][0]
        self.assertGreater(title.content_width, 20)
        shot = os.path.join(self.dir, "start-zh.png")
        app.screenshot(shot)
        self.clock.advance(0.05)
        app.pumpOnce()
        keepShot(shot, "client-start-zh.png")
        assertPNG(self, shot, {"accent": (58, 110, 160)})

    def test_englishLabels(self):
        """
        Under C{en} the same screen is English.
        """
        i18n.setLanguage("en")
        app = self.app()
        labels = [b.label for b in app.scene.buttons]
        self.assertEqual(labels.count("Play offline"), 3)
        self.assertIn("Chinese checkers", labelTexts(app.scene))


class SystemLocaleTests(SynchronousTestCase):
    """
    C{python -m client_pyglet} without C{--lang} speaks the system
    locale's language.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-locale-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def startClient(self, *args, **environ):
        """
        Start the client on its start screen, let it save a screenshot
        and quit; return what it logged.
        """
        env = dict(os.environ)
        for variable in i18n.LOCALE_VARIABLES:
            env.pop(variable, None)
        env.update(environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env["CLIENT_PYGLET_LOG"] = "1"
        env["XDG_CONFIG_HOME"] = os.path.join(self.dir, "config")
        env["XDG_DATA_HOME"] = os.path.join(self.dir, "data")
        shot = os.path.join(self.dir, "shot.png")
        p = subprocess.run(
            [sys.executable, "-m", "client_pyglet", "--screenshot", shot,
             "--screenshot-after", "1"] + list(args),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
            cwd=ROOT, timeout=START_TIMEOUT)
        output = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, output)
        self.assertTrue(os.path.exists(shot), output)
        return output

    def test_lang(self):
        """
        C{LANG=zh_CN.UTF-8} gives Chinese, C{LANG=en_US.UTF-8} English,
        and C{--lang} wins over it.
        """
        self.assertIn("the windows speak zh",
                      self.startClient(LANG="zh_CN.UTF-8"))
        self.assertIn("the windows speak en",
                      self.startClient(LANG="en_US.UTF-8"))
        self.assertIn("the windows speak en",
                      self.startClient("--lang", "en", LANG="zh_CN.UTF-8"))
