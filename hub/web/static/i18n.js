// The play page's strings: one catalog per language, chosen from ?lang=,
// then the browser's languages (Accept-Language), English by default.
// The keys are the English text; {0}, {1}... are filled in by t().
// (To become gettext catalogs, hub/locale/LANG/LC_MESSAGES/web.po.)

const CATALOGS = {
  zh: {
    "Play": "对弈",
    "Your name": "你的名字",
    "Enter": "进入",
    "Connecting…": "正在连接…",
    "Disconnected: reconnecting…": "连接已断开：正在重连…",
    "Hello, {0}.": "你好，{0}。",
    "Bot level": "电脑等级",
    "Gomoku against a bot": "五子棋：对战电脑",
    "Start": "开始",
    "Hint": "提示",
    "Resign": "认输",
    "Leave": "离开",
    "Waiting for the game to start.": "等待开局。",
    "Your turn.": "轮到你了。",
    "{0} to move.": "轮到{0}。",
    "You won!": "你赢了！",
    "You lost.": "你输了。",
    "Draw.": "和棋。",
    "Game over ({0}).": "对局结束（{0}）。",
    "Room {0}": "房间 {0}",
    "black": "黑棋",
    "white": "白棋",
    "bot": "电脑",
    "you": "你",
    "Error: {0}": "错误：{0}",
    "gomoku board": "五子棋棋盘",
    "Play at {0}": "落子于 {0}",
  },
};

const LANGUAGES = ["en", "zh"];

function chosen() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (LANGUAGES.includes(asked)) return asked;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = tag.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export const language = chosen();

export function t(text, ...args) {
  const catalog = CATALOGS[language] || {};
  const translated = catalog[text] || text;
  return translated.replace(/\{(\d+)\}/g, (_, i) => String(args[i]));
}

export function otherLanguages() {
  return LANGUAGES.filter(l => l !== language);
}
