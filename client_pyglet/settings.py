"""
What the desktop client was asked for and what it remembers: the
command line's options and the user's configuration file.
"""

import dataclasses

from hub.client.userdirs import UserConfig

#: The configuration key of the player name last used.
NAME_KEY = "name"
#: The name of a player who never gave one.
DEFAULT_NAME = "player"


class Settings:
    """
    The options of the client (a L{hub.client.session.Options}) and the
    user's configuration (a L{UserConfig}).

    @ivar options: the options in force; L{update} replaces them.
    @ivar config: the user's remembered settings.
    """

    def __init__(self, options, config=None):
        self.options = options
        self.config = config if config is not None else UserConfig()
        if not options.name:
            options.name = self.rememberedName()

    def rememberedName(self):
        """
        The player name last used, or L{DEFAULT_NAME}.
        """
        return self.config.get(NAME_KEY) or DEFAULT_NAME

    def rememberName(self, name):
        """
        Play as C{name} from now on, and next time.
        """
        self.config.set(NAME_KEY, name)
        self.options.name = name

    def update(self, **changes):
        """
        Replace the options by a copy with C{changes}.

        @return: the new options.
        """
        self.options = dataclasses.replace(self.options, **changes)
        return self.options
