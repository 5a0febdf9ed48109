// An invite link (#/join/CODE): the game its code belongs to, with a Join button (games.js).
export { renderJoin as render } from './games.js';
