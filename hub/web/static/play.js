// The play page: gomoku and checkers against bots over /ws
// (docs/protocols/web.md).  Gomoku: a click (or Enter on a focused point)
// on an empty intersection plays there on your turn; the last stone is
// marked and the winning five highlighted at the end.  Checkers: a click
// on one of your pieces that can move highlights every legal destination
// (jump chains included), a click on one plays that path; the last move
// is drawn along its path, every move animated along it (animate.js).
// Splendor: splendorplay.js.  On every board: the turn clock
// (turnclock.js), a hint button, the players with their bots and the
// seats bots took over, and at the end the result with a link to the
// game's replay.
import { PathAnimation } from "./animate.js";
import { el, player, replaceChildren, svg } from "./dom.js";
import {
  CHECKERS_STEP, GOMOKU_CELL, checkersPoint, drawCheckers, drawGomoku,
  gomokuAt } from "./boards.js";
import { errorText } from "./errors.js";
import { language, otherLanguages, t } from "./i18n.js";
import {
  drawSplendorPlay, hintChoice, newChoice, phaseOf } from "./splendorplay.js";
import { gameReady, joinLinked, roomChanged } from "./playevent.js";
import {
  drawOpenRooms, lobbyControls, lookAtLobby, openRooms, openRoomsTitle,
  startLobby } from "./playlobby.js";
import { TurnClock } from "./turnclock.js";

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
// The checkers moves' animation, and the turn clock.
const animation = new PathAnimation();
const clock = new TurnClock();
// At the end: the link to the game's replay.
const replayLine = el("p", {id: "replay-line", class: "replay-line",
                            hidden: true});

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
    joinLinked(send, state.room);
  },
  room(message) {
    state.room = message.room;
    roomChanged(send, message.room);
    drawAll();
  },
  "game-ready"(message) {
    gameReady(send, message);
  },
  lobby(message) {
    state.lobby = message.kinds;
    // With a cluster: the rooms of the other nodes.
    state.remote = message.remote || null;
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
      errorText(message.code);
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
  animation.stop();
  clock.stop();
  state.game = null;
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
    // The game's page on the web face, live and then its replay.
    state.game = message.game || null;
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
    clock.start(message.seat, message.seconds);
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
      animation.play(path);
      // Checkers announces the next turn itself.
      state.turn = null;
      state.legal = null;
      clock.stop();
      return;
    }
    // Gomoku's turns alternate: the move says who is next (a table with
    // a turn clock says it in a TurnStarted too).
    state.turn = message.next === undefined ? null : message.next;
    state.legal = state.turn !== null && state.turn === state.you
        ? emptyPoints() : null;
    if (state.turn === null) {
      clock.stop();
    } else {
      clock.start(state.turn, null);
    }
  },
  SeatEliminated(message) {
    if (state.position) state.position.pieces[message.seat] = [];
  },
  SeatTakenOver(message) {
    // A bot of the room plays its seat from the start (GameStarted says
    // so); any other seat is a departed player's that a bot took over.
    const seat = state.seats[message.seat];
    if (seat && !seat.bot) seat.takenOver = true;
  },
  GameEnded(message) {
    clock.stop();
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
  animation.attach(drawn);
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
  drawReplayLink();
}

// At the end, the game's replay (its page on the web face).
function drawReplayLink() {
  const shown = Boolean(state.ended && state.game);
  replayLine.hidden = !shown;
  replaceChildren(replayLine, shown ? el("a", {
    id: "replay", class: "replay",
    href: "/games/" + encodeURIComponent(state.game)},
    t("Watch the replay")) : null);
}

// A translated text whose {0} is a player's name (in a <bdi>).
function withPlayer(text, name) {
  const [before, after] = text.split("{0}");
  return after === undefined ? [text] : [before, player(name), after];
}

// A seat's marks: a bot from the start, or a bot that took the seat
// over from its departed player.
function seatMarks(seat) {
  if (seat.takenOver) {
    return el("span", {class: "tag bot taken-over"},
              withPlayer(t("bot (took over {0})", "{0}"), seat.name));
  }
  return seat.bot ? el("span", {class: "tag bot"}, t("bot")) : null;
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
    player(seat.name), " (", colourName(i), ")", seatMarks(seat),
    seat.guest ? el("span", {class: "tag guest"}, t("guest")) : null,
    i === state.you ? el("span", {class: "tag"}, t("you")) : null)));
}

function drawControls() {
  const parts = [];
  if (!playing()) {
    parts.push(...lobbyControls());
  } else {
    const hint = button("hint", t("Hint"), () => send({type: "hint"}));
    // A hint is for one's own turn.
    hint.disabled = !(state.turn !== null && state.turn === state.you &&
                      state.legal);
    parts.push(hint);
    parts.push(button("resign", t("Resign"), () => send({type: "resign"})));
  }
  parts.push(...languageSwitch());
  // A redraw keeps the keyboard's place (the lobby's controls included).
  const focused = document.activeElement && controls.contains(
    document.activeElement) ? document.activeElement.id : "";
  replaceChildren(controls, parts);
  const again = focused && document.getElementById(focused);
  if (again) again.focus();
}

function playing() {
  return state.seats.length > 0 && !state.ended;
}

function drawAll() {
  if (!state.welcome) return;
  if (!root.contains(status)) {
    replaceChildren(root,
      el("div", {class: "game-layout"},
         el("div", {class: "board-column"}, status, clock.node,
            replayLine, board),
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

startLobby({send, state, playing, resetGame, button, redraw: drawAll});
setInterval(lookAtLobby, LOBBY_SECONDS * 1000);
document.documentElement.lang = language;
document.title = t("Play") + " - gamehub";
for (const heading of document.querySelectorAll("main > h1")) {
  heading.textContent = t("Play");
}
connect();
