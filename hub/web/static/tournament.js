// /tournaments/ID: the standings, crosstable and pairings kept up to date
// from the event's stream (/api/tournaments/ID/events), which sends the
// event's JSON at once and after each change.  The page is complete
// without this script; every name goes in as a text node (dom.js).

import { el, player, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

const root = document.getElementById("tournament");

function points(value) {
  if (value === null || value === undefined) return "";
  return String(Math.round(value * 100) / 100);
}

// A name (with its account's display name), marked when it is a
// guest's (no account's).
function entrant(name, guest, display) {
  return guest ? [player(name), " ", el("span", { class: "tag guest" },
                                          t("guest"))]
               : [player(name, display)];
}

// The names of a pairing's seats, the guests marked.
function seatNames(p) {
  const parts = [];
  p.seats.forEach((name, i) => {
    if (parts.length) parts.push(t(" vs "));
    parts.push(...entrant(name, (p.guests || [])[i],
                          (p.displays || [])[i]));
  });
  return parts;
}

function standingRows(data) {
  const names = data.standings.map((s) => s.name);
  return data.standings.map((s) => el("tr", { class: "standing" },
    el("td", {}, String(s.rank)),
    el("td", {}, entrant(s.name, s.guest, s.display)),
    el("td", { class: "points" }, points(s.points)),
    el("td", {}, String(s.games)),
    el("td", { class: "rating" },
       s.rating.mu.toFixed(1) + " ± " + s.rating.sigma.toFixed(1)),
    names.map((n) => el("td", {}, n === s.name ? "" :
      points((data.crosstable[s.name] || {})[n])))));
}

function pairingRow(p) {
  const result = p.points === null ? t("playing")
    : p.points.map(points).join(" - ");
  return el("tr", { class: "pairing" },
    el("td", {}, p.room || t("bye")), el("td", {}, seatNames(p)),
    el("td", {}, result), el("td", {}, p.result ? t(p.result) : ""),
    p.live ? el("td", {}, el("a", { href: p.live, class: "watch" },
                              t("watch"))) : null);
}

// The games that wait for the logged-in visitor (data-you): the
// pairings of theirs with no result, in the current round (any round in
// an arena, which pairs whoever is free), while the event runs.
function myGames(data) {
  const you = (root.dataset.you || "").toLowerCase();
  if (!you || (data.state !== "running" && data.state !== "paused")) {
    return [];
  }
  const games = [];
  for (const r of data.rounds) {
    if (data.format !== "arena" && r.round !== data.currentRound) continue;
    for (const p of r.pairings) {
      const seat = p.seats.findIndex((n) => n.toLowerCase() === you);
      if (p.room && p.points === null && seat >= 0) {
        games.push({ room: p.room, seat });
      }
    }
  }
  return games;
}

// "Your game is ready": a link that opens /play in the game's room.
function drawGameReady(data) {
  const notice = document.getElementById("game-ready");
  if (!notice) return;
  const games = myGames(data);
  notice.hidden = games.length === 0;
  replaceChildren(notice, games.map((g) => el("p", {},
    t("Your game is ready: room {0}.", g.room), " ",
    el("a", {
      href: "/play?" + new URLSearchParams({ room: g.room, kind: data.kind }),
      class: "play-game button", "data-room": g.room,
    }, t("Play your game")))));
}

function update(data) {
  drawGameReady(data);
  const table = root.querySelector("table.standings");
  if (table) {
    const head = table.querySelector("thead tr");
    // The first five headings are the page's (translated); the names'
    // follow the standings.
    replaceChildren(head, [...head.children].slice(0, 5),
      data.standings.map((s) => el("th", {},
                                   player(s.name, s.display))));
    replaceChildren(table.querySelector("tbody"), standingRows(data));
  }
  const state = root.querySelector(".state");
  if (state) state.textContent = t(data.state);
  root.dataset.state = data.state;
  const sections = root.querySelectorAll("section");
  data.rounds.forEach((r, i) => {
    let section = sections[i];
    if (!section) {
      section = el("section", {}, el("h3", {}, t("Round {0}", r.round)),
                   el("table", { class: "pairings" }));
      const entrants = [...root.querySelectorAll("h2")].pop();
      root.insertBefore(section, entrants);
    }
    replaceChildren(section.querySelector("table.pairings"),
                    r.pairings.map(pairingRow));
  });
}

// The entry button, in the page's language.
for (const [id, text] of [["entry-enter", t("Enter the event")],
                          ["entry-withdraw", t("Withdraw")]]) {
  const button = document.getElementById(id);
  if (button) button.textContent = text;
}

if (root) {
  const stream = new EventSource(
    "/api/tournaments/" + root.dataset.event + "/events");
  stream.addEventListener("tournament", (e) => {
    const data = JSON.parse(e.data);
    update(data);
    if (data.state === "finished") stream.close();
  });
}
