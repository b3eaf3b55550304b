// Splendor on the play page (play.js): the table drawn as the spectators
// see it (boards.js, from the view and hand of the hub's events), with
// what the player may do now built from the legal actions the hub sent
// with the turn (docs/protocols/web.md).  Nothing is offered that is not
// among them:
// - take tokens: gem buttons add a token while some legal take still
//   holds the pick (3 different, or 2 of one), "Take" when it is one;
// - a face-up card or a deck (click, Enter or space) shows "Buy" (one
//   button per legal payment) and "Reserve";
// - the player's reserved cards are buttons too, to buy them;
// - giving back tokens down to 10 as the gem buttons pick them;
// - choosing among the nobles that qualify.
import { button, el, svgButton } from "./dom.js";
import { drawSplendor } from "./boards.js";
import { t } from "./i18n.js";

export const GEMS = ["diamond", "sapphire", "emerald", "ruby", "obsidian"];
const TOKENS = GEMS.concat(["golden"]);
const UNKNOWN_CARD_BASE = 10000;
// Where boards.js draws a card (x of the first, the step) and its size.
const CARD_X = 104, CARD_STEP = 94, CARD_W = 84, CARD_H = 112;

// The names of the gems, through the catalog.
function gemName(gem) {
  return {diamond: t("diamond"), sapphire: t("sapphire"),
          emerald: t("emerald"), ruby: t("ruby"), obsidian: t("obsidian"),
          golden: t("gold")}[gem];
}

function gemsText(pairs) {
  return pairs.map(([gem, n]) => `${n} ${gemName(gem)}`).join(", ");
}

function costText(cost) {
  return gemsText(GEMS.filter(gem => cost[gem]).map(gem => [gem,
                                                            cost[gem]]));
}

function pairsOf(pick) {
  return TOKENS.filter(gem => pick[gem]).map(gem => [gem, pick[gem]]);
}

// Whether the gems of an action hold every token of the pick.
function holds(action, pick) {
  const counts = Object.fromEntries(action.gems);
  return TOKENS.every(gem => (pick[gem] || 0) <= (counts[gem] || 0));
}

// True if action is the hint (both in the hub's JSON form).
function isHint(hint, action) {
  return Boolean(hint && action) &&
      JSON.stringify(hint) === JSON.stringify(action);
}

function sameGems(action, pick) {
  return holds(action, pick) && action.gems.every(
    ([gem, n]) => (pick[gem] || 0) === n);
}

// What the player has chosen so far, kept between redraws of one turn.
function newChoice() {
  return {pick: {}, selected: null};
}

// The phase of the turn: "act", "discard" or "noble" (from the legal
// actions), or null when it is not the player's.
function phaseOf(legal) {
  if (!legal || !legal.length) return null;
  const kind = legal[0].kind;
  return kind === "discard_gems" ? "discard"
      : kind === "get_noble" ? "noble" : "act";
}

// The hub's hint (an action) as the choice that shows it.
function hintChoice(action) {
  const choice = newChoice();
  if (action.kind === "get_gems" || action.kind === "discard_gems") {
    choice.pick = Object.fromEntries(action.gems);
  } else if (action.kind === "fold_card_unknown") {
    choice.selected = "deck-" + (action.card - UNKNOWN_CARD_BASE);
  } else if (action.kind !== "get_noble") {
    choice.selected = String(action.card);
  }
  return choice;
}

/**
 * The board (an SVG) and the panel of what can be done now.
 *
 * game: {view, hand, seats, legal, hint, choice, nobles}; act(action)
 * sends an action; redraw() draws again after the choice changed.
 */
function drawSplendorPlay(game, act, redraw) {
  const legal = game.legal || [];
  const phase = phaseOf(legal);
  const choice = game.choice;
  const drawn = drawSplendor(game.view, game.seats);
  drawn.setAttribute("aria-label", t("Splendor table"));
  const panel = el("div", {id: "splendor-actions", class: "splendor-actions"});
  const hinted = game.hint ? hintKey(game.hint) : null;
  if (phase === "act") {
    overlayCards(drawn, game.view, legal, choice, hinted, redraw);
    panel.append(gemPicker(legal.filter(a => a.kind === "get_gems"),
                           choice, "take", t("Take tokens"), t("Take"),
                           act, redraw, game.hint));
    panel.append(chosenCard(game, legal, act));
    panel.append(cardList(game.view, legal, choice, redraw));
  } else if (phase === "discard") {
    panel.append(gemPicker(legal, choice, "discard",
                           t("Tokens to give back"), t("Give back"), act,
                           redraw, game.hint));
  } else if (phase === "noble") {
    overlayNobles(drawn, game.view, legal, hinted, act);
    panel.append(el("h3", {}, t("Choose a noble")),
                 el("div", {class: "choices"}, legal.map(action => {
                   const noble = game.nobles[action.card] || null;
                   return button({class: "noble-choice" + (
                     hinted === "noble-" + action.card ? " hinted" : ""),
                                  "data-noble": action.card},
                                 noble ? t("Noble: {0} points ({1})",
                                           noble.points, costText(noble.cost))
                                       : t("Noble {0}", action.card),
                                 () => act(action));
                 })));
  }
  panel.append(handList(game, legal, phase === "act", choice, redraw));
  return {board: drawn, panel};
}

function hintKey(action) {
  if (action.kind === "get_noble") return "noble-" + action.card;
  if (action.kind === "fold_card_unknown") {
    return "deck-" + (action.card - UNKNOWN_CARD_BASE);
  }
  return action.kind === "buy_card" || action.kind === "fold_card"
      ? String(action.card) : null;
}

// Each face-up card and deck that some legal action names is a button.
function overlayCards(drawn, view, legal, choice, hinted, redraw) {
  const named = new Map();
  for (const action of legal) {
    if (action.kind === "buy_card" || action.kind === "fold_card") {
      const key = String(action.card);
      const kinds = named.get(key) || new Set();
      kinds.add(action.kind);
      named.set(key, kinds);
    }
  }
  [2, 1, 0].forEach((level, row) => {
    const y = 100 + row * 124;
    view.rows[level].forEach((card, i) => {
      if (!card || !named.has(String(card.id))) return;
      const key = String(card.id);
      const buyable = named.get(key).has("buy_card");
      drawn.append(svgButton("rect", {
        x: CARD_X + i * CARD_STEP - 3, y: y - 3, width: CARD_W + 6,
        height: CARD_H + 6, rx: 8, "data-card": key,
        "data-level": card.level,
        class: "pick card-pick" + (buyable ? " buyable" : "") +
               (choice.selected === key ? " selected" : "") +
               (hinted === key ? " hinted" : ""),
        "aria-label": cardLabel(card)}, () => {
          choice.selected = key;
          redraw();
        }));
    });
    const deck = UNKNOWN_CARD_BASE + level + 1;
    if (legal.some(a => a.kind === "fold_card_unknown" && a.card === deck)) {
      const key = "deck-" + (level + 1);
      drawn.append(svgButton("rect", {
        x: 3, y: y - 3, width: CARD_W + 6, height: CARD_H + 6, rx: 8,
        "data-level": level + 1,
        class: "pick deck-pick" + (choice.selected === key
                                   ? " selected" : "") +
               (hinted === key ? " hinted" : ""),
        "aria-label": t("Deck {0}", level + 1)}, () => {
          choice.selected = key;
          redraw();
        }));
    }
  });
}

// The same cards and decks as buttons (shown on narrow screens, where
// the board's are smaller than a finger: hub.css).
function cardList(view, legal, choice, redraw) {
  const list = el("div", {class: "choices card-list"});
  const choose = key => () => {
    choice.selected = key;
    redraw();
  };
  [2, 1, 0].forEach(level => {
    for (const card of view.rows[level]) {
      if (!card || !legal.some(a => a.card === card.id &&
                               (a.kind === "buy_card" ||
                                a.kind === "fold_card"))) {
        continue;
      }
      const key = String(card.id);
      list.append(button({class: "card-button" + (
        choice.selected === key ? " selected" : ""), "data-card": key},
                         [el("span", {class: "dot " + card.bonus}),
                          cardLabel(card)], choose(key)));
    }
    const deck = UNKNOWN_CARD_BASE + level + 1;
    if (legal.some(a => a.kind === "fold_card_unknown" && a.card === deck)) {
      const key = "deck-" + (level + 1);
      list.append(button({class: "card-button" + (
        choice.selected === key ? " selected" : ""),
                          "data-level": level + 1},
                         t("Deck {0}", level + 1), choose(key)));
    }
  });
  return list;
}

// The nobles offered, on the board: a click (or Enter) chooses one.
function overlayNobles(drawn, view, legal, hinted, act) {
  view.nobles.forEach((noble, i) => {
    const action = legal.find(a => a.card === noble.id);
    if (!action) return;
    drawn.append(svgButton("rect", {
      x: CARD_X + i * CARD_STEP - 3, y: 3, width: 90, height: 90, rx: 8,
      "data-noble": noble.id,
      class: "pick noble-pick" + (hinted === "noble-" + noble.id
                                  ? " hinted" : ""),
      "aria-label": t("Noble: {0} points ({1})", noble.points,
                      costText(noble.cost))}, () => act(action)));
  });
}

function cardLabel(card) {
  return t("Level {0} card: {1} bonus, {2} points, costs {3}", card.level,
           gemName(card.bonus), card.points, costText(card.cost) || "0");
}

// Gem buttons that build a pick among the legal actions' gems, and the
// button that plays it once it is one of them.
function gemPicker(actions, choice, id, title, verb, act, redraw, hint) {
  const pick = choice.pick;
  const exact = actions.find(action => sameGems(action, pick)) || null;
  const gems = TOKENS.filter(gem => actions.some(
    action => action.gems.some(([g]) => g === gem)));
  const box = el("div", {class: "gem-picker", id: id + "-picker"},
                 el("h3", {}, title));
  const row = el("div", {class: "choices"});
  for (const gem of gems) {
    const more = Object.assign({}, pick, {[gem]: (pick[gem] || 0) + 1});
    const open = actions.some(action => holds(action, more));
    row.append(button({class: "gem-button " + gem, "data-gem": gem,
                       disabled: !open,
                       "aria-pressed": pick[gem] ? "true" : "false"},
                      [el("span", {class: "dot " + gem}),
                       gemName(gem) + (pick[gem] ? " ×" + pick[gem] : "")],
                      () => {
                        pick[gem] = (pick[gem] || 0) + 1;
                        redraw();
                      }));
  }
  const hinted = isHint(hint, exact) ? " hinted" : "";
  row.append(button({id, disabled: !exact, class: "primary" + hinted},
                    exact ? verb + ": " + gemsText(exact.gems) : verb,
                    () => act(exact)));
  row.append(button({id: id + "-clear", disabled: !pairsOf(pick).length},
                    t("Clear"), () => {
                      choice.pick = {};
                      redraw();
                    }));
  box.append(row);
  return box;
}

// The card or deck chosen: its legal buys (one per payment) and reserve.
function chosenCard(game, legal, act) {
  const key = game.choice.selected;
  const box = el("div", {class: "chosen", id: "chosen"});
  if (key === null) return box;
  if (key.startsWith("deck-")) {
    const card = UNKNOWN_CARD_BASE + Number(key.slice(5));
    const action = legal.find(a => a.kind === "fold_card_unknown" &&
                              a.card === card);
    if (action) {
      box.append(button({id: "reserve", class: "primary" + (
                           isHint(game.hint, action) ? " hinted" : "")},
                        t("Reserve the top card of deck {0}",
                          key.slice(5)), () => act(action)));
    }
    return box;
  }
  const card = findCard(game, key);
  if (card) box.append(el("p", {}, cardLabel(card)));
  for (const action of legal) {
    if (String(action.card) !== key) continue;
    if (action.kind === "buy_card") {
      box.append(button({class: "buy primary" + (
                           isHint(game.hint, action) ? " hinted" : "")},
                        action.gems.length
                            ? t("Buy, paying {0}", gemsText(action.gems))
                            : t("Buy for free"),
                        () => act(action)));
    } else if (action.kind === "fold_card") {
      box.append(button({id: "reserve", class: isHint(game.hint, action)
                         ? "hinted" : null}, t("Reserve"),
                        () => act(action)));
    }
  }
  return box;
}

function findCard(game, key) {
  for (const row of game.view.rows) {
    for (const card of row) {
      if (card && String(card.id) === key) return card;
    }
  }
  return (game.hand || []).find(card => String(card.id) === key) || null;
}

// The player's reserved cards, face up: buttons when one can be bought.
function handList(game, legal, acting, choice, redraw) {
  const hand = game.hand || [];
  const box = el("div", {class: "hand", id: "hand"});
  if (!hand.length) return box;
  box.append(el("h3", {}, t("Your reserved cards")));
  const list = el("div", {class: "choices"});
  for (const card of hand) {
    const key = String(card.id);
    const buyable = acting && legal.some(
      a => a.kind === "buy_card" && String(a.card) === key);
    list.append(button({class: "hand-card" + (buyable ? " buyable" : "") +
                                (choice.selected === key ? " selected" : ""),
                        "data-card": key, disabled: !buyable},
                       [el("span", {class: "dot " + card.bonus}),
                        cardLabel(card)],
                       () => {
                         choice.selected = key;
                         redraw();
                       }));
  }
  box.append(list);
  return box;
}

// A Splendor event's table (view) and the player's reserved cards.
function keepTable(board, message) {
  if (message.view) board.view = message.view;
  if (message.hand) board.hand = message.hand;
}

// A prompt of the player's: discard, or choose a noble.
function prompt(board, message, page) {
  keepTable(board, message);
  board.choice = newChoice();
  page.turn(message.seat, message.legal || null);
}

export const splendor = {
  kind: "splendor",
  name: () => t("Splendor"),
  // Seated as a Unity client's INIT is: no room names.
  namedRooms: false,
  defaultSeat: 0,
  seatsOf: () => 4,
  seatChoices: () => [],
  sizes: () => [2, 3, 4],

  start(message) {
    const board = {view: null, hand: [], choice: newChoice()};
    keepTable(board, message);
    return board;
  },
  update: keepTable,
  played: () => null,
  newTurn(board) {
    board.choice = newChoice();
  },
  hint(board, action) {
    board.choice = hintChoice(action);
  },
  events: {DiscardRequired: prompt, NobleOffered: prompt},
  colourName(board, seat) {
    return t("{0} points", board.view ? board.view.players[seat].points
                                      : 0);
  },
  // What the player is asked now, if not a move.
  phaseText(board, legal) {
    const phase = phaseOf(legal);
    if (phase === "discard") return t("Give back tokens: you may keep 10.");
    if (phase === "noble") return t("Several nobles visit you: choose one.");
    return null;
  },

  draw(page) {
    const {state} = page, board = state.board;
    if (!board.view) return null;
    const nobles = Object.fromEntries(board.view.nobles.map(
      noble => [noble.id, noble]));
    const drawn = drawSplendorPlay({
      view: board.view, hand: board.hand, seats: state.seats,
      legal: state.legal, hint: state.hint, choice: board.choice, nobles},
      action => {
        board.choice = newChoice();
        page.act(action);
      }, page.redraw);
    return {board: drawn.board, panel: drawn.panel};
  },
};
