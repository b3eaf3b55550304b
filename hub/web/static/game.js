// One game's page: a live game streamed from /api/games/ID/events, or a
// finished game's replay from /api/games/ID.
import { PathAnimation } from "./animate.js";
import { el, pathPart, player, replaceChildren } from "./dom.js";
import { drawBoard, regionName } from "./boards.js";
import { t } from "./i18n.js";
import { TurnClock } from "./turnclock.js";

const body = document.body;
const gameId = body.dataset.game;
const kind = body.dataset.kind;
const board = document.getElementById("board");
const statusLine = document.getElementById("status");
const seatList = document.getElementById("seats");
const moveList = document.getElementById("moves");
const spectators = document.getElementById("spectators");
const controls = document.getElementById("controls");
const apiPath = "/api/games/" + encodeURIComponent(gameId);
// Checkers moves slide along their paths; the turn clock counts down.
const animation = new PathAnimation();
const clock = new TurnClock();
statusLine.after(clock.node);

const state = {seats: [], view: null, moves: [], turn: null, result: null,
               turnReceived: 0};

// A seat's player as nodes: the name in a <bdi>, and the role.
function seatLabel(seat) {
  const data = state.seats[seat];
  if (!data) return [t("seat {0}", seat)];
  if (!data.role) return [player(data.name, data.display)];
  // A checkers seat by its colour too ("red A"), not a letter only.
  const role = kind === "checkers" ? regionName(data.role) : t(data.role);
  return [player(data.name, data.display), " ", t("({0})", role)];
}

function lastAction() {
  const last = state.moves[state.moves.length - 1];
  return last ? last.action : null;
}

// A seat a bot took over from its player, who left (not a bot of the
// room, which plays its seat from the start).
function takenFrom(seat) {
  return Boolean(seat.takenOver && seat.out === "left");
}

function seatMark(seat) {
  if (takenFrom(seat)) {
    const [before, after] = t("bot (took over {0})", "{0}").split("{0}");
    return el("span", {class: "tag bot taken-over"}, before,
              player(seat.name), after);
  }
  return seat.bot || seat.takenOver
      ? el("span", {class: "tag bot"}, t("bot")) : null;
}

function drawSeats(toMove) {
  replaceChildren(seatList, state.seats.map((seat, i) => el("li", {
    class: "seat" + (toMove === i ? " to-move" : "") +
           (seat.out && !takenFrom(seat) ? " out" : ""),
    "data-seat": i},
    kind === "splendor" ? seatLabel(i) : el("a", {
      href: `/players/${kind}/${pathPart(seat.name)}`},
      seatLabel(i)),
    seatMark(seat),
    seat.guest ? el("span", {class: "tag guest"}, t("guest")) : null,
    seat.out && !takenFrom(seat) ? el("span", {class: "tag"}, t(seat.out))
                                 : null,
    seat.place ? el("span", {class: "tag"}, `#${seat.place}`) : null)));
}

// A move's words (views.actionWords) in the page's language: a template
// and its arguments, each a number, a text or words again.
function wordsText(words) {
  if (Array.isArray(words)) {
    const [template, ...args] = words;
    return t(template, ...args.map(wordsText));
  }
  return typeof words === "string" ? t(words) : String(words);
}

function moveItem(move) {
  const text = move.words ? wordsText(move.words) : move.text;
  return el("li", {"data-ply": move.ply},
            seatLabel(move.seat), `: ${text}`,
            move.byBot ? el("span", {class: "tag"}, t("bot")) : null);
}

function drawMoves(moves, current) {
  replaceChildren(moveList, moves.map(moveItem));
  if (current !== undefined) {
    for (const item of moveList.children) {
      item.classList.toggle("current", Number(item.dataset.ply) === current);
    }
  }
  moveList.scrollTop = moveList.scrollHeight;
}

function drawView(view, last, ply) {
  const drawn = drawBoard(kind, view, state.seats, last);
  if (kind === "checkers") animation.attach(drawn);
  replaceChildren(board, drawn);
  board.dataset.ply = String(ply);
}

// The turn clock of the turn under way ({seat, remaining}, or null).
function drawClock() {
  if (state.turn && !state.result) {
    clock.start(state.turn.seat, state.turn.remaining);
  } else {
    clock.stop();
  }
}

// A translated text with its {0} filled by nodes (a seat's label).
function filled(text, nodes) {
  const [before, after] = text.split("{0}");
  return [before, ...nodes, after];
}

function resultText(result) {
  if (result.winner !== null && result.winner !== undefined) {
    return filled(t("Game over: {0} won ({1})", "{0}", t(result.reason)),
                  seatLabel(result.winner));
  }
  return [result.reason === "normal" ? t("Game over: a draw")
                                     : t("Game over ({0})", t(result.reason))];
}

function drawStatus() {
  statusLine.classList.toggle("over", Boolean(state.result));
  if (state.result) {
    replaceChildren(statusLine, resultText(state.result));
    return;
  }
  if (!state.turn) {
    statusLine.textContent = t("Starting");
    return;
  }
  // The seconds left are the turn clock's (drawClock).
  replaceChildren(statusLine,
                  filled(t("To move: {0}", "{0}"), seatLabel(state.turn.seat)));
}

function drawSpectators(count) {
  spectators.textContent = t("{0} watching", count);
}

// Gomoku and checkers actions come without the position: play them here.
function applyMove(view, move) {
  if (kind === "gomoku") {
    const [x, y] = move.action;
    const index = y * view.size + x;
    const board = view.board.slice(0, index) + (move.seat === 0 ? "b" : "w") +
                  view.board.slice(index + 1);
    return Object.assign({}, view, {board, last: [x, y],
                                    toMove: 1 - move.seat});
  }
  const path = move.action;
  const [fx, fy] = path[0];
  const [tx, ty] = path[path.length - 1];
  const pieces = view.pieces.map((cells, seat) => seat !== move.seat ? cells :
    cells.map(([x, y]) => (x === fx && y === fy) ? [tx, ty] : [x, y]));
  return Object.assign({}, view, {pieces});
}

function live() {
  const source = new EventSource(apiPath + "/events");
  source.addEventListener("snapshot", message => {
    const data = JSON.parse(message.data);
    Object.assign(state, {seats: data.seats, view: data.view,
                          moves: data.moves, turn: data.turn,
                          result: data.result, turnReceived: Date.now()});
    drawView(state.view, lastAction(), state.moves.length);
    drawSeats(state.turn ? state.turn.seat : null);
    drawMoves(state.moves);
    drawSpectators(data.spectators);
    drawStatus();
    drawClock();
    if (data.result) {
      source.close();
      fetch(apiPath).then(r => r.json()).then(replayFrom);
    }
  });
  source.addEventListener("action", message => {
    const data = JSON.parse(message.data);
    state.moves.push(data.move);
    state.view = data.view || applyMove(state.view, data.move);
    if (kind === "checkers") animation.play(data.move.action);
    drawView(state.view, data.move.action, state.moves.length);
    moveList.append(moveItem(data.move));
    moveList.scrollTop = moveList.scrollHeight;
    if (data.turn) {
      state.turn = data.turn;
      state.turnReceived = Date.now();
      drawSeats(state.turn.seat);
      drawStatus();
    } else {
      state.turn = null;
    }
    drawClock();
  });
  source.addEventListener("view", message => {
    state.view = JSON.parse(message.data).view;
    drawView(state.view, lastAction(), state.moves.length);
  });
  source.addEventListener("turn", message => {
    state.turn = JSON.parse(message.data);
    state.turnReceived = Date.now();
    drawSeats(state.turn ? state.turn.seat : null);
    drawStatus();
    drawClock();
  });
  source.addEventListener("seats", message => {
    const data = JSON.parse(message.data);
    state.seats = data.seats;
    state.view = data.view;
    drawView(state.view, lastAction(), state.moves.length);
    drawSeats(state.turn ? state.turn.seat : null);
  });
  source.addEventListener("spectators", message => {
    drawSpectators(JSON.parse(message.data).count);
  });
  source.addEventListener("end", message => {
    const data = JSON.parse(message.data);
    state.result = data.result;
    state.view = data.view;
    source.close();
    drawView(state.view, lastAction(), state.moves.length);
    drawSeats(null);
    drawStatus();
    drawClock();
    fetch(apiPath).then(r => r.json()).then(replayFrom);
  });
}

// A finished game: step back and forth, play, and a slider.
function replayFrom(data) {
  if (!data.replay) {
    return;
  }
  Object.assign(state, {seats: data.seats, result: data.result});
  const steps = data.replay.steps;
  const moves = data.replay.moves;
  const last = steps.length - 1;
  let step = last;
  let shownStep = last;
  let timer = null;
  const slider = el("input", {type: "range", min: 0, max: last, value: last,
                              id: "slider", "aria-label": t("move")});
  const counter = el("span", {id: "step", class: "step"});
  const button = (id, label, title) => el("button", {id, type: "button",
                                                     title}, label);
  const first = button("first", "\u00ab " + t("first"),
                       t("first position"));
  const back = button("back", "\u25c0", t("one move back"));
  const play = button("play", "\u25b6 " + t("play"), t("play"));
  const forward = button("forward", "\u25b6", t("one move forward"));
  const end = button("last", t("last") + " \u00bb", t("last position"));
  function show(n) {
    step = Math.max(0, Math.min(last, n));
    slider.value = String(step);
    counter.textContent = t("move {0} / {1}", step, last);
    const lastMove = step > 0 ? moves[step - 1].action : null;
    // One move forward slides along its path; any other jump does not.
    if (kind === "checkers" && step === shownStep + 1 && lastMove) {
      animation.play(lastMove);
    } else {
      animation.stop();
    }
    shownStep = step;
    drawView(steps[step], lastMove, step);
    board.dataset.step = String(step);
    for (const item of moveList.children) {
      item.classList.toggle("current", Number(item.dataset.ply) === step);
    }
  }
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "\u25b6 " + t("play");
  }
  first.addEventListener("click", () => { stop(); show(0); });
  back.addEventListener("click", () => { stop(); show(step - 1); });
  forward.addEventListener("click", () => { stop(); show(step + 1); });
  end.addEventListener("click", () => { stop(); show(last); });
  slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
  play.addEventListener("click", () => {
    if (timer !== null) { stop(); return; }
    if (step === last) show(0);
    play.textContent = "\u23f8 " + t("pause");
    timer = setInterval(() => {
      if (step >= last) { stop(); return; }
      show(step + 1);
    }, 700);
  });
  replaceChildren(controls, first, back, play, forward, end, slider,
                  counter);
  drawSeats(null);
  drawMoves(moves);
  for (const item of moveList.children) {
    item.addEventListener("click", () => {
      stop(); show(Number(item.dataset.ply));
    });
  }
  drawStatus();
  spectators.textContent = "";
  show(last);
}

if (body.dataset.live === "1") {
  live();
} else {
  fetch(apiPath).then(r => r.json()).then(replayFrom);
}
