// The lobby page: the hub now, redrawn from /api/hub/events on change.
import { el, player, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

function member(data) {
  return el("li", {class: "member" + (data.ready ? " ready" : "")},
            data.name ? player(data.name, data.display) : "?",
            data.guest ? " " : "",
            data.guest ? el("span", {class: "tag guest"}, t("guest")) : null,
            data.ready ? " \u2713" : "", data.bot ? " " + t("(bot)") : "");
}

// The players of a game, a guest's name marked as the page's own are.
function gamePlayers(data) {
  const parts = [];
  data.players.forEach((name, i) => {
    if (parts.length) parts.push(t(" vs "));
    parts.push(player(name, data.displays && data.displays[i]));
    if (data.guests && data.guests[i]) {
      parts.push(" ", el("span", {class: "tag guest"}, t("guest")));
    }
  });
  return parts;
}

function room(data) {
  return el("li", {class: "room"},
    el("div", {},
       el("span", {class: "room-name"}, player(data.name)),
       el("span", {class: "state " + data.state},
          data.state === "playing" ? t("playing") : t("waiting")),
       el("span", {class: "count"},
          `${data.members.length}/${data.capacity}`),
       data.locked ? el("span", {class: "locked"}, t("locked")) : null,
       data.game ? el("a", {class: "watch",
                            href: "/games/" + encodeURIComponent(data.game)},
                      t("watch")) : null),
    el("ul", {class: "members"}, data.members.map(member)));
}

function game(data) {
  return el("li", {class: "game"},
    el("a", {class: "watch", href: data.url},
       data.players.length ? gamePlayers(data) : player(data.table)),
    " ", el("span", {class: "room-name"}, player(data.table)),
    " ", el("span", {class: "count"},
            data.plies === 1 ? t("1 move") : t("{0} moves", data.plies)));
}

function draw(now) {
  for (const [kind, data] of Object.entries(now.kinds)) {
    const section = document.getElementById("kind-" + kind);
    if (!section) continue;
    section.querySelector(".online").textContent = String(data.online);
    replaceChildren(section.querySelector(".games"), data.games.map(game));
    replaceChildren(section.querySelector(".rooms"), data.rooms.map(room));
  }
  document.getElementById("lobby").dataset.updated = String(Date.now());
}

const source = new EventSource("/api/hub/events");
source.addEventListener("hub", message => draw(JSON.parse(message.data)));
