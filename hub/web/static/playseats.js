// The seat list of the play page: while a game is played, its seats (with
// their colours, the bots of the room and the seats bots took over from
// departed players); while the room waits, its members as they join (a
// bot the moment it is seated), with who is ready.
import { el, player, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

export const seatList = el("ol", {id: "seats", class: "seats"});

// A translated text whose {0} is a player's name (in a <bdi>, after its
// display name if it has one).
function withPlayer(text, name, display) {
  const [before, after] = text.split("{0}");
  return after === undefined ? [text]
                             : [before, player(name, display), after];
}

function tag(kind, text) {
  return el("span", {class: kind ? "tag " + kind : "tag"}, text);
}

// A seat's marks: a bot from the start, or a bot that took the seat
// over from its departed player.
function botMark(seat) {
  if (seat.takenOver) {
    return el("span", {class: "tag bot taken-over"},
              withPlayer(t("bot (took over {0})", "{0}"), seat.name));
  }
  return seat.bot ? tag("bot", t("bot")) : null;
}

function gameSeats(state) {
  const game = state.game;
  return state.seats.map((seat, i) => el("li", {
    class: "seat" + (state.turn === i ? " to-move" : ""), "data-seat": i},
    // "ann (black)", "ann（黑棋）": the language's brackets.
    withPlayer(t("{0} ({1})", "{0}", game.colourName(state.board, i)),
               seat.name, seat.display),
    botMark(seat),
    seat.guest ? tag("guest", t("guest")) : null,
    i === state.you ? tag("", t("you")) : null));
}

function roomMembers(room) {
  return room.members.map((member, i) => el("li", {
    class: "seat waiting", "data-member": i},
    player(member.name, member.display), botMark(member),
    member.guest ? tag("guest", t("guest")) : null,
    member.ready ? tag("ready", t("ready")) : null,
    member.you ? tag("", t("you")) : null));
}

export function drawSeats(state) {
  if (state.seats.length) {
    replaceChildren(seatList, gameSeats(state));
  } else {
    replaceChildren(seatList, state.room ? roomMembers(state.room) : []);
  }
}
