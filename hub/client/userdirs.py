"""
Where the desktop client keeps what outlives a run: its settings (the
player's name) in the user's config directory, and the records of offline
games in the user's data directory (the XDG base directories).
"""

import json
import os
from typing import Any, Dict, Mapping, Optional

from twisted.logger import Logger

APP_DIR = "gamehub"
CONFIG_FILE = "client.json"
RECORDS_FILE = "offline.sqlite"

log = Logger()


def configDir(environ: Optional[Mapping[str, str]] = None) -> str:
    """
    C{$XDG_CONFIG_HOME/gamehub}, by default C{~/.config/gamehub}.
    """
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(
        os.path.expanduser("~"), ".config")
    return os.path.join(base, APP_DIR)


def dataDir(environ: Optional[Mapping[str, str]] = None) -> str:
    """
    C{$XDG_DATA_HOME/gamehub}, by default C{~/.local/share/gamehub}.
    """
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, APP_DIR)


def recordsURL(environ: Optional[Mapping[str, str]] = None) -> str:
    """
    The C{--db} of the offline hub: a SQLite file in the data directory.
    """
    return "sqlite:" + os.path.join(dataDir(environ), RECORDS_FILE)


class UserConfig:
    """
    The client's settings, a small JSON object in the config directory.

    @ivar path: the file.
    @ivar values: the settings (a L{dict}).
    """

    def __init__(self, path: Optional[str] = None) -> None:
        self.path = path or os.path.join(configDir(), CONFIG_FILE)
        self.values: Dict[str, Any] = {}

    def load(self) -> "UserConfig":
        """
        Read the file; a missing or broken one gives no settings.

        @return: C{self}.
        """
        try:
            with open(self.path, encoding="utf-8") as f:
                values = json.load(f)
        except FileNotFoundError:
            values = {}
        except (OSError, ValueError) as e:
            log.warn("cannot read {path!r}: {error}", path=self.path,
                     error=str(e))
            values = {}
        self.values = values if isinstance(values, dict) else {}
        return self

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """
        Change one setting and write the file (atomically).
        """
        if self.values.get(key) == value:
            return
        self.values[key] = value
        self.save()

    def save(self) -> None:
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = self.path + ".tmp"
            # Only its owner may read it: it may hold a play key.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)
            with open(fd, "w", encoding="utf-8") as f:
                json.dump(self.values, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError as e:
            log.warn("cannot write {path!r}: {error}", path=self.path,
                     error=str(e))
