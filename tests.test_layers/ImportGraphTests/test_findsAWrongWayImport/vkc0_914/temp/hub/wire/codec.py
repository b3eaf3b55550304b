def f():
    from hub.tables import x
