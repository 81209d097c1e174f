#!/usr/bin/env node
// A 6 nimmt! bot in JavaScript, over gRPC: the arena's protocol with nothing in between.
//
// It loads the protocol from proto/sixnimmt/v1/arena.proto at run time (no generated code, no
// copy), connects to ARENA_ADDRESS, says hello with ARENA_TOKEN, answers every request and exits
// when the arena closes the stream. It plays like sample_bots/python/heuristic_bot.py: the card
// least likely to be a row's sixth, the cheapest row when it must take one.
//
//   npm ci                               # once, in this folder
//   arena run --bot node=sample_bots/node/bot.js --bot sample_bots/python/random_bot.py

"use strict";

const path = require("node:path");

const PROTO = path.join(__dirname, "..", "..", "proto", "sixnimmt", "v1", "arena.proto");
const PROTOCOL_VERSION = 1;
const VERSION = require("./package.json").version;

// ---------------------------------------------------------------------------------------------
// The game: pure functions of a request's view (field names as in arena.proto).
// ---------------------------------------------------------------------------------------------

/** Bullheads (penalty points) of one card. */
function bullheads(card) {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

/** Bullheads of a list of cards. */
function penalty(cards) {
  return cards.reduce((sum, card) => sum + bullheads(card), 0);
}

/** The row a card joins: the one whose end is the highest below it; -1 if it is below all. */
function rowFor(rows, card) {
  let best = -1;
  rows.forEach((row, index) => {
    const end = row.cards[row.cards.length - 1];
    if (end < card && (best < 0 || end > rows[best].cards[rows[best].cards.length - 1])) {
      best = index;
    }
  });
  return best;
}

/** The row with the fewest bullheads, the lowest index on ties (what the arena's fallback takes). */
function cheapestRow(rows) {
  let best = 0;
  rows.forEach((row, index) => {
    if (penalty(row.cards) < penalty(rows[best].cards)) best = index;
  });
  return best;
}

/** How many cards are in play: all 104, or 10 per player + 4 in the professional variants. */
function deckSize(settings) {
  return settings.variant === "VARIANT_STANDARD" ? 104 : 10 * settings.players + 4;
}

/**
 * Cards that may still be in the other players' hands: not in its own, not on the rows as they
 * are or as they started the round (a starting card taken since is on no row), not played.
 */
function unseen(view) {
  const seen = new Set(view.hand);
  for (const row of view.rows) row.cards.forEach((card) => seen.add(card));
  for (const row of view.start_rows) row.cards.forEach((card) => seen.add(card));
  for (const turn of view.played) turn.cards.forEach((card) => seen.add(card));
  const cards = [];
  for (let card = 1; card <= deckSize(view.settings); card++) if (!seen.has(card)) cards.push(card);
  return cards;
}

/** P(at least `needed` successes in `tries` tries), each with probability `p`. */
function chanceAtLeast(needed, tries, p) {
  let total = 0;
  for (let k = needed; k <= tries; k++) total += binomial(tries, k) * p ** k * (1 - p) ** (tries - k);
  return total;
}

function binomial(n, k) {
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/**
 * What playing `card` is expected to cost, and how far it lands from its row end: a card below
 * every row takes the cheapest row; otherwise the risk is that enough of the other players'
 * unseen cards fall between the row end and the card to make it the sixth.
 */
function cost(view, card, hidden) {
  const row = rowFor(view.rows, card);
  if (row < 0) return [penalty(view.rows[cheapestRow(view.rows)].cards) + 0.5, 0];
  const cards = view.rows[row].cards;
  const end = cards[cards.length - 1];
  const gap = hidden.filter((c) => end < c && c < card).length;
  const p = hidden.length ? Math.min(1, gap / hidden.length) : 0;
  const needed = 5 - cards.length;
  const risk = needed === 0 ? 1 : chanceAtLeast(needed, view.settings.players - 1, p);
  return [risk * penalty(cards) + risk, gap];
}

/** The card to play: the lowest expected cost, then the closest to its row end. */
function chooseCard(view) {
  const hidden = unseen(view);
  let best = null;
  for (const card of view.hand) {
    const score = cost(view, card, hidden);
    if (best === null || score[0] < best.score[0] || (score[0] === best.score[0] && score[1] < best.score[1])) {
      best = { card, score };
    }
  }
  return best.card;
}

/** The draft card: the fewest bullheads, then the one nearest the middle of the deck. */
function chooseDraft(view) {
  const middle = (deckSize(view.settings) + 1) / 2;
  const key = (card) => [bullheads(card), Math.abs(card - middle)];
  return view.table.reduce((best, card) => {
    const [a, b] = [key(card), key(best)];
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]) ? card : best;
  });
}

/** The Answer to one Request: request_id echoed back, the choice its decision asks for. */
function answer(request) {
  const view = request.view;
  switch (request.decision) {
    case "DECISION_CARD":
      return { request_id: request.request_id, card: chooseCard(view) };
    case "DECISION_ROW":
      return { request_id: request.request_id, row: cheapestRow(view.rows) };
    case "DECISION_DRAFT":
      return { request_id: request.request_id, card: chooseDraft(view) };
    default:
      throw new Error(`unknown decision ${request.decision}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The connection.
// ---------------------------------------------------------------------------------------------

function main() {
  const address = process.env.ARENA_ADDRESS;
  const token = process.env.ARENA_TOKEN;
  if (!address || !token) {
    console.error("no arena to connect to: set ARENA_ADDRESS and ARENA_TOKEN (the arena does so for bots it starts)");
    process.exit(2);
  }
  const grpc = require("@grpc/grpc-js");
  const protoLoader = require("@grpc/proto-loader");
  // keepCase: field names as in the .proto; longs: String keeps the uint64 request_id exact;
  // defaults: an empty list or a 0 is present rather than missing; oneofs: `kind` names the
  // message an ArenaMessage holds.
  const definition = protoLoader.loadSync(PROTO, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const { Arena } = grpc.loadPackageDefinition(definition).sixnimmt.v1;
  const client = new Arena(address, grpc.credentials.createInsecure());
  const call = client.Play();
  // skip_events: this bot keeps no state (every request carries its whole view), so the arena
  // sends it requests and fault notices only.
  call.write({
    hello: { token, name: "node-heuristic", version: VERSION, protocol_version: PROTOCOL_VERSION, skip_events: true },
  });

  call.on("data", (message) => {
    switch (message.kind) {
      case "request":
        try {
          call.write({ answer: answer(message.request) });
        } catch (error) {
          // A bug here costs one fault (the fallback decides); the bot serves the other requests.
          console.error(`no answer to request ${message.request.request_id}:`, error);
        }
        break;
      case "fault":
        console.error(`arena: fault in game ${message.fault.game_id}: ${message.fault.kind}: ${message.fault.message}`);
        break;
      default:
        // The welcome, and kinds a newer arena may add (no events come: it asked for none).
        break;
    }
  });
  // The arena closed the stream (status OK): no more games. Close our side; Node then exits.
  call.on("end", () => {
    call.end();
    client.close();
  });
  call.on("error", (error) => {
    console.error(`the arena ended the connection: ${grpc.status[error.code]}: ${error.details}`);
    process.exitCode = 1;
    client.close();
  });
}

module.exports = { answer, bullheads, cheapestRow, chooseCard, chooseDraft, rowFor };

if (require.main === module) main();
