"""
Tournaments: a director on the tables layer (round robin, Swiss, arena),
the engines it launches, and their faces (CLI, web).
"""
