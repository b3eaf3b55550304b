// The play page's registry: each game kind's module (playgomoku.js,
// playcheckers.js, playsplendor.js), in the order the lobby offers them.
// The page (play.js) and its lobby (playlobby.js) ask the kind's module
// whatever differs from game to game; nothing else names a game.
//
// A module has: kind, name(), namedRooms, defaultSeat, seatsOf(room),
// seatChoices(players), sizes(welcome) (player counts, for games of a
// chosen size); start(GameStarted) -> its board state; played(board,
// ActionPlayed, page) -> the seat to move next, or null; draw(page) ->
// {board, panel}; colourName(board, seat); and, if it has them,
// legalOf(board) (legal moves the hub does not list), update(board,
// event), newTurn(board), hint(board, action), phaseText(board, legal)
// and events (handlers of its own table events).
import { checkers } from "./playcheckers.js";
import { gomoku } from "./playgomoku.js";
import { splendor } from "./playsplendor.js";

export const GAMES = {gomoku, checkers, splendor};
export const KINDS = Object.keys(GAMES);
