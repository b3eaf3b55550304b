"""
The running game of one room per game kind, without transports: seats,
turn clock, timeouts, eliminations, forfeits, ranking and takeover; what
happens goes out as typed events (L{hub.tables.events}) to the table's
L{hub.ihub.ITableListener}s.
"""
