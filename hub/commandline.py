"""
What gamehub's command lines share (C{twistd gamehub}'s options and the
tools C{python -m hub.records}, C{hub.accounts} and C{hub.tournaments}):
C{--version} says gamehub's version; a value an option refuses is one
line naming the option; a tool's C{--help} is plain text (no epytext)
and its usage line names the tool and the command; a tool's mistake or
failure is one line on standard error, never a traceback; and output
cut short by its reader (C{--help | head}) ends the tool quietly.
"""

import os
import re
import sys
from typing import (
    Any, Callable, Iterable, List, NoReturn, Optional, Sequence, Type,
    Union)

from twisted.python import usage
from twisted.python.failure import Failure

import hub


def plainText(docstring: str) -> str:
    """
    C{docstring} without its epytext markup (C{C{x}} and the like become
    C{x}), for C{--help}.
    """
    while True:
        plain = re.sub(r"\b[BCEGILMSUX]\{([^{}]*)\}", r"\1", docstring)
        if plain == docstring:
            return plain.strip()
        docstring = plain


def firstParagraph(docstring: str) -> str:
    """
    The first paragraph of a module's C{docstring}, as plain text: what
    a tool's C{--help} says after its options.
    """
    return " ".join(plainText(docstring).split("\n\n")[0].split())


def _refusal(coerce: Callable[[str], Any], value: str,
             error: Exception) -> str:
    # What is wrong with a value, in words: Python's own words for a
    # value that is no number name the function, not the option's need.
    reason = str(error)
    if coerce is int or reason.startswith("invalid literal for int()"):
        return "not a whole number"
    if coerce is float or reason.startswith("could not convert string to"):
        return "not a number"
    return reason


def namedCoercion(name: str,
                  coerce: Callable[[str], Any]) -> Callable[[str], Any]:
    """
    C{coerce} (of an option's value) that refuses a value with a
    L{usage.UsageError} naming the option (C{--limit 'x': not a whole
    number}) instead of Twisted's C{Parameter type enforcement failed}.
    """
    def coerced(value: str) -> Any:
        try:
            return coerce(value)
        except ValueError as e:
            raise usage.UsageError("--{} {!r}: {}".format(
                name, value, _refusal(coerce, value, e)))
    if hasattr(coerce, "coerceDoc"):
        # Twisted's help reads the attribute off the function.
        coerced.coerceDoc = (  # type: ignore[attr-defined]
            coerce.coerceDoc)
    return coerced


def positiveInt(value: str) -> int:
    """
    A whole number of 1 or more.
    """
    number = int(value)
    if number < 1:
        raise ValueError("must be 1 or more")
    return number


def argumentNumber(what: str, value: str) -> int:
    """
    A positional argument that is a positive whole number (an id).

    @param what: how the usage line names it (C{GAME_ID}, C{EVENT}).
    @raise usage.UsageError: naming C{what}, for anything else.
    """
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number <= 0:
        raise usage.UsageError("{} is a positive whole number, not "
                               "{!r}".format(what, value))
    return number


class Options(usage.Options):
    """
    Options whose refused values name their option (L{namedCoercion}),
    and whose C{--version} is gamehub's.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("optParameters")
        if own:
            # Declared by each subclass, not by usage.Options.
            cls.optParameters = [  # type: ignore[attr-defined]
                list(p[:4]) + [namedCoercion(p[0], p[4])]
                if len(p) > 4 and p[4] is not None else p for p in own]

    def opt_version(self) -> NoReturn:
        """
        Print gamehub's version and Twisted's, and exit.
        """
        from twisted import copyright
        print("gamehub version:", hub.__version__)
        print("Twisted version:", copyright.version)
        raise SystemExit(0)


class ToolOptions(Options):
    """
    The options of a C{python -m} tool, or of one of its commands.

    @cvar tool: the tool's module (C{hub.records}), on its top options.
    @cvar toolSynopsis: the top options' words before the command
        (C{[--db URL]}).
    @cvar synopsis: the words after the command's name (C{KIND NAME}).
    """

    tool: Optional[str] = None
    toolSynopsis = ""
    synopsis = ""

    @property
    def longdesc(self) -> str:
        """
        What C{--help} says after the options: the line of the command in
        its tool's list of commands (never C{__main__}'s docstring, which
        Twisted would show).
        """
        parent: Any = getattr(self, "parent", None)
        for name, _, _, description in getattr(parent, "subCommands", ()):
            if name == parent.subCommand:
                return description
        return ""

    def commandLine(self) -> str:
        """
        The usage line up to this command: the tool, its options, the
        commands chosen.
        """
        parent = getattr(self, "parent", None)
        if parent is None:
            return " ".join(filter(None, [
                "Usage: python -m", self.tool, self.toolSynopsis]))
        return parent.commandLine() + " " + parent.subCommand

    def getSynopsis(self) -> str:
        words = self.synopsis or (
            "COMMAND ..." if getattr(self, "subCommands", None) else "")
        return (self.commandLine() + " " + words).rstrip()


def _quietOutput() -> None:
    """
    Standard output's reader has gone (C{| head}): what is left unwritten
    goes nowhere, so that Python's flush at exit raises nothing either.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _failureLine(error: BaseException,
                 expected: Sequence[Type[BaseException]]) -> str:
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else ""
    if isinstance(error, (usage.UsageError,) + tuple(expected)):
        return text or type(error).__name__
    return "{}: {}".format(type(error).__name__, text).rstrip(": ")


class Tool:
    """
    A C{python -m} tool's entry point: its options parsed, its work done,
    each mistake or failure one line on standard error.

    Exit status: 0; 2 for a mistake in the command line (the line says
    where the usage is); 1 for a failure: the message of a usage error
    or of an error in C{expected}, else the error's type and its
    message's first line.

    @ivar name: the tool's module (C{hub.records}), which starts each line.
    @ivar expected: the error types whose messages say it all.
    """

    def __init__(self, name: str,
                 expected: Iterable[Type[BaseException]] = ()) -> None:
        self.name = name
        self.expected = tuple(expected)

    def say(self, text: str) -> None:
        sys.stderr.write("{}: {}\n".format(self.name, text))

    def failed(self, error: BaseException) -> NoReturn:
        """
        Say C{error} (raised by the work) in one line, and exit 1.
        """
        if isinstance(error, BrokenPipeError):
            _quietOutput()
            raise SystemExit(0)
        self.say(_failureLine(error, self.expected))
        raise SystemExit(1)

    def main(self, options: usage.Options, argv: Optional[List[str]],
             work: Callable[[Any], object]) -> None:
        """
        Parse C{argv} into C{options}, then call C{work(options)}; raise
        L{SystemExit} with the tool's exit status unless it is 0.
        """
        try:
            try:
                try:
                    options.parseOptions(argv)
                except usage.UsageError as e:
                    # The command's own --help, when the mistake is in it.
                    command = " ".join(filter(None, [
                        self.name, getattr(options, "subCommand", None)]))
                    self.say("{} (python -m {} --help lists the "
                             "options)".format(e, command))
                    raise SystemExit(2)
                try:
                    work(options)
                except (SystemExit, KeyboardInterrupt):
                    raise
                except Exception as e:
                    self.failed(e)
                status: Optional[Union[str, int]] = 0
            except SystemExit as e:
                status = e.code
            sys.stdout.flush()
        except BrokenPipeError:
            _quietOutput()
            status = 0
        if status:
            raise SystemExit(status)

    def react(self, options: usage.Options, argv: Optional[List[str]],
              run: Callable[[Any, Any], Any]) -> None:
        """
        L{main}, with C{run(reactor, options)} (a Deferred) as the work,
        under L{twisted.internet.task.react}.
        """
        from twisted.internet import defer, task

        def failed(failure: Failure) -> Optional[Failure]:
            if failure.check(SystemExit):
                return failure
            self.failed(failure.value)

        def work(options: Any) -> None:
            task.react(lambda reactor: defer.maybeDeferred(
                run, reactor, options).addErrback(failed))
        self.main(options, argv, work)
