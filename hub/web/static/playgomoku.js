// Gomoku on the play page (play.js): a click (or Enter on a focused
// point) on an empty intersection plays there on your turn; the last
// stone is marked and the winning five highlighted at the end.  The
// legal moves are every empty point (the hub does not list them), and a
// stone's ActionPlayed says who is next.
import { svg, svgButton } from "./dom.js";
import { GOMOKU_CELL, drawGomoku, gomokuAt } from "./boards.js";
import { t } from "./i18n.js";

const SIZE = 15;

function view(moves) {
  const cells = new Array(SIZE * SIZE).fill(".");
  moves.forEach(([x, y], i) => {
    cells[y * SIZE + x] = i % 2 === 0 ? "b" : "w";
  });
  const last = moves[moves.length - 1] || null;
  return {size: SIZE, board: cells.join(""), last};
}

// The five (or more) in a row through the last stone, if it made one.
function winningLine(moves, cells) {
  const last = moves[moves.length - 1];
  if (!last) return [];
  const [x0, y0] = last;
  const mark = cells[y0 * SIZE + x0];
  for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    const line = [[x0, y0]];
    for (const sign of [1, -1]) {
      let x = x0 + sign * dx, y = y0 + sign * dy;
      while (x >= 0 && y >= 0 && x < SIZE && y < SIZE &&
             cells[y * SIZE + x] === mark) {
        line.push([x, y]);
        x += sign * dx;
        y += sign * dy;
      }
    }
    if (line.length >= 5) return line;
  }
  return [];
}

function cellName(x, y) {
  return "abcdefghijklmno"[x] + String(SIZE - y);
}

export const gomoku = {
  kind: "gomoku",
  name: () => t("Gomoku"),
  namedRooms: true,
  // The owner starts the game (its guest says it is ready).
  ownerStarts: true,
  defaultSeat: 1,
  seatsOf: () => 2,
  seatChoices: () => [[0, t("black")], [1, t("white")]],

  start(message) {
    return {moves: (message.position.moves || []).map(([x, y]) => [x, y])};
  },
  // Every empty intersection.
  legalOf(board) {
    const taken = new Set(board.moves.map(([x, y]) => `${x},${y}`));
    const points = [];
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        if (!taken.has(`${x},${y}`)) points.push([x, y]);
      }
    }
    return points;
  },
  // The turns alternate: the move says who is next (a table with a turn
  // clock says it in a TurnStarted too).
  played(board, message) {
    board.moves.push(message.action);
    return message.next === undefined ? null : message.next;
  },
  colourName: (board, seat) => seat === 0 ? t("black") : t("white"),

  draw(page) {
    const {state} = page, board = state.board;
    const current = view(board.moves);
    const drawn = drawGomoku(current);
    drawn.setAttribute("aria-label", t("gomoku board"));
    const hint = state.hint ? `${state.hint[0]},${state.hint[1]}` : null;
    for (const [x, y] of state.legal || []) {
      const key = `${x},${y}`;
      drawn.append(svgButton("circle", {
        cx: gomokuAt(x), cy: gomokuAt(y), r: GOMOKU_CELL * 0.5,
        class: "spot" + (key === hint ? " hinted" : ""),
        "data-cell": key, "aria-label": t("Play at {0}", cellName(x, y))},
        () => page.act([x, y])));
    }
    if (state.ended && state.ended.winner !== null) {
      for (const [x, y] of winningLine(board.moves, current.board)) {
        drawn.append(svg("circle", {cx: gomokuAt(x), cy: gomokuAt(y),
                                    r: GOMOKU_CELL * 0.47, class: "win",
                                    "data-cell": `${x},${y}`}));
      }
    }
    return {board: drawn, panel: null};
  },
};
