"""
Untrusted programs (tournament engines) run confined: under bubblewrap
(C{bwrap}) in namespaces of their own, or, when the operator opts out,
under resource limits only.  L{hub.sandbox.confine} builds the
confinement, L{hub.sandbox.process} starts it from the reactor,
L{hub.sandbox.inside} is what runs first inside.  docs/deploy.md and
docs/tournaments.md say what the walls are and how each is tested.
"""
