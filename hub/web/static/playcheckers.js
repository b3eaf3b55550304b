// Chinese checkers on the play page (play.js): a click on one of your
// pieces that can move highlights every legal destination (jump chains
// included), a click on one plays that path; the last move is drawn
// along its path, every move animated along it (animate.js).  A room is
// made for a number of players, from the hub's checkersSizes.
import { svgButton } from "./dom.js";
import {
  CHECKERS_STEP, checkersPoint, drawCheckers, regionName} from "./boards.js";
import { t } from "./i18n.js";

export const checkers = {
  kind: "checkers",
  name: () => t("Chinese checkers"),
  namedRooms: true,
  defaultSeat: 0,
  seatsOf: room => room.players || room.capacity,
  seatChoices: players => Array.from(
    {length: players}, (_, i) => [i, t("Seat {0}", i + 1)]),
  // The player counts offered: the hub's, but a game of one.
  sizes: welcome => welcome.checkersSizes.filter(n => n > 1),

  start(message) {
    return {position: {regions: message.position.regions,
                       pieces: message.position.pieces},
            lastPath: null, selected: null};
  },
  played(board, message, page) {
    const path = message.action;
    const from = String(path[0]), to = path[path.length - 1];
    const pieces = board.position.pieces;
    pieces[message.seat] = pieces[message.seat].map(
      cell => String(cell) === from ? to : cell);
    board.lastPath = path;
    board.selected = null;
    page.animation.play(path);
    // Checkers announces the next turn itself.
    return null;
  },
  newTurn(board) {
    board.selected = null;
  },
  hint(board, action) {
    board.selected = String(action[0]);
  },
  events: {
    SeatEliminated(board, message) {
      board.position.pieces[message.seat] = [];
    },
  },
  colourName: (board, seat) => regionName(board.position.regions[seat]),

  draw(page) {
    const {state} = page, board = state.board;
    const drawn = drawCheckers(board.position, board.lastPath);
    drawn.setAttribute("aria-label", t("checkers board"));
    page.animation.attach(drawn);
    const legal = state.legal || [];
    const hint = state.hint ? String(state.hint[0]) + "/" +
        String(state.hint[state.hint.length - 1]) : null;
    const starts = new Set(legal.map(path => String(path[0])));
    for (const key of starts) {
      const [x, y] = key.split(",").map(Number);
      const [px, py] = checkersPoint(x, y);
      const hinted = hint !== null && hint.startsWith(key + "/");
      drawn.append(svgButton("circle", {
        cx: px, cy: py, r: CHECKERS_STEP * 0.45, "data-cell": key,
        class: "movable" + (key === board.selected ? " selected" : "") +
               (hinted ? " hinted" : ""),
        "aria-label": t("Move the piece at {0}", key)}, () => {
          board.selected = key;
          page.redraw();
        }));
    }
    if (board.selected !== null) {
      const targets = new Map();
      for (const path of legal) {
        if (String(path[0]) !== board.selected) continue;
        const end = String(path[path.length - 1]);
        if (!targets.has(end)) targets.set(end, path);
      }
      for (const [end, path] of targets) {
        const [x, y] = path[path.length - 1];
        const [px, py] = checkersPoint(x, y);
        drawn.append(svgButton("circle", {
          cx: px, cy: py, r: CHECKERS_STEP * 0.4, "data-cell": end,
          class: "target" + (hint === board.selected + "/" + end
                             ? " hinted" : ""),
          "aria-label": t("Move to {0}", end)}, () => {
            board.selected = null;
            page.act(path);
          }));
      }
    }
    return {board: drawn, panel: null};
  },
};
