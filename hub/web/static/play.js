// The play page: gomoku and checkers against bots over /ws
// (docs/protocols/web.md).  Gomoku: a click (or Enter on a focused point)
// on an empty intersection plays there on your turn; the last stone is
// marked and the winning five highlighted at the end.  Checkers: a click
// on one of your pieces that can move highlights every legal destination
// (jump chains included), a click on one plays that path; the last move
// is drawn along its path.  Splendor: splendorplay.js.
import { el, player, replaceChildren, svg } from "./dom.js";
import {
  CHECKERS_STEP, GOMOKU_CELL, checkersPoint, drawCheckers, drawGomoku,
  gomokuAt } from "./boards.js";
import { language, otherLanguages, t } from "./i18n.js";
import {
  drawSplendorPlay, hintChoice, newChoice, phaseOf } from "./splendorplay.js";

const VERSION = 1;
const SIZE = 15;
const root = document.getElementById("play");
const status = el("p", {id: "status", class: "status"});
const board = el("div", {id: "board", class: "board"});
// Splendor's actions, beside its board.
const actions = el("div", {id: "actions"});
const controls = el("div", {class: "controls", id: "controls"});
const seatList = el("ol", {id: "seats", class: "seats"});
const errorLine = el("p", {id: "error", class: "error"});

const openRooms = el("ul", {id: "open-rooms", class: "rooms"});
const openRoomsTitle = el("h2", {hidden: true});
// Seconds between two looks at the open rooms while not playing.
const LOBBY_SECONDS = 2;

const state = {
  socket: null, welcome: null, room: null, seats: [], you: null,
  moves: [], turn: null, legal: null, ended: null, hint: null, games: 0,
  lobby: null, askingWho: false,
};

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify(message));
  }
}

function button(id, label, onClick) {
  const node = el("button", {id: id || null, type: "button"}, label);
  node.addEventListener("click", onClick);
  return node;
}

function languageSwitch() {
  return otherLanguages().map(([code, name]) => el("a", {
    href: "?lang=" + code, class: "lang", lang: code, hreflang: code},
    name));
}

// Before hello: the name form.
function drawNameForm() {
  const input = el("input", {id: "name", type: "text", maxlength: 20,
                             pattern: "[A-Za-z0-9_]{1,20}",
                             "aria-label": t("Your name"),
                             placeholder: t("Your name")});
  input.value = sessionStorage.getItem("gamehub.name") || "";
  const form = el("form", {id: "hello-form", class: "controls"},
                  el("label", {for: "name"}, t("Your name")), input,
                  el("button", {id: "hello", type: "submit"}, t("Enter")),
                  languageSwitch());
  form.addEventListener("submit", event => {
    event.preventDefault();
    sessionStorage.setItem("gamehub.name", input.value);
    hello(input.value, null);
  });
  replaceChildren(root, form, errorLine);
}

function hello(name, resume) {
  const message = {type: "hello", version: VERSION};
  if (name !== null) message.name = name;
  if (resume) message.resume = resume;
  send(message);
}

// A hello without a name: a browser logged in plays as its account (the
// cookie says who it is); a guest is asked for a name (quietly).
function helloWhoAmI() {
  state.askingWho = true;
  hello(null, null);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/ws");
  state.socket = socket;
  socket.addEventListener("open", () => {
    const resume = sessionStorage.getItem("gamehub.resume");
    const name = sessionStorage.getItem("gamehub.name");
    if (resume && name) {
      hello(name, resume);
    } else {
      helloWhoAmI();
    }
  });
  socket.addEventListener("message", event => received(
    JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    state.socket = null;
    status.textContent = t("Disconnected: reconnecting…");
    setTimeout(connect, 2000);
  });
}

function received(message) {
  const handler = HANDLERS[message.type];
  if (handler) handler(message);
}

const HANDLERS = {
  welcome(message) {
    state.askingWho = false;
    state.welcome = message;
    sessionStorage.setItem("gamehub.resume", message.resume);
    sessionStorage.setItem("gamehub.name", message.name);
    if (!message.resumed) resetGame();
    drawAll();
    lookAtLobby();
  },
  room(message) {
    state.room = message.room;
    drawAll();
  },
  lobby(message) {
    state.lobby = message.kinds;
    drawOpenRooms();
  },
  hint(message) {
    state.hint = message.action;
    if (state.kind === "checkers") state.selected = String(message.action[0]);
    if (state.kind === "splendor") state.choice = hintChoice(message.action);
    drawBoard();
  },
  error(message) {
    const asked = state.askingWho;
    if (message.request === "hello") state.askingWho = false;
    errorLine.textContent = asked && message.code === "bad-message" ? "" :
      t("Error: {0}", message.code);
    if (message.request !== "hello") return;
    sessionStorage.removeItem("gamehub.resume");
    if (message.code === "login-required") {
      // --names closed: only accounts play.
      errorLine.append(" ", el("a", {id: "login", href: "/login?next=/play"},
                               t("Log in to play.")));
      replaceChildren(root, errorLine);
    } else {
      drawNameForm();
    }
  },
  event(message) {
    const handler = EVENTS[message.event];
    if (handler) handler(message);
    drawAll();
  },
};

function resetGame() {
  state.kind = null;
  state.position = null;
  state.lastPath = null;
  state.selected = null;
  state.seats = [];
  state.you = null;
  state.moves = [];
  state.turn = null;
  state.legal = null;
  state.ended = null;
  state.hint = null;
  state.view = null;
  state.hand = [];
  state.choice = newChoice();
}

// A Splendor event's table (view) and the player's reserved cards.
function splendorTable(message) {
  if (message.view) state.view = message.view;
  if (message.hand) state.hand = message.hand;
}

// A Splendor prompt of the player's: discard, or choose a noble.
function splendorPrompt(message) {
  splendorTable(message);
  state.turn = message.seat;
  state.legal = message.legal || null;
  state.hint = null;
  state.choice = newChoice();
}

const EVENTS = {
  GameStarted(message) {
    resetGame();
    state.kind = message.kind;
    state.seats = message.seats;
    state.you = message.you;
    if (message.kind === "checkers") {
      state.position = {regions: message.position.regions,
                        pieces: message.position.pieces};
    } else if (message.kind === "splendor") {
      splendorTable(message);
    } else {
      state.moves = (message.position.moves || []).map(([x, y]) => [x, y]);
    }
  },
  TurnStarted(message) {
    state.turn = message.seat;
    state.legal = message.seat !== state.you ? null
        : state.kind === "gomoku" ? emptyPoints() : message.legal || null;
    state.hint = null;
    state.selected = null;
    state.choice = newChoice();
    splendorTable(message);
  },
  DiscardRequired: splendorPrompt,
  NobleOffered: splendorPrompt,
  ActionPlayed(message) {
    state.moves.push(message.action);
    state.hint = null;
    state.selected = null;
    if (state.kind === "checkers") {
      const path = message.action;
      const from = String(path[0]), to = path[path.length - 1];
      state.position.pieces[message.seat] = state.position.pieces[
        message.seat].map(cell => String(cell) === from ? to : cell);
      state.lastPath = path;
      // Checkers announces the next turn itself.
      state.turn = null;
      state.legal = null;
      return;
    }
    // Gomoku's turns alternate: the move says who is next.
    state.turn = message.next === undefined ? null : message.next;
    state.legal = state.turn !== null && state.turn === state.you
        ? emptyPoints() : null;
  },
  SeatEliminated(message) {
    if (state.position) state.position.pieces[message.seat] = [];
  },
  SeatTakenOver(message) {
    const seat = state.seats[message.seat];
    if (seat) seat.bot = true;
  },
  GameEnded(message) {
    splendorTable(message);
    state.ended = message;
    state.turn = null;
    state.legal = null;
    state.games++;
  },
};

// Gomoku's legal moves: every empty intersection.
function emptyPoints() {
  const taken = new Set(state.moves.map(([x, y]) => `${x},${y}`));
  const points = [];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      if (!taken.has(`${x},${y}`)) points.push([x, y]);
    }
  }
  return points;
}

function view() {
  const cells = new Array(SIZE * SIZE).fill(".");
  state.moves.forEach(([x, y], i) => {
    cells[y * SIZE + x] = i % 2 === 0 ? "b" : "w";
  });
  const last = state.moves[state.moves.length - 1] || null;
  return {size: SIZE, board: cells.join(""), last};
}

// The five (or more) in a row through the last stone, if it made one.
function winningLine(cells) {
  const last = state.moves[state.moves.length - 1];
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

// A focusable SVG button: click, Enter or space.
function svgButton(tag, attributes, onPress) {
  const node = svg(tag, Object.assign(
    {tabindex: 0, role: "button"}, attributes));
  node.addEventListener("click", onPress);
  node.addEventListener("keydown", event => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onPress();
    }
  });
  return node;
}

function drawCheckersBoard() {
  const drawn = drawCheckers(state.position, state.lastPath);
  drawn.setAttribute("aria-label", t("checkers board"));
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
      class: "movable" + (key === state.selected ? " selected" : "") +
             (hinted ? " hinted" : ""),
      "aria-label": t("Move the piece at {0}", key)}, () => {
        state.selected = key;
        drawBoard();
      }));
  }
  if (state.selected !== null) {
    const targets = new Map();
    for (const path of legal) {
      if (String(path[0]) !== state.selected) continue;
      const end = String(path[path.length - 1]);
      if (!targets.has(end)) targets.set(end, path);
    }
    for (const [end, path] of targets) {
      const [x, y] = path[path.length - 1];
      const [px, py] = checkersPoint(x, y);
      drawn.append(svgButton("circle", {
        cx: px, cy: py, r: CHECKERS_STEP * 0.4, "data-cell": end,
        class: "target" + (hint === state.selected + "/" + end
                           ? " hinted" : ""),
        "aria-label": t("Move to {0}", end)}, () => {
          state.legal = null;
          state.selected = null;
          send({type: "act", action: path});
          drawBoard();
        }));
    }
  }
  drawn.dataset.moves = String(state.moves.length);
  replaceChildren(board, drawn);
}

function act(action) {
  state.legal = null;
  state.choice = newChoice();
  send({type: "act", action});
  drawBoard();
}

function drawSplendorBoard() {
  const nobles = Object.fromEntries(state.view.nobles.map(
    noble => [noble.id, noble]));
  const drawn = drawSplendorPlay({
    view: state.view, hand: state.hand, seats: state.seats,
    legal: state.legal, hint: state.hint, choice: state.choice, nobles},
    act, drawBoard);
  drawn.board.dataset.moves = String(state.moves.length);
  replaceChildren(board, drawn.board);
  replaceChildren(actions, drawn.panel);
}

function drawBoard() {
  if (state.kind !== "splendor" || !state.view) replaceChildren(actions);
  if (!state.seats.length) {
    replaceChildren(board);
    return;
  }
  if (state.kind === "splendor") {
    if (state.view) drawSplendorBoard();
    return;
  }
  if (state.kind === "checkers") {
    drawCheckersBoard();
    return;
  }
  const current = view();
  const drawn = drawGomoku(current);
  drawn.setAttribute("aria-label", t("gomoku board"));
  const hint = state.hint ? `${state.hint[0]},${state.hint[1]}` : null;
  if (state.legal) {
    for (const [x, y] of state.legal) {
      const key = `${x},${y}`;
      const spot = svg("circle", {
        cx: gomokuAt(x), cy: gomokuAt(y), r: GOMOKU_CELL * 0.5,
        class: "spot" + (key === hint ? " hinted" : ""),
        "data-cell": key, tabindex: 0, role: "button",
        "aria-label": t("Play at {0}", cellName(x, y))});
      const play = () => {
        state.legal = null;
        send({type: "act", action: [x, y]});
        drawBoard();
      };
      spot.addEventListener("click", play);
      spot.addEventListener("keydown", event => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          play();
        }
      });
      drawn.append(spot);
    }
  }
  if (state.ended && state.ended.winner !== null) {
    for (const [x, y] of winningLine(current.board)) {
      drawn.append(svg("circle", {cx: gomokuAt(x), cy: gomokuAt(y),
                                  r: GOMOKU_CELL * 0.47, class: "win",
                                  "data-cell": `${x},${y}`}));
    }
  }
  drawn.dataset.moves = String(state.moves.length);
  replaceChildren(board, drawn);
}

function statusText() {
  if (state.ended) {
    const ended = state.ended;
    if (ended.winner === null) {
      return ended.reason === "normal" ? t("Draw.")
                                       : t("Game over ({0}).", ended.reason);
    }
    return ended.winner === state.you ? t("You won!") : t("You lost.");
  }
  if (state.turn !== null && state.seats.length) {
    const phase = state.turn === state.you && state.kind === "splendor"
        ? phaseOf(state.legal) : null;
    if (phase === "discard") {
      return t("Give back tokens: you may keep 10.");
    }
    if (phase === "noble") return t("Several nobles visit you: choose one.");
    if (state.turn === state.you) return t("Your turn.");
    return t("{0} to move.", state.seats[state.turn].name);
  }
  if (state.room) return t("Waiting for the game to start.");
  return state.welcome ? t("Hello, {0}.", state.welcome.name) : "";
}

function drawStatus() {
  status.textContent = statusText();
  status.dataset.turn = state.ended ? "over"
      : state.turn === null ? "none"
      : state.turn === state.you ? "yours" : "theirs";
  status.dataset.games = String(state.games);
}

function colourName(seat) {
  if (state.kind === "checkers") return state.position.regions[seat];
  if (state.kind === "splendor") {
    const points = state.view ? state.view.players[seat].points : 0;
    return t("{0} points", points);
  }
  return seat === 0 ? t("black") : t("white");
}

function drawSeats() {
  replaceChildren(seatList, state.seats.map((seat, i) => el("li", {
    class: "seat" + (state.turn === i ? " to-move" : ""), "data-seat": i},
    player(seat.name), " (", colourName(i), ")",
    seat.bot ? el("span", {class: "tag"}, t("bot")) : null,
    i === state.you ? el("span", {class: "tag"}, t("you")) : null)));
}

function newGame(kind) {
  const level = Number(document.getElementById("level").value);
  if (state.room) send({type: "leave"});
  resetGame();
  const room = `web-${state.welcome.name}-${Date.now() % 100000}`;
  const message = {type: "create", kind, room, seat: 0, bots: true, level};
  if (kind === "checkers") {
    message.players = Number(document.getElementById("players").value);
  }
  if (kind === "splendor") {
    // Seated as a Unity client's INIT; bots fill the table up to the
    // number of players chosen.
    const players = Number(document.getElementById(
      "splendor-players").value);
    send({type: "join", kind});
    send({type: "bots", count: players - 1, level});
    return;
  }
  send(message);
}

function drawControls() {
  const parts = [];
  if (!playing()) {
    const level = el("select", {id: "level", "aria-label": t("Bot level")},
                     ...[1, 2, 3].map(n => el("option", {value: n}, n)));
    level.value = sessionStorage.getItem("gamehub.level") || "1";
    level.addEventListener("change", () =>
      sessionStorage.setItem("gamehub.level", level.value));
    const sizes = state.welcome.checkersSizes.filter(n => n > 1);
    const players = el("select", {id: "players",
                                  "aria-label": t("Players")},
                       ...sizes.map(n => el("option", {value: n}, n)));
    parts.push(el("label", {for: "level"}, t("Bot level")), level,
               button("new-gomoku", t("Gomoku against a bot"),
                      () => newGame("gomoku")),
               el("label", {for: "players"}, t("Players")), players,
               button("new-checkers", t("Checkers against bots"),
                      () => newGame("checkers")));
    const splendorPlayers = el(
      "select", {id: "splendor-players",
                 "aria-label": t("Splendor players")},
      ...[2, 3, 4].map(n => el("option", {value: n}, n)));
    parts.push(el("label", {for: "splendor-players"},
                  t("Splendor players")), splendorPlayers,
               button("new-splendor", t("Splendor against bots"),
                      () => newGame("splendor")));
    const room = state.room;
    if (room && room.kind === "gomoku" && !room.running &&
        room.members.length === 2 && room.owner === state.welcome.name &&
        !state.seats.length) {
      parts.push(button("start", t("Start"), () => send({type: "start"})));
    }
    const me = room && room.members.find(member => member.you);
    if (room && !room.running && me && !me.ready &&
        (room.kind !== "gomoku" || room.owner !== me.name)) {
      parts.push(button("ready", t("Ready"), () => send({type: "ready"})));
    }
    if (room) {
      parts.push(button("leave", t("Leave"), () => send({type: "leave"})));
    }
  } else {
    parts.push(button("hint", t("Hint"), () => send({type: "hint"})));
    parts.push(button("resign", t("Resign"), () => send({type: "resign"})));
  }
  parts.push(...languageSwitch());
  replaceChildren(controls, parts);
}

function playing() {
  return state.seats.length > 0 && !state.ended;
}

// The gomoku rooms waiting for a guest and the checkers rooms with a
// free seat, made here or by any client (a Qt or pyglet client's room
// r1 included).
function drawOpenRooms() {
  const open = kind => (state.lobby[kind] || {rooms: []}).rooms.filter(
    room => room.state === "waiting" && !room.locked &&
      room.members.length < (kind === "gomoku" ? 2 : room.capacity || 6))
    .map(room => ({kind, room}));
  const rooms = state.lobby && !playing() && !state.room
      ? open("gomoku").concat(open("checkers")) : [];
  replaceChildren(openRooms, rooms.map(({kind, room}) => el("li", {
    class: "room", "data-kind": kind, "data-room": room.name},
    el("span", {class: "room-name"}, player(room.name)), " ",
    room.owner ? player(room.owner) : null, " ",
    button(null, t("Join"), () => send({type: "join", kind,
                                        room: room.name})))));
  for (const node of openRooms.querySelectorAll("button")) {
    node.classList.add("join");
  }
  openRoomsTitle.textContent = t("Open rooms");
  openRoomsTitle.hidden = rooms.length === 0;
}

function lookAtLobby() {
  if (state.welcome && !playing() && !state.room) send({type: "lobby"});
}

function drawAll() {
  if (!state.welcome) return;
  if (!root.contains(status)) {
    replaceChildren(root,
      el("div", {class: "game-layout"},
         el("div", {class: "board-column"}, status, board),
         el("aside", {class: "side"}, controls, actions, seatList,
            errorLine,
            openRoomsTitle, openRooms)));
  }
  if (state.room && !state.seats.length) {
    errorLine.textContent = "";
  }
  drawStatus();
  drawControls();
  drawSeats();
  drawBoard();
  drawOpenRooms();
}

setInterval(lookAtLobby, LOBBY_SECONDS * 1000);
document.documentElement.lang = language;
document.title = t("Play") + " - gamehub";
for (const heading of document.querySelectorAll("main > h1")) {
  heading.textContent = t("Play");
}
connect();
