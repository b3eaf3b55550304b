"""
The desktop client's settings (L{client_pyglet.settings}): the options
and the remembered name.  Imports no pyglet.
"""

import os
import shutil
import tempfile

from twisted.trial.unittest import SynchronousTestCase

from client_pyglet.settings import DEFAULT_NAME, NAME_KEY, Settings
from hub.client.session import Options
from hub.client.userdirs import UserConfig


class SettingsTests(SynchronousTestCase):

    def config(self):
        folder = tempfile.mkdtemp(prefix="client-settings-")
        self.addCleanup(shutil.rmtree, folder, True)
        return UserConfig(os.path.join(folder, "c.json"))

    def test_rememberedName(self):
        """
        Without C{--name} the client plays as the name it remembers, or
        as L{DEFAULT_NAME}; a given name wins.
        """
        config = self.config()
        self.assertEqual(Settings(Options(game=None, name=""),
                                  config).options.name, DEFAULT_NAME)
        config.set(NAME_KEY, "alice")
        self.assertEqual(Settings(Options(game=None, name=""),
                                  config).options.name, "alice")
        self.assertEqual(Settings(Options(game=None, name="bob"),
                                  config).options.name, "bob")

    def test_rememberName(self):
        """
        L{Settings.rememberName} plays as the name now and writes it for
        next time.
        """
        config = self.config()
        settings = Settings(Options(game=None, name=""), config)
        settings.rememberName("carol")
        self.assertEqual(settings.options.name, "carol")
        self.assertEqual(UserConfig(config.path).load().get(NAME_KEY),
                         "carol")

    def test_update(self):
        """
        L{Settings.update} replaces the options by a changed copy.
        """
        options = Options(game=None, name="dave")
        settings = Settings(options, self.config())
        new = settings.update(game="gomoku", port=4)
        self.assertIs(settings.options, new)
        self.assertEqual((new.game, new.port, new.name),
                         ("gomoku", 4, "dave"))
        self.assertIsNone(options.game)
