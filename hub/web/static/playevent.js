// Tournament games on the play page (docs/protocols/web.md,
// "game-ready"): a link /play?room=ROOM&kind=KIND (from /tournaments/ID)
// joins that room once the hub has said welcome, and a "game-ready"
// message (a logged-in entrant's game waits in a room) shows a notice
// with a button that joins it, until the hub says the game is gone
// ("game-gone": it began, or was played or forfeited without you).  The
// hub seats the entrant in the seat (colour) of the pairing, out of a
// room whose game is over, and marks them ready.
import { el, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

const notice = el("div", {id: "game-ready", class: "game-ready",
                          role: "status", hidden: true});
let linked = null;
{
  const query = new URLSearchParams(location.search);
  if (query.get("room") && query.get("kind")) {
    linked = {room: query.get("room"), kind: query.get("kind")};
  }
}
const waiting = new Map();

function join(send, game) {
  send({type: "join", kind: game.kind, room: game.room});
}

function draw(send) {
  if (!notice.isConnected) {
    const root = document.getElementById("play");
    if (root) root.before(notice);
  }
  const games = [...waiting.values()];
  notice.hidden = games.length === 0;
  replaceChildren(notice, games.map(game => el("p", {},
    t("Your game is ready: room {0}.", game.room), " ",
    (() => {
      const node = el("button", {type: "button", class: "play-game",
                                 "data-room": game.room},
                      t("Play your game"));
      node.addEventListener("click", () => {
        // Out of a room that waits; never out of a game under way.
        send({type: "leave"});
        join(send, game);
      });
      return node;
    })())));
}

// After "welcome": the room of the page's link, once, if not in a room.
export function joinLinked(send, room) {
  if (linked && !room) join(send, linked);
  linked = null;
}

// A "game-ready" message.
export function gameReady(send, message) {
  waiting.set(message.room, message);
  draw(send);
}

// A "game-gone" message: that game waits no more.
export function gameGone(send, message) {
  if (waiting.delete(message.room)) draw(send);
}

// A "room" message: a tournament room joined is no longer waiting.
export function roomChanged(send, room) {
  if (room && waiting.delete(room.name)) draw(send);
}
