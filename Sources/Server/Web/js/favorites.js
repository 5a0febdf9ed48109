// The account's favorites: its first watchlist (created as "Favorites" on the first star).
import * as api from './api.js';

const base = (accountId) => `/accounts/${api.enc(accountId)}/watchlists`;

/** The favorites watchlist ({id, name, items: [{symbol, name, price, change, change_percent}]}) or null. */
export async function load(accountId) {
  const lists = await api.get(base(accountId));
  return lists.find((w) => w.name === 'Favorites') ?? lists[0] ?? null;
}

export async function add(accountId, symbol) {
  const list = await load(accountId);
  if (!list) return api.post(base(accountId), { name: 'Favorites', symbols: [symbol] });
  return api.post(`${base(accountId)}/${api.enc(list.id)}/symbols`, { symbol });
}

export async function remove(accountId, listId, symbol) {
  return api.del(`${base(accountId)}/${api.enc(listId)}/symbols/${api.enc(symbol)}`);
}

export async function move(accountId, listId, symbol, to) {
  return api.post(`${base(accountId)}/${api.enc(listId)}/move`, { symbol, to });
}

export const contains = (list, symbol) => !!list?.items?.some((i) => i.symbol === symbol);
