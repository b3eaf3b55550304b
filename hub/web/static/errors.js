// What the play page says of each error code of /ws (docs/protocols/
// web.md, "Error codes"), in the page's language: a player reads a
// sentence, not the code.  An unknown code is shown as it is.
import { t } from "./i18n.js";

const TEXTS = {
  "bad-json": () => t("The page sent something the hub cannot read."),
  "bad-message": () => t("The page sent a request the hub cannot read."),
  "unknown-type": () => t("The hub does not know that request."),
  "bad-version": () => t("This page is out of date: reload it."),
  "hello-first": () => t("Not connected yet: reload the page."),
  "already-hello": () => t("You are connected already."),
  "bad-name": () => t("A name is 1 to {0} letters (A-Z, a-z), digits or " +
                      "underscores: the legacy game clients' protocols " +
                      "allow no other character, so a name in Chinese " +
                      "cannot be one.", 20),
  "name-taken": () => t("That name is taken: if it is yours, log in."),
  "login-required": () => t("Only registered players play here."),
  "banned": () => t("You are banned from this hub."),
  "unavailable": () => t("The hub cannot do that just now: try again."),
  "bad-kind": () => t("There is no such game here."),
  "bad-room": () => t("That room name cannot be used."),
  "bad-size": () => t("That number of players is not offered."),
  "bad-seat": () => t("That seat cannot be taken."),
  "bad-level": () => t("A bot's level is 1, 2 or 3."),
  "bad-action": () => t("That move cannot be read."),
  "in-room": () => t("Leave your room first."),
  "not-in-room": () => t("You are not in a room."),
  "no-room": () => t("There is no such room."),
  "room-exists": () => t("A room of that name exists already."),
  "room-full": () => t("That room is full."),
  "room-running": () => t("That room's game has started."),
  "name-in-room": () => t("Someone of your name is in that room."),
  "wrong-password": () => t("Wrong password."),
  "cannot-start": () => t("The game cannot start yet."),
  "not-owner": () => t("Only the room's owner can do that."),
  "draining": () => t("The hub is shutting down: come back soon."),
  "other-node": () => t("That room is played on another server."),
  "no-game": () => t("No game is being played."),
  "not-your-turn": () => t("It is not your turn."),
  "not-seated": () => t("You have no seat in this game."),
  "game-over": () => t("The game is over."),
  "illegal": () => t("That move is not legal."),
  "unsupported": () => t("This game does not offer that."),
  "not-entrant": () => t("This game is for its tournament's entrants."),
  "too-many-bots": () => t("You have all the bots one player may have."),
  "too-many-strong-bots": () => t("You have all the level-3 bots allowed."),
  "hint-pending": () => t("A hint is on its way."),
  "internal": () => t("The hub failed to do that; it has been logged."),
};

// The codes that have a sentence (a test compares them with the hub's).
export const CODES = Object.keys(TEXTS);

export function errorText(code) {
  return TEXTS[code] ? TEXTS[code]() : t("Error: {0}", code);
}
