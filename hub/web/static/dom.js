// Small DOM helpers: every text from a player goes in as a text node,
// never as markup, and a player's text (a name) as shown() in a <bdi>
// (player()), as the pages' server side does (hub/web/text.py).

const SVG_NS = "http://www.w3.org/2000/svg";

export function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
}

export function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
}

function setAttributes(node, attributes) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(name, String(value));
    }
  }
}

function append(node, children) {
  // Lists of children nest (a seat's label is a list, in a sentence).
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    node.append(typeof child === "string" || typeof child === "number"
                ? document.createTextNode(String(child)) : child);
  }
}

export function replaceChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

// The characters a name may not show: C0 and C1 controls, DEL, the
// bidirectional embeddings, overrides and isolates, and lone surrogates.
const HIDDEN = new RegExp(
  "[\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]" +
  "|[\\ud800-\\udbff](?![\\udc00-\\udfff])" +
  "|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]", "g");

// A player's text as shown: its hidden characters replaced by U+FFFD.
export function shown(text) {
  return String(text).replace(HIDDEN, "\ufffd");
}

// A player's text on the page: shown, isolated in a <bdi>; with its
// account's display name first, each in its own <bdi>: "李雷 (lilei)",
// the name the game protocols know always seen (hub/web/pages.py).
export function player(text, display) {
  if (!display) return el("bdi", {}, shown(text));
  return el("span", {class: "named"},
            el("bdi", {class: "display"}, shown(display)), " (",
            el("bdi", {}, shown(text)), ")");
}

// The player() of each name, with separator between them.
export function players(names, separator) {
  const parts = [];
  for (const name of names) {
    if (parts.length) parts.push(separator);
    parts.push(player(name));
  }
  return parts;
}

// A player's text in a URL path: percent-encoded (a lone surrogate, which
// has no UTF-8, as U+FFFD).
const LONE_SURROGATE = new RegExp(
  "[\\ud800-\\udbff](?![\\udc00-\\udfff])" +
  "|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]", "g");

export function pathPart(text) {
  return encodeURIComponent(String(text).replace(LONE_SURROGATE, "\ufffd"));
}

// A button of the page: a click runs onPress.
export function button(attributes, label, onPress) {
  const node = el("button", Object.assign({type: "button"}, attributes),
                  label);
  node.addEventListener("click", onPress);
  return node;
}

// A focusable SVG button on a board: a click, Enter or space.
export function svgButton(tag, attributes, onPress) {
  const node = svg(tag, Object.assign(
    {tabindex: 0, role: "button"}, attributes));
  node.addEventListener("click", onPress);
  node.addEventListener("keydown", event => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onPress();
    }
  });
  return node;
}
