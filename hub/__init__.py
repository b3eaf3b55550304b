"""
gamehub: one Twisted server for the Chinese checkers, Splendor and gomoku
protocols, over one shared lobby and session service.
"""
