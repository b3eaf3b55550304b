"""
One Twisted protocol and factory per wire protocol (checkers, Splendor,
gomoku): decode, call the lobby or the table, turn events into messages.
What every server connection shares, whatever its protocol, is in
L{hub.connection}.
"""
