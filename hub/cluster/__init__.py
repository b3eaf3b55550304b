"""
Several hub nodes behind one address (C{twistd gamehub --cluster ...}).

Each room lives on one node, its home; Redis holds only what the nodes
share (L{hub.cluster.directory}).  A request that belongs to a room homed
elsewhere is handed over there and relayed byte for byte
(L{hub.cluster.gate}, L{hub.cluster.routes}, L{hub.cluster.link}).
L{hub.cluster.service} puts a node together.  See docs/scaling.md.
"""
