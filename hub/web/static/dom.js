// Small DOM helpers: every text from a player goes in as a text node,
// never as markup.

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
  for (const child of children.flat()) {
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
