// The path animation of a checkers move (the design notes'): the piece
// that moved slides from cell to cell along its path, a hop at a time,
// for the players (play.js) and the spectators (game.js) alike.
//
// The board is redrawn from its position whenever anything changes, with
// the piece already at the end of its path: a PathAnimation keeps the
// animation apart from the drawing.  attach() puts it in each board
// drawn (a copy of the piece, class "moving", where the animation is
// now, and the piece at the end hidden until it arrives), so a redraw
// never restarts nor loses it.  The moving piece says where it is: its
// data-cell is the last cell of the path it reached ("x,y"), data-step
// that cell's index in the path, data-path the whole path.
//
// A new move finishes the one under way at once, so the board never
// falls behind; the moving piece takes no clicks, so nothing waits for
// it.  Under prefers-reduced-motion the piece is simply where it went.
import { checkersPoint } from "./boards.js";

// Milliseconds a hop (a step, or one jump of a chain) takes.
export const HOP_MS = 240;

const REDUCED = typeof matchMedia === "function"
    ? matchMedia("(prefers-reduced-motion: reduce)") : null;

function cellKey(cell) {
  return `${cell[0]},${cell[1]}`;
}

export class PathAnimation {
  constructor() {
    // The animation under way: {path, start, step}, or null.
    this.current = null;
    // The board (an SVG) it is drawn in, and the moving piece there.
    this.root = null;
    this.node = null;
    this.frame = null;
  }

  // Animate the move along path (cells [x, y]); the one under way, if
  // any, finishes at once.  Call before the board is drawn with the
  // move, then attach() the board.
  play(path) {
    this.finish();
    if (!path || path.length < 2 || (REDUCED && REDUCED.matches)) return;
    this.current = {path, start: performance.now(), step: 0};
    this.schedule();
  }

  // Draw the animation under way in root, a freshly drawn board (one in
  // which the piece already stands at the end of its path).
  attach(root) {
    this.root = root;
    this.node = null;
    const current = this.current;
    if (!current) return;
    const path = current.path;
    const piece = root.querySelector(
      `.piece[data-cell="${cellKey(path[path.length - 1])}"]`);
    if (!piece) {
      // Gone meanwhile (an eliminated seat's): nothing to move.
      this.current = null;
      return;
    }
    piece.classList.add("arriving");
    const node = piece.cloneNode(false);
    node.classList.remove("arriving");
    node.classList.add("moving");
    node.removeAttribute("data-cell");
    node.setAttribute("data-path", JSON.stringify(path));
    node.setAttribute("aria-hidden", "true");
    node.setAttribute("data-step", String(current.step));
    node.setAttribute("data-cell", cellKey(path[current.step]));
    this.node = node;
    root.append(node);
    // Where it was; the next frame moves it on, once the board is in
    // the page (so that every cell it reaches happens in the page).
    const [x, y] = checkersPoint(...path[current.step]);
    node.setAttribute("cx", String(x));
    node.setAttribute("cy", String(y));
  }

  // End the animation under way: the piece passes the rest of its cells
  // and stands where it went.
  finish() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    const current = this.current;
    this.current = null;
    if (!current) return;
    this.reach(current, current.path.length - 1);
    this.land();
  }

  // Forget the animation under way (a new game), without drawing.
  stop() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.current = null;
    this.node = null;
  }

  schedule() {
    this.frame = requestAnimationFrame(now => {
      this.frame = null;
      if (this.current) this.draw(now);
      if (this.current) this.schedule();
    });
  }

  // Mark each cell of the path up to step as reached, in order.
  reach(current, step) {
    const node = this.node;
    while (current.step < step) {
      current.step++;
      if (node) {
        node.setAttribute("data-step", String(current.step));
        node.setAttribute("data-cell", cellKey(current.path[current.step]));
      }
    }
  }

  // The moving piece is gone, the piece at the end shown.
  land() {
    if (this.node) this.node.remove();
    this.node = null;
    if (this.root) {
      for (const piece of this.root.querySelectorAll(".piece.arriving")) {
        piece.classList.remove("arriving");
      }
    }
  }

  draw(now) {
    const current = this.current;
    if (!current) return;
    const path = current.path;
    const hops = path.length - 1;
    const done = Math.max(0, now - current.start) / HOP_MS;
    if (done >= hops) {
      this.finish();
      return;
    }
    const hop = Math.floor(done);
    this.reach(current, hop);
    if (!this.node) return;
    const [x0, y0] = checkersPoint(...path[hop]);
    const [x1, y1] = checkersPoint(...path[hop + 1]);
    const part = done - hop;
    this.node.setAttribute("cx", String(x0 + (x1 - x0) * part));
    this.node.setAttribute("cy", String(y0 + (y1 - y0) * part));
  }
}
