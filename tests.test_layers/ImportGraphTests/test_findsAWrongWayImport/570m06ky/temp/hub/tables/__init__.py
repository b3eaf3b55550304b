from . import x
