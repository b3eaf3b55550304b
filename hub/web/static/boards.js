// The boards of the three games, drawn in SVG from the views of
// hub/web/views.py.  Their words are in the page's language (i18n.js:
// English on a page without a catalog).
import { shown, svg } from "./dom.js";
import { t } from "./i18n.js";

// Gomoku: a 15x15 board, the last move marked.
const CELL = 32;
const MARGIN = 28;

// Where gomoku's line i is drawn, in the board's SVG units.
export function gomokuAt(i) {
  return MARGIN + i * CELL;
}
export const GOMOKU_CELL = CELL;
// The records' notation (hub/records/notation.py): columns a-o, rows 1-15
// from the bottom, the centre h8.
const COLUMNS = "abcdefghijklmno";

export function drawGomoku(view) {
  const size = view.size;
  const span = MARGIN * 2 + CELL * (size - 1);
  const root = svg("svg", {viewBox: `0 0 ${span} ${span}`, class: "gomoku",
                           role: "img", "aria-label": t("gomoku board")});
  root.append(svg("rect", {x: 0, y: 0, width: span, height: span,
                           class: "wood"}));
  const at = i => MARGIN + i * CELL;
  for (let i = 0; i < size; i++) {
    root.append(svg("line", {x1: at(0), y1: at(i), x2: at(size - 1),
                             y2: at(i), class: "grid"}));
    root.append(svg("line", {x1: at(i), y1: at(0), x2: at(i),
                             y2: at(size - 1), class: "grid"}));
    root.append(svg("text", {x: at(i), y: 14, class: "label"},
                    COLUMNS[i]));
    root.append(svg("text", {x: 10, y: at(i) + 4, class: "label"},
                    String(size - i)));
  }
  for (const [x, y] of [[3, 3], [11, 3], [7, 7], [3, 11], [11, 11]]) {
    root.append(svg("circle", {cx: at(x), cy: at(y), r: 3, class: "star"}));
  }
  let stones = 0;
  for (let index = 0; index < view.board.length; index++) {
    const mark = view.board[index];
    if (mark === ".") {
      continue;
    }
    stones++;
    const x = index % size, y = Math.floor(index / size);
    root.append(svg("circle", {
      cx: at(x), cy: at(y), r: CELL * 0.45,
      class: "stone " + (mark === "b" ? "black" : "white"),
      "data-cell": `${x},${y}`}));
  }
  if (view.last) {
    const [x, y] = view.last;
    root.append(svg("circle", {cx: at(x), cy: at(y), r: CELL * 0.15,
                               class: "last"}));
  }
  // The winning five, when the view has it (hub/web/views.py).
  for (const [x, y] of view.five || []) {
    root.append(svg("circle", {cx: at(x), cy: at(y), r: CELL * 0.47,
                               class: "win", "data-cell": `${x},${y}`}));
  }
  root.dataset.stones = String(stones);
  return root;
}

// Chinese checkers: the star in oblique coordinates, six colours.
export const REGION_COLOURS = {
  A: "#e53935", B: "#fb8c00", C: "#fdd835", D: "#43a047", E: "#1e88e5",
  F: "#8e24aa"};
// A region's seat in words: its colour on the board, then its letter.
export function regionName(region) {
  const names = {A: t("red"), B: t("orange"), C: t("yellow"),
                 D: t("green"), E: t("blue"), F: t("purple")};
  return names[region] ? `${names[region]} ${region}` : region;
}
const STEP = 30;

function isValidCell(x, y) {
  return (x >= -4 && y >= -4 && x + y <= 4) ||
         (x <= 4 && y <= 4 && x + y >= -4);
}

function regionOf(x, y) {
  if (y >= 5) return "A";
  if (x + y >= 5) return "B";
  if (x >= 5) return "C";
  if (y <= -5) return "D";
  if (x + y <= -5) return "E";
  if (x <= -5) return "F";
  return null;
}

function cellPoint(x, y) {
  return [(x + y / 2) * STEP, -y * STEP * Math.sqrt(3) / 2];
}

// Where checkers' cell (x, y) is drawn, and a hole's radius.
export const checkersPoint = cellPoint;
export const CHECKERS_STEP = STEP;

export function drawCheckers(view, lastPath) {
  const half = 9 * STEP;
  const root = svg("svg", {
    viewBox: `${-half} ${-half} ${2 * half} ${2 * half}`,
    class: "checkers", role: "img", "aria-label": t("checkers board")});
  const owner = new Map();
  view.pieces.forEach((cells, seat) => {
    for (const [x, y] of cells) {
      owner.set(`${x},${y}`, seat);
    }
  });
  for (let y = 8; y >= -8; y--) {
    for (let x = -8; x <= 8; x++) {
      if (!isValidCell(x, y)) continue;
      const [px, py] = cellPoint(x, y);
      const region = regionOf(x, y);
      root.append(svg("circle", {
        cx: px, cy: py, r: STEP * 0.36,
        class: "hole" + (region ? " region-" + region : ""),
        fill: region ? REGION_COLOURS[region] : null}));
    }
  }
  if (lastPath && lastPath.length > 1) {
    const points = lastPath.map(([x, y]) => cellPoint(x, y).join(","));
    root.append(svg("polyline", {points: points.join(" "),
                                 class: "path"}));
    for (const [x, y] of lastPath.slice(1)) {
      const [px, py] = cellPoint(x, y);
      root.append(svg("circle", {cx: px, cy: py, r: 4, class: "hop"}));
    }
  }
  let pieces = 0;
  for (const [key, seat] of owner) {
    const [x, y] = key.split(",").map(Number);
    const [px, py] = cellPoint(x, y);
    const region = view.regions[seat];
    pieces++;
    root.append(svg("circle", {
      cx: px, cy: py, r: STEP * 0.32, class: "piece",
      fill: REGION_COLOURS[region], "data-cell": key,
      "data-seat": seat}));
  }
  if (lastPath && lastPath.length > 1) {
    const [x, y] = lastPath[lastPath.length - 1];
    const [px, py] = cellPoint(x, y);
    root.append(svg("circle", {cx: px, cy: py, r: STEP * 0.4,
                               class: "last"}));
  }
  root.dataset.pieces = String(pieces);
  return root;
}

// A Splendor seat's cards and nobles, in the page's language: "1 card,
// 2 nobles" (a seat that left says so).
function cardsAndNobles(player) {
  const cards = player.purchased, nobles = player.nobles.length;
  const parts = [cards === 1 ? t("{0} card", cards) : t("{0} cards", cards),
                 nobles === 1 ? t("{0} noble", nobles)
                              : t("{0} nobles", nobles)];
  if (player.retired) parts.push(t("left"));
  return parts.join(t(", "));
}

// Splendor: nobles, three rows and their decks, the bank, and every
// seat's tokens, bonuses, reserved cards (face down) and points.
const GEMS = ["diamond", "sapphire", "emerald", "ruby", "obsidian"];
const TOKENS = GEMS.concat(["golden"]);
const CARD_W = 84, CARD_H = 112;

function gemDot(x, y, gem, count, r = 10) {
  return svg("g", {class: "gem"},
    svg("circle", {cx: x, cy: y, r, class: "token " + gem}),
    svg("text", {x, y: y + 4, class: "count on-" + gem}, String(count)));
}

function costs(x, y, cost, step = 20) {
  const nodes = [];
  let i = 0;
  for (const gem of GEMS) {
    if (cost[gem]) {
      nodes.push(gemDot(x, y - i * step, gem, cost[gem], 8));
      i++;
    }
  }
  return nodes;
}

function card(x, y, data) {
  if (!data) {
    return svg("rect", {x, y, width: CARD_W, height: CARD_H, rx: 6,
                        class: "slot"});
  }
  return svg("g", {class: "card", "data-card": data.id},
    svg("rect", {x, y, width: CARD_W, height: CARD_H, rx: 6,
                 class: "card-face"}),
    svg("rect", {x, y, width: CARD_W, height: 26, rx: 6,
                 class: "token " + data.bonus}),
    data.points ? svg("text", {x: x + 8, y: y + 19, class: "points"},
                      String(data.points)) : null,
    costs(x + 14, y + CARD_H - 14, data.cost));
}

function facedown(x, y, level, w = CARD_W, h = CARD_H) {
  return svg("g", {class: "facedown level-" + level},
    svg("rect", {x, y, width: w, height: h, rx: 5,
                 class: "back level-" + level}),
    svg("text", {x: x + w / 2, y: y + h / 2 + 5, class: "roman"},
        "I".repeat(level || 0)));
}

function noble(x, y, data) {
  return svg("g", {class: "noble", "data-noble": data.id},
    svg("rect", {x, y, width: 84, height: 84, rx: 6, class: "noble-face"}),
    svg("text", {x: x + 8, y: y + 20, class: "points"},
        String(data.points)),
    costs(x + 70, y + 72, data.cost, 19));
}

export function drawSplendor(view, seats) {
  const width = 1000;
  const players = view.players.length;
  const height = Math.max(480, 10 + players * 150);
  const root = svg("svg", {viewBox: `0 0 ${width} ${height}`,
                           class: "splendor", role: "img",
                           "aria-label": t("Splendor table")});
  view.nobles.forEach((data, i) => root.append(noble(104 + i * 94, 6,
                                                     data)));
  [2, 1, 0].forEach((level, row) => {
    const y = 100 + row * 124;
    root.append(facedown(6, y, level + 1));
    root.append(svg("text", {x: 48, y: y + CARD_H - 8, class: "deck-count"},
                    String(view.decks[level])));
    view.rows[level].forEach((data, i) => root.append(
      card(104 + i * 94, y, data)));
  });
  TOKENS.forEach((gem, i) => root.append(
    gemDot(520, 124 + i * 58, gem, view.bank[gem], 22)));
  view.players.forEach((player, seat) => {
    const x = 580, y = 6 + seat * 150;
    const name = seats && seats[seat] ? shown(seats[seat].name)
                                      : t("seat {0}", seat);
    const mover = view.toMove === seat;
    const group = svg("g", {class: "player" + (mover ? " to-move" : ""),
                            "data-seat": seat});
    group.append(svg("rect", {x, y, width: 410, height: 140, rx: 8,
                              class: "panel"}));
    group.append(svg("text", {x: x + 12, y: y + 22, class: "name"}, name));
    group.append(svg("text", {x: x + 398, y: y + 24, class: "score"},
                     String(player.points)));
    TOKENS.forEach((gem, i) => group.append(
      gemDot(x + 24 + i * 34, y + 52, gem, player.tokens[gem], 13)));
    GEMS.forEach((gem, i) => {
      group.append(svg("rect", {x: x + 12 + i * 34, y: y + 74, width: 24,
                                height: 30, rx: 3, class: "token " + gem}));
      group.append(svg("text", {x: x + 24 + i * 34, y: y + 95,
                                class: "count on-" + gem},
                       String(player.bonuses[gem])));
    });
    player.reserved.forEach((r, i) => group.append(
      facedown(x + 230 + i * 42, y + 40, r.level, 36, 52)));
    group.append(svg("text", {x: x + 230, y: y + 124, class: "small"},
                     cardsAndNobles(player)));
    root.append(group);
  });
  root.dataset.cards = String(view.players.reduce(
    (n, p) => n + p.purchased + p.reserved.length, 0));
  return root;
}

export function drawBoard(kind, view, seats, lastAction) {
  if (kind === "gomoku") return drawGomoku(view);
  if (kind === "checkers") return drawCheckers(view, lastAction);
  return drawSplendor(view, seats);
}
