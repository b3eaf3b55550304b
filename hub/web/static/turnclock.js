// The turn clock of a board: the seconds left for the seat to move,
// counting down from what the hub's table said when the turn began (the
// seconds of a TurnStarted on /ws, the remaining of a turn on the watch
// page's stream).  A table without a turn clock (gomoku's and Splendor's
// rooms, as in their legacy protocols) shows so, with the seconds the
// turn has lasted.  The hub is the authority: this only shows its clock.
//
// The node says what it shows: data-timed "yes" or "no", data-seconds
// the whole seconds shown (left, or spent without a clock), data-seat
// the seat to move; the class "low" in the last LOW seconds.
import { el } from "./dom.js";
import { t } from "./i18n.js";

// Seconds left from which the clock is shown as running out.
const LOW = 5;
// Milliseconds between two redraws.
const TICK_MS = 250;

export class TurnClock {
  constructor(id = "turn-clock") {
    this.node = el("p", {id, class: "turn-clock", role: "timer",
                         "aria-live": "off", hidden: true});
    this.deadline = null;
    this.since = 0;
    this.seat = null;
    this.timer = null;
  }

  // The turn of seat began: its clock runs out in seconds (null: the
  // table has no turn clock).
  start(seat, seconds) {
    const now = performance.now();
    this.seat = seat;
    this.since = now;
    this.deadline = seconds === null || seconds === undefined
        ? null : now + seconds * 1000;
    if (this.timer === null) {
      this.timer = setInterval(() => this.draw(), TICK_MS);
    }
    this.node.hidden = false;
    this.draw();
  }

  // Nobody's turn (between a move and the next turn, or at the end).
  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.seat = null;
    this.node.hidden = true;
    this.node.textContent = "";
    delete this.node.dataset.seconds;
    delete this.node.dataset.timed;
  }

  // True while a turn is being timed (or counted, without a clock).
  get running() {
    return this.timer !== null;
  }

  draw() {
    if (this.timer === null) return;
    const now = performance.now();
    const node = this.node;
    node.dataset.seat = String(this.seat);
    if (this.deadline === null) {
      const spent = Math.floor((now - this.since) / 1000);
      node.dataset.timed = "no";
      node.dataset.seconds = String(spent);
      node.classList.remove("low");
      node.textContent = t("No time limit: {0} s on this turn", spent);
      return;
    }
    // Floor: the hub's grace for latency stays unseen.
    const left = Math.max(0, Math.floor((this.deadline - now) / 1000));
    node.dataset.timed = "yes";
    node.dataset.seconds = String(left);
    node.classList.toggle("low", left <= LOW);
    node.textContent = t("{0} s left", left);
  }
}
