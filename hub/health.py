"""
Health checks for load balancers and orchestrators, served as JSON on the
web port and on the metrics port:

    /healthz    200 while the process is alive: answering at all proves
                that the reactor turns (the request is read, routed and
                answered by it); a blocked reactor answers nothing and the
                prober's own timeout fails it
    /readyz     200 when every readiness check passes (listening, the
                records database reachable, the cluster node registered),
                503 with the reasons otherwise, and 503 while the hub
                drains

A readiness check is a callable returning None (ready), a short reason,
or a Deferred of one of those; a check that fails or takes longer than
L{CHECK_SECONDS} counts as not ready.
"""

import json
from typing import Any, Callable, Dict, List, Tuple

from twisted.internet import defer
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Request

#: A readiness check: None (ready), a short reason, or a Deferred of one.
Check = Callable[[], Any]

#: Seconds one readiness check may take.
CHECK_SECONDS = 3.0

OK = "ok"


class Health:
    """
    The checks behind C{/healthz} and C{/readyz} of one hub.

    @ivar clock: the L{IReactorTime} of the checks' timeouts and of the
        uptime (the hub's tracked clock).
    @ivar checks: C{[(name, check)]} in the order they were added.
    """

    def __init__(self, clock: IReactorTime,
                 checkSeconds: float = CHECK_SECONDS) -> None:
        self.clock = clock
        self.checkSeconds = checkSeconds
        self.started = clock.seconds()
        self.checks: List[Tuple[str, Check]] = []

    def addCheck(self, name: str, check: Check) -> None:
        """
        Add a readiness check called C{name}.
        """
        self.checks.append((name, check))

    def alive(self) -> Dict[str, Any]:
        """
        What C{/healthz} says: the status and the uptime in seconds.
        """
        return {"status": "alive",
                "uptime": round(self.clock.seconds() - self.started, 3)}

    def ready(self) -> "defer.Deferred[Tuple[bool, Dict[str, Any]]]":
        """
        Run every readiness check.

        @return: a Deferred firing with C{(ready, body)}: a L{bool} and
            the JSON-able body, C{{"status": ..., "checks": {name: "ok" or
            reason}}} with the reasons listed again under C{"reasons"}.
        """
        names = [name for name, _ in self.checks]
        runs = [self._run(name, check) for name, check in self.checks]

        def gathered(results: List[Tuple[bool, str]],
                     ) -> Tuple[bool, Dict[str, Any]]:
            checks = dict(zip(names, (r for _, r in results)))
            reasons = ["{}: {}".format(name, result)
                       for name, result in checks.items() if result != OK]
            body: Dict[str, Any] = {
                "status": "unready" if reasons else "ready",
                "checks": checks}
            if reasons:
                body["reasons"] = reasons
            return (not reasons, body)

        return defer.DeferredList(runs).addCallback(gathered)

    def _run(self, name: str, check: Check) -> "defer.Deferred[str]":
        d = defer.maybeDeferred(check)
        d.addTimeout(self.checkSeconds, self.clock)

        def answered(result: object) -> str:
            return OK if result is None else str(result)

        def failed(failure: Failure) -> str:
            if failure.check(defer.TimeoutError):
                return "no answer within {:g}s".format(self.checkSeconds)
            return "failed: {}".format(failure.getErrorMessage())

        return d.addCallbacks(answered, failed)


def _json(request: Request, code: int, body: Any) -> bytes:
    request.setResponseCode(code)
    request.setHeader(b"Content-Type", b"application/json")
    request.setHeader(b"Cache-Control", b"no-store")
    return json.dumps(body, sort_keys=True).encode() + b"\n"


class HealthzResource(Resource):
    """
    C{/healthz}: 200 and L{Health.alive}'s body.
    """

    isLeaf = True

    def __init__(self, health: Health) -> None:
        Resource.__init__(self)
        self.health = health

    def render_GET(self, request: Request) -> bytes:
        return _json(request, 200, self.health.alive())

    render_HEAD = render_GET


class ReadyzResource(Resource):
    """
    C{/readyz}: 200 when L{Health.ready} says so, else 503, with its
    body.
    """

    isLeaf = True

    def __init__(self, health: Health) -> None:
        Resource.__init__(self)
        self.health = health

    def render_GET(self, request: Request) -> int:
        gone: List[Failure] = []
        request.notifyFinish().addErrback(gone.append)

        def answer(result: Tuple[bool, Dict[str, Any]]) -> None:
            ready, body = result
            if gone:
                return
            request.write(_json(request, 200 if ready else 503, body))
            request.finish()

        self.health.ready().addCallback(answer)
        return NOT_DONE_YET

    render_HEAD = render_GET


def putHealth(root: Resource, health: Health) -> None:
    """
    Add C{/healthz} and C{/readyz} over C{health} to the resource
    C{root}.
    """
    root.putChild(b"healthz", HealthzResource(health))
    root.putChild(b"readyz", ReadyzResource(health))
