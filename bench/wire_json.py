"""
The wire codecs' JSON, per message of a move: the standard library
against C{orjson} and C{msgspec}, and the codecs themselves.

    python bench/wire_json.py [--number N] [--repeat R] [--against PATH]

For each protocol's messages of a move (the client's move in, the
server's frames out, as the protocol references show them), prints the
microseconds of one call, the best of R repeats of N calls:

  - the libraries alone: C{json.loads(data.decode("utf-8"))} against
    C{orjson.loads(data)} and C{msgspec}'s decoder; C{json.dumps} with
    the codec's options against C{orjson.dumps} and C{msgspec}'s encoder
    (sorted keys; C{orjson} is left out where it is not installed);
  - the codec's own call (C{decodeMessage}, C{encodeMessage}, C{decode},
    C{encode}, C{decodeBody}, C{encodeBody}), with its fast paths; with
    C{--against PATH}, next to the same call of another tree's codecs
    (C{hub/wire/gomoku.py}, C{checkers.py} and C{splendor.py} loaded
    from their files; their own C{hub} imports are this tree's), the
    two timed in turn, repeat by repeat, so that both see the same load.

Not a test: no bound on any figure.
"""

import argparse
import importlib.util
import json
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from hub.wire import checkers, gomoku, splendor  # noqa: E402

GOMOKU_MOVE_IN = (b'{"chess":0,"msg_type":10,"session":8,'
                  b'"token":18446744073709551615,"x":7,"y":7}')
CHECKERS_MOVE_IN = b'{"data1":"A","data2":"-2 6 0 4","op":200007}'
# The same line as another JSON writer may put it: not the canonical form.
CHECKERS_MOVE_IN_SPACED = (b'{"op": 200007, "data1": "A", '
                           b'"data2": "-2 6 0 4"}')
SPLENDOR_GET_GEMS_IN = (
    b'{"player_id":1,"operation_type":"get_gems","operation_info":'
    b'[{"gems_type":"ruby","gems_number":1},{"gems_type":"diamond",'
    b'"gems_number":1},{"gems_type":"emerald","gems_number":1}]}')
SPLENDOR_BUY_IN = (
    b'{"player_id":2,"operation_type":"buy_card","operation_info":'
    b'[{"card_number":17},{"gems_type":"ruby","gems_number":2},'
    b'{"gems_type":"golden","gems_number":1}]}')

GOMOKU_MOVE_OUT = {"chess": 1, "msg_type": 10,
                   "session": 18446744073709551615,
                   "token": 18446744073653300902, "x": 7, "y": 7}
GOMOKU_RESULT_OUT = {"msg_type": 1, "result": "",
                     "session": 18446744073709551615, "status": 0,
                     "token": 18446744072383256129}
GOMOKU_ROOM_OUT = {"msg_type": 5, "room": {
    "gs": 1, "guest": "bob", "id": 4294967295, "name": "room1",
    "oct": 16, "owner": "alice", "psw": "pw", "state": 1},
    "session": 4, "token": 18446744073653300902, "type": 1}
CHECKERS_MOVE_OUT = (200007, "A", "-2 6 0 4")
CHECKERS_TURN_OUT = (200006, "D", "1656403207")
SPLENDOR_OPERATION_OUT = {
    "player_id": 1, "operation_type": "get_gems", "operation_info": [
        {"gems_type": "ruby", "gems_number": 1},
        {"gems_type": "diamond", "gems_number": 1},
        {"gems_type": "emerald", "gems_number": 1}]}


def timeOne(call, number, repeat):
    """
    Microseconds of one call of C{call}: the best of C{repeat} runs of
    C{number} calls.
    """
    return min(timeit.repeat(call, number=number, repeat=repeat)) \
        / number * 1e6


def libraries():
    """
    The libraries that are installed: C{(name, loads, dumps)}, C{loads}
    taking bytes, C{dumps} writing compact JSON with sorted keys and raw
    UTF-8 as bytes.
    """
    found = [("json",
              lambda data: json.loads(data.decode("utf-8")),
              lambda obj: json.dumps(
                  obj, separators=(",", ":"), sort_keys=True,
                  ensure_ascii=False).encode("utf-8"))]
    try:
        import orjson
    except ImportError:
        pass
    else:
        found.append(("orjson", orjson.loads,
                      lambda obj: orjson.dumps(
                          obj, option=orjson.OPT_SORT_KEYS)))
    try:
        import msgspec
    except ImportError:
        pass
    else:
        decoder = msgspec.json.Decoder()
        found.append(("msgspec", decoder.decode,
                      msgspec.json.Encoder(order="sorted").encode))
    return found


def loadCodecs(tree):
    """
    The gomoku, checkers and Splendor codec modules of another tree,
    loaded from their files under private names.
    """
    codecs = []
    for name in ("gomoku", "checkers", "splendor"):
        path = os.path.join(tree, "hub", "wire", name + ".py")
        spec = importlib.util.spec_from_file_location(
            "against_" + name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        codecs.append(module)
    return codecs


def codecCalls(gomoku, checkers, splendor):
    """
    C{(label, call)} for each codec call of a move, on the given codec
    modules.
    """
    gomokuMove = gomoku.moveMessage(1, 7, 7, 18446744073653300902, None)
    gomokuResult = gomoku.resultMessage(0, 18446744072383256129, None)
    checkersLine = CHECKERS_MOVE_IN + b"\n"
    checkersSpaced = CHECKERS_MOVE_IN_SPACED + b"\n"
    return [
        ("gomoku decodeMessage(msg_move)",
         lambda: gomoku.decodeMessage(GOMOKU_MOVE_IN)),
        ("gomoku encodeMessage(msg_move)",
         lambda: gomoku.encodeMessage(gomokuMove)),
        ("gomoku encodeMessage(msg_result)",
         lambda: gomoku.encodeMessage(gomokuResult)),
        ("gomoku encodeMessage(msg_room)",
         lambda: gomoku.encodeMessage(GOMOKU_ROOM_OUT)),
        ("checkers decode(MOVE_OP)",
         lambda: checkers.decode(checkersLine)),
        ("checkers decode(MOVE_OP, spaced)",
         lambda: checkers.decode(checkersSpaced)),
        ("checkers encode(MOVE_OP)",
         lambda: checkers.encode(*CHECKERS_MOVE_OUT)),
        ("checkers encode(START_TURN_OP)",
         lambda: checkers.encode(*CHECKERS_TURN_OUT)),
        ("splendor decodeBody(get_gems)",
         lambda: splendor.decodeBody(SPLENDOR_GET_GEMS_IN)),
        ("splendor decodeBody(buy_card)",
         lambda: splendor.decodeBody(SPLENDOR_BUY_IN)),
        ("splendor encodeBody(get_gems)",
         lambda: splendor.encodeBody(SPLENDOR_OPERATION_OUT))]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--number", type=int, default=100000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", metavar="PATH", default=None)
    options = parser.parse_args(argv)

    def show(label, call):
        print("  %-44s %7.3f us" % (
            label, timeOne(call, options.number, options.repeat)))

    found = libraries()
    print("libraries: %s" % (", ".join(name for name, _, _ in found),))
    decodes = [("gomoku msg_move in", GOMOKU_MOVE_IN),
               ("checkers MOVE_OP in", CHECKERS_MOVE_IN),
               ("checkers MOVE_OP in, spaced", CHECKERS_MOVE_IN_SPACED),
               ("splendor get_gems in", SPLENDOR_GET_GEMS_IN),
               ("splendor buy_card in", SPLENDOR_BUY_IN)]
    print("decoding, the libraries alone:")
    for label, data in decodes:
        for name, loads, _ in found:
            show("%s, %s" % (label, name), lambda: loads(data))
    print("encoding, the libraries alone (sorted keys):")
    encodes = [("gomoku msg_move out", GOMOKU_MOVE_OUT),
               ("gomoku msg_result out", GOMOKU_RESULT_OUT),
               ("gomoku msg_room out", GOMOKU_ROOM_OUT),
               ("checkers MOVE_OP out", dict(zip(
                   ("op", "data1", "data2"), CHECKERS_MOVE_OUT))),
               ("checkers START_TURN_OP out", dict(zip(
                   ("op", "data1", "data2"), CHECKERS_TURN_OUT)))]
    for label, obj in encodes:
        for name, _, dumps in found:
            show("%s, %s" % (label, name), lambda: dumps(obj))
    ours = codecCalls(gomoku, checkers, splendor)
    if options.against is None:
        print("the codecs:")
        for label, call in ours:
            show(label, call)
        return
    theirs = codecCalls(*loadCodecs(options.against))
    print("the codecs: %s against this tree, in turn" % (options.against,))
    print("  %-44s %10s %10s %7s" % ("", "against", "this tree", "ratio"))
    for (label, call), (_, other) in zip(ours, theirs):
        times = {call: [], other: []}
        for _ in range(options.repeat):
            for each in (other, call):
                times[each].append(timeOne(each, options.number, 1))
        mine, before = min(times[call]), min(times[other])
        print("  %-44s %7.3f us %7.3f us %6.2fx" % (
            label, before, mine, mine / before))


if __name__ == "__main__":
    main()
