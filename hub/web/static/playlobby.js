// The play page's lobby, the start of play (docs/protocols/web.md):
// pick a game; see its rooms, with their players and state (the rooms of
// the cluster's other nodes too); create one (for a number of players,
// and your seat: each game's module says what it offers); join one;
// quick play (the fullest open room of that kind, or a new one); fill
// the empty seats of your room with bots of a chosen level; or play a
// bot, at once: you and bots of the level chosen, in a game that starts
// by itself.  play.js calls lobbyControls, drawOpenRooms and lookAtLobby;
// everything else here is the lobby's own.
import { el, player, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";
import { GAMES, KINDS } from "./playgames.js";

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
  return KINDS.includes(kind) ? kind : KINDS[0];
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

// The player counts the picked game offers, if it has a choice.
function sizesOf(game) {
  return game.sizes ? game.sizes(page.state.welcome) : [];
}

// The number of players chosen (none for a game of two).
function players(game) {
  const chosen = document.getElementById("players");
  return chosen && sizesOf(game).length ? Number(chosen.value) : null;
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

function seatOf(game) {
  const seat = document.getElementById("seat");
  return seat ? Number(seat.value) : game.defaultSeat;
}

// With the number of players chosen, if the game has a choice.
function withPlayers(game, message) {
  const count = players(game);
  if (count !== null) message.players = count;
  return message;
}

// Play a bot, at once: you in the first seat (gomoku: black), bots of
// the level chosen in the others, and the game starts by itself.
export function newGame(kind) {
  const game = GAMES[kind], state = page.state;
  if (state.room) page.send({type: "leave"});
  page.resetGame();
  const message = {type: "create", kind, seat: 0, bots: true,
                   level: level()};
  if (game.namedRooms) {
    message.room = `web-${state.welcome.name}-${Date.now() % 100000}`;
  }
  page.send(withPlayers(game, message));
}

function createRoom(game) {
  page.resetGame();
  if (!game.namedRooms) {
    page.send({type: "join", kind: game.kind});
    return;
  }
  const input = document.getElementById("room-name");
  const room = (input && input.value.trim()) || freeName(game.kind);
  page.send(withPlayers(game, {type: "create", kind: game.kind, room,
                               seat: seatOf(game)}));
}

function quickPlay(game) {
  page.resetGame();
  page.send(withPlayers(game, {type: "quick", kind: game.kind,
                               seat: seatOf(game)}));
}

// The seats of the player's room that bots could fill.
function emptySeats(room) {
  return Math.max(0, GAMES[room.kind].seatsOf(room) - room.members.length);
}

function label(forId, text) {
  return el("label", {for: forId}, text);
}

// What a new room of the picked game is: its number of players, your
// seat and its name, as the game offers them.
function roomChoice(game) {
  const choice = [];
  const sizes = sizesOf(game);
  if (sizes.length) {
    choice.push(label("players", t("Players")), select(
      "players", t("Players"), sizes.map(n => [n, String(n)]),
      "gamehub.players." + game.kind, sizes[0]));
  }
  if (game.namedRooms) {
    const chosen = sessionStorage.getItem("gamehub.players." + game.kind);
    const count = sizes.includes(Number(chosen)) ? Number(chosen)
        : sizes[0];
    const seat = select("seat", t("Your seat"), game.seatChoices(count),
                        "gamehub.seat." + game.kind, game.defaultSeat);
    const name = el("input", {id: "room-name", type: "text",
                              maxlength: 64, "aria-label": t("Room name"),
                              placeholder: t("Room name")});
    name.value = sessionStorage.getItem("gamehub.room-name") || "";
    name.addEventListener("input", () => sessionStorage.setItem(
      "gamehub.room-name", name.value));
    choice.push(label("seat", t("Your seat")), seat,
                label("room-name", t("Room name")), name);
  }
  return choice;
}

// The lobby's controls, while no game is being played.
export function lobbyControls() {
  const state = page.state, button = page.button;
  const room = state.room;
  const game = GAMES[room ? room.kind : picked()];
  const parts = [];
  const levels = select("level", t("Bot level"),
                        [1, 2, 3].map(n => [n, String(n)]),
                        "gamehub.level", 2);
  if (!room) {
    parts.push(el("div", {class: "kind-picker", role: "group",
                          "aria-label": t("Choose a game")},
      KINDS.map(k => {
        const node = button("pick-" + k, GAMES[k].name(), () => pick(k));
        node.classList.add("kind-pick");
        node.setAttribute("aria-pressed", String(k === game.kind));
        return node;
      })));
    parts.push(el("div", {class: "controls room-choice"}, roomChoice(game)));
    parts.push(el("div", {class: "controls"},
      button("quick-play", t("Quick play"), () => quickPlay(game)),
      button("create-room", t("Create a room"), () => createRoom(game))));
  }
  const bots = [label("level", t("Bot level")), levels];
  if (!room) {
    bots.push(button("new-" + game.kind, t("Play a bot"),
                     () => newGame(game.kind)));
  } else if (!room.running && emptySeats(room) > 0) {
    bots.push(button("fill-bots", t("Fill with bots"), () => page.send({
      type: "bots", count: emptySeats(room), level: level()})));
  }
  parts.push(el("div", {class: "controls bots"}, bots));
  if (room && !room.running) {
    const actions = [];
    const me = room.members.find(member => member.you);
    const owner = me && room.owner === me.name;
    if (game.ownerStarts && owner && room.members.length === 2 &&
        !state.seats.length) {
      actions.push(button("start", t("Start"), () => page.send(
        {type: "start"})));
    }
    if (me && !me.ready && !(game.ownerStarts && owner)) {
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

function joinable(room, game) {
  return !room.running && !room.locked && room.node === null &&
      room.members.length < game.seatsOf(room);
}

function roomItem(room, game) {
  const name = page.state.welcome.name;
  return el("li", {class: "room", "data-kind": game.kind,
                   "data-room": room.name},
    el("div", {},
      el("span", {class: "room-name"}, player(room.name)),
      el("span", {class: "state " + (room.running ? "playing" : "waiting")},
         room.running ? t("playing") : t("waiting")),
      el("span", {class: "count"},
         `${room.members.length}/${game.seatsOf(room)}`),
      room.locked ? el("span", {class: "locked"}, t("locked")) : null,
      room.node !== null ? el("span", {class: "node"},
                              t("on node {0}", room.node)) : null,
      joinable(room, game) && !room.members.includes(name)
        ? page.button(null, t("Join"), () => {
            page.resetGame();
            page.send({type: "join", kind: game.kind, room: room.name});
          }) : null),
    el("ul", {class: "members"}, room.members.map(
      member => el("li", {class: "member"}, player(member)))));
}

// The rooms of the picked kind, while not in a room.
export function drawOpenRooms() {
  const state = page.state;
  const shown = state.lobby && !page.playing() && !state.room;
  const game = GAMES[picked()];
  // A game without named rooms (Splendor): quick play seats you.
  const named = game.namedRooms;
  const rooms = shown && named ? roomsOf(game.kind) : [];
  replaceChildren(openRooms, rooms.length || !shown || !named
      ? rooms.map(room => roomItem(room, game))
      : [el("li", {class: "empty"},
            t("No room yet: create one, or quick play."))]);
  for (const node of openRooms.querySelectorAll("button")) {
    node.classList.add("join");
  }
  openRoomsTitle.textContent = shown
      ? t("Rooms: {0}", game.name()) : "";
  openRoomsTitle.hidden = !shown || !named;
}

export function lookAtLobby() {
  const state = page.state;
  if (state.welcome && !page.playing() && !state.room) {
    page.send({type: "lobby"});
  }
}
