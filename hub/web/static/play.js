// The play page over /ws (docs/protocols/web.md): the connection, who
// the player is, the status, the controls, the seats, the turn clock
// (turnclock.js) and the hint; each game's board and moves are its
// module's (playgames.js), the lobby is playlobby.js, the tournament
// games' notices playevent.js.  At the end the result, with a link to
// the game's replay.
import { PathAnimation } from "./animate.js";
import { button, el, replaceChildren } from "./dom.js";
import { errorText } from "./errors.js";
import { language, otherLanguages, t } from "./i18n.js";
import { GAMES } from "./playgames.js";
import { gameGone, gameReady, joinLinked, roomChanged } from "./playevent.js";
import {
  drawOpenRooms, lobbyControls, lookAtLobby, openRooms, openRoomsTitle,
  startLobby } from "./playlobby.js";
import { drawSeats, seatList } from "./playseats.js";
import { TurnClock } from "./turnclock.js";

const VERSION = 1;
const root = document.getElementById("play");
const status = el("p", {id: "status", class: "status"});
const board = el("div", {id: "board", class: "board"});
// A game's panel of actions, beside its board (Splendor's).
const actions = el("div", {id: "actions"});
const controls = el("div", {class: "controls", id: "controls"});
const errorLine = el("p", {id: "error", class: "error"});
// The moves' animation (checkers), and the turn clock.
const animation = new PathAnimation();
const clock = new TurnClock();
// At the end: the link to the game's replay.
const replayLine = el("p", {id: "replay-line", class: "replay-line",
                            hidden: true});

// Seconds between two looks at the open rooms while not playing.
const LOBBY_SECONDS = 2;
// Requests that say nothing new of what the player does: an error stays.
const QUIET = new Set(["hello", "lobby"]);

const state = {
  socket: null, welcome: null, room: null, seats: [], you: null,
  moves: [], turn: null, legal: null, ended: null, hint: null, games: 0,
  lobby: null, askingWho: false, game: null, board: null,
};

function send(message) {
  if (!QUIET.has(message.type)) errorLine.textContent = "";
  if (state.socket && state.socket.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify(message));
  }
}

function pageButton(id, label, onClick) {
  return button({id: id || null}, label, onClick);
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
  // Why a name is ASCII, said instead of the browser's "Please match the
  // requested format".
  const why = t("1 to {0} letters (A-Z, a-z), digits or underscores: the " +
                "legacy game clients' protocols allow no other character " +
                "in a name.", 20);
  input.title = why;
  input.setAttribute("aria-describedby", "name-why");
  input.addEventListener("invalid", () => input.setCustomValidity(why));
  input.addEventListener("input", () => input.setCustomValidity(""));
  const form = el("form", {id: "hello-form", class: "controls"},
                  el("label", {for: "name"}, t("Your name")), input,
                  el("button", {id: "hello", type: "submit"}, t("Enter")),
                  languageSwitch(),
                  el("p", {id: "name-why", class: "hint"}, why));
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

// The player's room by its kind and name, to tell a new room.
function roomKey(room) {
  return room ? room.kind + "/" + room.name : null;
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
    // In a room other than the last: what went wrong before is past.
    if (roomKey(message.room) !== roomKey(state.room) && message.room) {
      errorLine.textContent = "";
    }
    state.room = message.room;
    roomChanged(send, message.room);
    drawAll();
  },
  "game-ready"(message) {
    gameReady(send, message);
  },
  "game-gone"(message) {
    gameGone(send, message);
  },
  lobby(message) {
    state.lobby = message.kinds;
    // With a cluster: the rooms of the other nodes.
    state.remote = message.remote || null;
    drawOpenRooms();
  },
  hint(message) {
    state.hint = message.action;
    if (state.game.hint) state.game.hint(state.board, message.action);
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
    const game = state.game;
    const own = game && game.events && game.events[message.event];
    if (message.event !== "GameStarted" && game && game.update) {
      // (Splendor's view and hand, carried by its events.)
      game.update(state.board, message);
    }
    if (EVENTS[message.event]) {
      EVENTS[message.event](message);
    } else if (own) {
      own(state.board, message, turns);
    }
    drawAll();
  },
};

function resetGame() {
  animation.stop();
  clock.stop();
  state.game = null;
  state.board = null;
  state.kind = null;
  state.seats = [];
  state.you = null;
  state.moves = [];
  state.turn = null;
  state.legal = null;
  state.ended = null;
  state.hint = null;
}

// What a game's module may do to the turn (a prompt of its own).
const turns = {
  turn(seat, legal) {
    state.turn = seat;
    state.legal = legal;
    state.hint = null;
  },
};

// The legal moves of a turn of the player's: listed by the hub, or the
// game's own (gomoku's empty points).
function legalOf(message) {
  if (message.seat !== state.you) return null;
  if (message.legal) return message.legal;
  return state.game.legalOf ? state.game.legalOf(state.board) : null;
}

const EVENTS = {
  GameStarted(message) {
    resetGame();
    errorLine.textContent = "";
    state.kind = message.kind;
    state.game = GAMES[message.kind];
    state.board = state.game.start(message);
    state.seats = message.seats;
    state.you = message.you;
    // The game's page on the web face, live and then its replay.
    state.gameId = message.game || null;
  },
  TurnStarted(message) {
    state.turn = message.seat;
    state.legal = legalOf(message);
    state.hint = null;
    if (state.game.newTurn) state.game.newTurn(state.board);
    clock.start(message.seat, message.seconds);
  },
  ActionPlayed(message) {
    state.moves.push(message.action);
    state.hint = null;
    const next = state.game.played(state.board, message, page);
    state.turn = next;
    state.legal = next !== null && next === state.you && state.game.legalOf
        ? state.game.legalOf(state.board) : null;
    if (next === null) {
      clock.stop();
    } else {
      clock.start(next, null);
    }
  },
  SeatTakenOver(message) {
    // A bot of the room plays its seat from the start (GameStarted says
    // so); any other seat is a departed player's that a bot took over.
    const seat = state.seats[message.seat];
    if (seat && !seat.bot) seat.takenOver = true;
  },
  GameEnded(message) {
    clock.stop();
    state.ended = message;
    state.turn = null;
    state.legal = null;
    state.games++;
  },
};

// What a game's module draws with: the page's state, and what it may do.
const page = {
  state,
  animation,
  act(action) {
    state.legal = null;
    send({type: "act", action});
    drawBoard();
  },
  redraw: () => drawBoard(),
};

function drawBoard() {
  const drawn = state.game && state.seats.length
      ? state.game.draw(page) : null;
  if (!drawn) {
    replaceChildren(board);
    replaceChildren(actions);
    return;
  }
  drawn.board.dataset.moves = String(state.moves.length);
  replaceChildren(board, drawn.board);
  replaceChildren(actions, drawn.panel);
}

function statusText() {
  if (state.ended) {
    const ended = state.ended;
    if (ended.winner === null) {
      return ended.reason === "normal" ? t("Draw.")
                                       : t("Game over ({0}).", ended.reason);
    }
    if (ended.winner === state.you) return t("You won!");
    // Of three or more, a place after the first is said (2nd of 3).
    const place = (ended.ranking || []).indexOf(state.you);
    if (place > 0 && state.seats.length > 2) {
      return t("You finished in place {0} of {1}.", place + 1,
               state.seats.length);
    }
    return t("You lost.");
  }
  if (state.turn !== null && state.seats.length) {
    if (state.turn === state.you) {
      const asked = state.game.phaseText
          ? state.game.phaseText(state.board, state.legal) : null;
      return asked || t("Your turn.");
    }
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
  const shown = Boolean(state.ended && state.gameId);
  replayLine.hidden = !shown;
  replaceChildren(replayLine, shown ? el("a", {
    id: "replay", class: "replay",
    href: "/games/" + encodeURIComponent(state.gameId)},
    t("Watch the replay")) : null);
}

function drawControls() {
  const parts = [];
  if (!playing()) {
    parts.push(...lobbyControls());
  } else {
    const hint = pageButton("hint", t("Hint"), () => send({type: "hint"}));
    // A hint is for one's own turn.
    hint.disabled = !(state.turn !== null && state.turn === state.you &&
                      state.legal);
    parts.push(hint);
    parts.push(pageButton("resign", t("Resign"),
                          () => send({type: "resign"})));
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
  drawStatus();
  drawControls();
  drawSeats(state);
  drawBoard();
  drawOpenRooms();
}

startLobby({send, state, playing, resetGame, button: pageButton,
            redraw: drawAll});
setInterval(lookAtLobby, LOBBY_SECONDS * 1000);
document.documentElement.lang = language;
document.title = t("Play") + " - gamehub";
for (const heading of document.querySelectorAll("main > h1")) {
  heading.textContent = t("Play");
}
connect();
