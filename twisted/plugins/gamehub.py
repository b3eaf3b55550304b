from twisted.application.service import ServiceMaker

gamehub = ServiceMaker(
    "gamehub",
    "hub.tap",
    "One server for Chinese checkers, Splendor and gomoku.",
    "gamehub",
)
