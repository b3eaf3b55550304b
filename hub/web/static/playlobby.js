// The play page's lobby, the start of play (docs/protocols/web.md):
// pick a game; see its rooms, with their players and state (the rooms of
// the cluster's other nodes too); create one (checkers: the player count
// of the hub's checkersSizes and your seat; gomoku: your colour); join
// one; quick play (the fullest open room of that kind, or a new one);
// fill the empty seats of your room with bots of a chosen level; or play
// at once against bots.  play.js calls lobbyControls, drawOpenRooms and
// lookAtLobby; everything else here is the lobby's own.
import { el, player, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

// The game kinds, as the seeds name them.
const KINDS = ["gomoku", "checkers", "splendor"];
const KIND_NAMES = {
  gomoku: () => t("Gomoku"), checkers: () => t("Chinese checkers"),
  splendor: () => t("Splendor")};
const SPLENDOR_SEATS = 4;

let page = null;

// play.js hands over what the lobby needs of the page: send(message),
// the page's state, playing(), resetGame() and button(id, label, onClick).
export function startLobby(context) {
  page = context;
  const asked = new URLSearchParams(location.search).get("kind");
  if (KINDS.includes(asked)) sessionStorage.setItem("gamehub.kind", asked);
}

export const openRooms = el("ul", {id: "open-rooms", class: "rooms"});
export const openRoomsTitle = el("h2", {id: "open-rooms-title",
                                        hidden: true});

function picked() {
  const kind = sessionStorage.getItem("gamehub.kind");
  return KINDS.includes(kind) ? kind : "gomoku";
}

function pick(kind) {
  sessionStorage.setItem("gamehub.kind", kind);
  page.redraw();
  lookAtLobby();
}

function level() {
  const select = document.getElementById("level");
  return Number(select ? select.value : 2);
}

function select(id, label, values, stored, initial) {
  const node = el("select", {id, "aria-label": label},
                  ...values.map(([value, text]) => el(
                    "option", {value}, text)));
  node.value = sessionStorage.getItem(stored) || String(initial);
  if (node.selectedIndex < 0) node.value = String(values[0][0]);
  node.addEventListener("change", () => {
    sessionStorage.setItem(stored, node.value);
    if (id === "players") page.redraw();
  });
  return node;
}

function checkersSizes() {
  return page.state.welcome.checkersSizes.filter(n => n > 1);
}

function seatChoices(kind, chosen) {
  if (kind === "gomoku") return [[0, t("black")], [1, t("white")]];
  const players = Number(chosen.value);
  return Array.from({length: players}, (_, i) => [i, t("Seat {0}", i + 1)]);
}

// A room name no room of the lobby has: the player's name, or NAME-N.
function freeName(kind) {
  const base = page.state.welcome.name;
  const taken = new Set(roomsOf(kind).map(room => room.name));
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (!taken.has(name)) return name;
  }
}

function seatOf(kind) {
  const seat = document.getElementById("seat");
  return seat ? Number(seat.value) : (kind === "gomoku" ? 1 : 0);
}

// Play at once against bots (the seats before yours and after it).
export function newGame(kind) {
  const state = page.state;
  if (state.room) page.send({type: "leave"});
  page.resetGame();
  if (kind === "splendor") {
    // Seated as a Unity client's INIT; bots fill the table up to the
    // number of players chosen.
    const players = Number(document.getElementById(
      "splendor-players").value);
    page.send({type: "join", kind});
    page.send({type: "bots", count: players - 1, level: level()});
    return;
  }
  const room = `web-${state.welcome.name}-${Date.now() % 100000}`;
  const message = {type: "create", kind, room, seat: 0, bots: true,
                   level: level()};
  if (kind === "checkers") {
    message.players = Number(document.getElementById("players").value);
  }
  page.send(message);
}

function createRoom(kind) {
  page.resetGame();
  if (kind === "splendor") {
    page.send({type: "join", kind});
    return;
  }
  const input = document.getElementById("room-name");
  const room = (input && input.value.trim()) || freeName(kind);
  const message = {type: "create", kind, room, seat: seatOf(kind)};
  if (kind === "checkers") {
    message.players = Number(document.getElementById("players").value);
  }
  page.send(message);
}

function quickPlay(kind) {
  page.resetGame();
  const message = {type: "quick", kind, seat: seatOf(kind)};
  if (kind === "checkers") {
    message.players = Number(document.getElementById("players").value);
  }
  page.send(message);
}

// The seats of the player's room that bots could fill.
function emptySeats(room) {
  const seats = room.kind === "gomoku" ? 2
      : room.kind === "splendor" ? SPLENDOR_SEATS
      : room.players || room.capacity;
  return Math.max(0, seats - room.members.length);
}

function label(forId, text) {
  return el("label", {for: forId}, text);
}

// The lobby's controls, while no game is being played.
export function lobbyControls() {
  const state = page.state, button = page.button;
  const room = state.room;
  const kind = room ? room.kind : picked();
  const parts = [];
  const levels = select("level", t("Bot level"),
                        [1, 2, 3].map(n => [n, String(n)]),
                        "gamehub.level", 2);
  const sizes = checkersSizes();
  const players = select("players", t("Players"),
                         sizes.map(n => [n, String(n)]),
                         "gamehub.players", sizes[0]);
  if (!room) {
    parts.push(el("div", {class: "kind-picker", role: "group",
                          "aria-label": t("Choose a game")},
      KINDS.map(k => {
        const node = button("pick-" + k, KIND_NAMES[k](), () => pick(k));
        node.classList.add("kind-pick");
        node.setAttribute("aria-pressed", String(k === kind));
        return node;
      })));
    const choice = [];
    if (kind === "checkers") choice.push(label("players", t("Players")),
                                         players);
    if (kind !== "splendor") {
      const seat = select("seat", t("Your seat"), seatChoices(kind, players),
                          "gamehub.seat." + kind, kind === "gomoku" ? 1 : 0);
      const name = el("input", {id: "room-name", type: "text",
                                maxlength: 64, "aria-label": t("Room name"),
                                placeholder: t("Room name")});
      name.value = sessionStorage.getItem("gamehub.room-name") || "";
      name.addEventListener("input", () => sessionStorage.setItem(
        "gamehub.room-name", name.value));
      choice.push(label("seat", t("Your seat")), seat,
                  label("room-name", t("Room name")), name);
    }
    parts.push(el("div", {class: "controls room-choice"}, choice));
    parts.push(el("div", {class: "controls"},
      button("quick-play", t("Quick play"), () => quickPlay(kind)),
      button("create-room", t("Create a room"), () => createRoom(kind))));
  }
  const bots = [label("level", t("Bot level")), levels];
  if (room && !room.running && emptySeats(room) > 0) {
    bots.push(button("fill-bots", t("Fill with bots"), () => page.send({
      type: "bots", count: emptySeats(room), level: level()})));
  }
  parts.push(el("div", {class: "controls bots"}, bots));
  if (!room) {
    const splendorPlayers = select(
      "splendor-players", t("Splendor players"),
      [2, 3, 4].map(n => [n, String(n)]), "gamehub.splendor-players", 2);
    parts.push(el("div", {class: "controls against-bots"},
      kind === "checkers" ? null : [label("players", t("Players")),
                                    players],
      button("new-gomoku", t("Gomoku against a bot"),
             () => newGame("gomoku")),
      button("new-checkers", t("Checkers against bots"),
             () => newGame("checkers")),
      label("splendor-players", t("Splendor players")), splendorPlayers,
      button("new-splendor", t("Splendor against bots"),
             () => newGame("splendor"))));
  }
  if (room && !room.running) {
    const actions = [];
    if (room.kind === "gomoku" && room.members.length === 2 &&
        room.owner === state.welcome.name && !state.seats.length) {
      actions.push(button("start", t("Start"), () => page.send(
        {type: "start"})));
    }
    const me = room.members.find(member => member.you);
    if (me && !me.ready && (room.kind !== "gomoku" ||
                            room.owner !== me.name)) {
      actions.push(button("ready", t("Ready"), () => page.send(
        {type: "ready"})));
    }
    parts.push(el("div", {class: "controls"}, actions));
  }
  if (room) {
    parts.push(button("leave", t("Leave"), () => page.send(
      {type: "leave"})));
  }
  return parts;
}

// The rooms of a kind in the lobby: this node's, then the other nodes'.
function roomsOf(kind) {
  const lobby = page.state.lobby;
  if (!lobby) return [];
  const here = (lobby[kind] || {rooms: []}).rooms.map(room => ({
    name: room.name, members: room.members.map(m => m.name),
    capacity: room.capacity, running: room.state === "playing",
    locked: room.locked, node: null, owner: room.owner}));
  const remote = (page.state.remote || {})[kind] || [];
  const there = remote.map(room => Object.assign({owner: null}, room));
  return here.concat(there);
}

function joinable(room, kind) {
  const seats = kind === "gomoku" ? 2 : room.capacity;
  return !room.running && !room.locked && room.node === null &&
      room.members.length < seats;
}

function roomItem(room, kind) {
  const name = page.state.welcome.name;
  return el("li", {class: "room", "data-kind": kind,
                   "data-room": room.name},
    el("div", {},
      el("span", {class: "room-name"}, player(room.name)),
      el("span", {class: "state " + (room.running ? "playing" : "waiting")},
         room.running ? t("playing") : t("waiting")),
      el("span", {class: "count"},
         `${room.members.length}/${kind === "gomoku" ? 2 : room.capacity}`),
      room.locked ? el("span", {class: "locked"}, t("locked")) : null,
      room.node !== null ? el("span", {class: "node"},
                              t("on node {0}", room.node)) : null,
      joinable(room, kind) && !room.members.includes(name)
        ? page.button(null, t("Join"), () => {
            page.resetGame();
            page.send({type: "join", kind, room: room.name});
          }) : null),
    el("ul", {class: "members"}, room.members.map(
      member => el("li", {class: "member"}, player(member)))));
}

// The rooms of the picked kind, while not in a room.
export function drawOpenRooms() {
  const state = page.state;
  const shown = state.lobby && !page.playing() && !state.room;
  const kind = picked();
  // Splendor's tables have no names to pick: quick play seats you.
  const rooms = shown && kind !== "splendor" ? roomsOf(kind) : [];
  replaceChildren(openRooms, rooms.length || !shown || kind === "splendor"
      ? rooms.map(room => roomItem(room, kind))
      : [el("li", {class: "empty"},
            t("No room yet: create one, or quick play."))]);
  for (const node of openRooms.querySelectorAll("button")) {
    node.classList.add("join");
  }
  openRoomsTitle.textContent = shown
      ? t("Rooms: {0}", KIND_NAMES[kind]()) : "";
  openRoomsTitle.hidden = !shown || kind === "splendor";
}

export function lookAtLobby() {
  const state = page.state;
  if (state.welcome && !page.playing() && !state.room) {
    page.send({type: "lobby"});
  }
}
