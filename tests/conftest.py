"""
pytest only (trial does not read this file): start private PostgreSQL and
Redis servers for the run when they are installed and not given (see
L{tests.servers}), once, in the controller, before xdist's workers start.
"""

from tests.servers import PrivateServers


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return
    servers = PrivateServers()
    config.gamehubServers = servers
    servers.start(config.args)


def pytest_unconfigure(config):
    servers = getattr(config, "gamehubServers", None)
    if servers is not None:
        servers.stop()


def pytest_report_header(config):
    servers = getattr(config, "gamehubServers", None)
    lines = []
    if servers is not None and servers.started:
        lines.append("private test servers started: "
                     + ", ".join(servers.started))
    if servers is not None:
        lines.extend("private test server failed: " + problem
                     for problem in servers.problems)
    return lines
