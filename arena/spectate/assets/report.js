// The replay viewer of `arena report`. It reads the compact games embedded by report.py
// (see `compact` there), rebuilds the table turn by turn, and shows one moment at a time.
// Bot names reach the page through textContent only: they are untrusted text, never markup.
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("data").textContent);
  const HEADS = data.bullheads;
  const PLACED = 0, SIXTH = 1, CHOSEN = 2; // how a card was placed, as report.py encodes it
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function plural(count, word) {
    return `${count} ${word}${count === 1 ? "" : "s"}`;
  }

  function bullheadIcon() {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "bh");
    svg.setAttribute("viewBox", "0 0 20 20");
    const use = document.createElementNS(SVG, "use");
    use.setAttribute("href", "#bullhead");
    svg.appendChild(use);
    return svg;
  }

  // A card as printed: its number, and one bullhead for each penalty point, coloured by value.
  function card(number, extra) {
    const heads = HEADS[number];
    const node = el("span", `card h${heads}${extra ? " " + extra : ""}`);
    node.dataset.card = number;
    node.title = `${number}: ${plural(heads, "bullhead")}`;
    node.appendChild(el("span", "num", number));
    const row = el("span", "heads");
    for (let i = 0; i < heads; i++) row.appendChild(bullheadIcon());
    node.appendChild(row);
    return node;
  }

  function botName(bot) {
    const node = el("span", "who");
    node.title = data.bots[bot];
    const swatch = el("i", "swatch");
    swatch.style.background = data.colours[bot];
    node.append(swatch, document.createTextNode(data.bots[bot]));
    return node;
  }

  const sum = (cards) => cards.reduce((total, c) => total + HEADS[c], 0);

  // Every moment of a game: for each round its deal (turn 0), then the state after each turn.
  function unfold(game) {
    const seats = game.seats.length;
    const moments = [];
    let totals = new Array(seats).fill(0);
    game.rounds.forEach((round, r) => {
      const rows = round.rows.map((row) => row.slice());
      // A seat's hand is every card it plays this round.
      const hands = game.seats.map((_, s) => round.turns.map(([cards]) => cards[s]).sort((a, b) => a - b));
      const penalties = new Array(seats).fill(0);
      const snapshot = (turn, cards, events, took) => ({
        round: r, turn, cards, events, took,
        rows: rows.map((row) => row.slice()),
        hands: hands.map((hand) => hand.slice()),
        penalties: penalties.slice(),
        totals: totals.map((t, s) => t + penalties[s]),
      });
      moments.push(snapshot(0, [], [], new Array(seats).fill(0)));
      round.turns.forEach(([cards, moves], t) => {
        const took = new Array(seats).fill(0);
        const events = [];
        cards.forEach((c, s) => hands[s].splice(hands[s].indexOf(c), 1));
        for (const [seat, row, how] of moves) {
          const c = cards[seat];
          let taken = [];
          if (how === PLACED) {
            rows[row].push(c);
          } else {
            taken = rows[row];
            rows[row] = [c];
            took[seat] += sum(taken);
            penalties[seat] += sum(taken);
          }
          events.push({ seat, card: c, row, how, taken });
        }
        moments.push(snapshot(t + 1, cards, events, took));
      });
      totals = totals.map((t, s) => t + round.penalties[s]);
    });
    return moments;
  }

  const state = { game: null, moments: [], at: 0, addressTimer: 0, logBot: -1 };

  function showRows(m) {
    const placed = new Set(m.events.map((e) => e.card));
    const box = $("rows");
    box.replaceChildren();
    m.rows.forEach((row, i) => {
      const line = el("div", "table-row");
      line.dataset.row = i;
      line.appendChild(el("span", "label", `Row ${i + 1}`));
      const cards = el("span", "cards");
      row.forEach((c) => cards.appendChild(card(c, placed.has(c) ? "new" : "")));
      for (let slot = row.length; slot < 5; slot++) cards.appendChild(el("span", "slot"));
      cards.appendChild(el("span", "slot sixth", "6th takes"));
      line.appendChild(cards);
      line.appendChild(el("span", "total", plural(sum(row), "bullhead")));
      box.appendChild(line);
    });
  }

  // The decisions the fallback made at a moment: [round, turn (0: the draft), seat, decision,
  // kind, message, quiet] from report.py, for this round and turn.
  function marksAt(m) {
    return (state.game.marks || []).filter(([r, t]) => r === m.round && t === m.turn);
  }

  function faultMark(mark) {
    const [, , , , kind, message, quiet] = mark;
    const badge = el("span", "fault-mark", `fallback · ${kind}`);
    badge.dataset.kind = kind;
    badge.title = quiet ? `not asked: ${message}` : message;
    return badge;
  }

  function markNote(mark) {
    const [, , seat, decision, kind, message, quiet] = mark;
    const what = { card: "card", row: "row", draft: "draft pick" }[decision] || decision;
    const item = el("li", "fallback-note");
    item.appendChild(botName(state.game.seats[seat]));
    const why = quiet ? `${kind}, ${message}` : `${kind}: ${message}`;
    item.appendChild(el("span", "", `the fallback chose this ${what} (${why})`));
    return item;
  }

  function timeOf(m, seat, decision) {
    const found = (state.game.times || []).find(
      ([r, t, s, d]) => r === m.round && t === m.turn && s === seat && d === decision);
    if (!found) return null;
    const [, , , , ms, cpu, bank] = found;
    const badge = el("span", "think", `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`);
    badge.title = `answered in ${ms} ms` + (cpu === null ? "" : `, ${cpu} ms of CPU`) +
      (bank ? `, ${bank} ms of time bank` : "");
    return badge;
  }

  function showTurn(m) {
    const seats = state.game.seats;
    const revealed = $("revealed");
    const events = $("events");
    revealed.replaceChildren();
    events.replaceChildren();
    const marks = marksAt(m);
    if (m.turn === 0) {
      const round = state.game.rounds[m.round];
      let text = "The rows are dealt; every bot holds 10 cards. Step forward to reveal turn 1.";
      if (round.picks) {
        const first = data.bots[seats[round.first]];
        text = `The cards were drafted (${first} first), leaving the rows. Step forward to reveal turn 1.`;
      }
      revealed.appendChild(el("p", "quiet", text));
      for (const mark of marks) events.appendChild(markNote(mark));
      return;
    }
    m.cards.forEach((c, s) => {
      const chip = el("div", "reveal");
      chip.dataset.seat = s;
      chip.appendChild(botName(seats[s]));
      chip.appendChild(card(c));
      if (m.took[s]) chip.appendChild(el("span", "took", `+${m.took[s]}`));
      const think = timeOf(m, s, "card");
      if (think) chip.appendChild(think);
      const mark = marks.find(([, , seat, decision]) => seat === s && decision === "card");
      if (mark) {
        chip.classList.add("fallback");
        chip.appendChild(faultMark(mark));
      }
      revealed.appendChild(chip);
    });
    for (const e of m.events) {
      const item = el("li", e.how === PLACED ? "" : "take");
      item.appendChild(card(e.card, "small"));
      item.appendChild(botName(seats[e.seat]));
      if (e.how === PLACED) {
        item.appendChild(el("span", "", `goes to row ${e.row + 1}`));
      } else {
        const why = e.how === SIXTH
          ? `is the 6th card of row ${e.row + 1}: takes`
          : `is lower than every row: chooses row ${e.row + 1} and takes`;
        item.appendChild(el("span", "", why));
        const pile = el("span", "pile");
        e.taken.forEach((c) => pile.appendChild(card(c, "small")));
        item.appendChild(pile);
        item.appendChild(el("b", "", `= ${plural(sum(e.taken), "bullhead")}`));
        const mark = e.how === CHOSEN &&
          marks.find(([, , seat, decision]) => seat === e.seat && decision === "row");
        if (mark) item.appendChild(faultMark(mark));
        const think = e.how === CHOSEN && timeOf(m, e.seat, "row");
        if (think) item.appendChild(think);
      }
      events.appendChild(item);
    }
    for (const mark of marks) events.appendChild(markNote(mark));
  }

  function showScores(m) {
    const game = state.game;
    const last = state.at === state.moments.length - 1;
    const body = $("scores").tBodies[0];
    body.replaceChildren();
    game.seats.forEach((bot, s) => {
      const tr = el("tr");
      if (last && game.winners.includes(s)) tr.className = "winner";
      const name = el("td");
      name.appendChild(botName(bot));
      tr.appendChild(name);
      tr.appendChild(el("td", "num took", m.took[s] ? `+${m.took[s]}` : ""));
      tr.appendChild(el("td", "num", m.penalties[s]));
      tr.appendChild(el("td", "num total", m.totals[s]));
      body.appendChild(tr);
    });
    const hands = $("hands");
    hands.replaceChildren();
    game.seats.forEach((bot, s) => {
      const line = el("div", "hand");
      line.appendChild(botName(bot));
      const cards = el("span", "cards");
      m.hands[s].forEach((c) => cards.appendChild(card(c, "small")));
      line.appendChild(cards);
      hands.appendChild(line);
    });
  }

  // One bot's log at a moment: what it wrote while deciding the turn just revealed (at a round's
  // deal: in its draft, and in round 1 before the game's first decision). A bot's own text, so
  // it only ever reaches textContent.
  function logAt(m, lines) {
    return lines.filter(([round, turn]) => m.turn === 0
      ? (round === m.round && turn === null) || (round === null && m.round === 0)
      : round === m.round && turn === m.turn - 1);
  }

  function showLog(m) {
    const box = $("log");
    box.replaceChildren();
    const seat = $("log-bot").value;
    const lines = (state.game.logs || {})[seat] || [];
    const here = logAt(m, lines);
    for (const [, , arena, text] of here) box.appendChild(el("li", arena ? "arena" : "", text));
    if (!here.length) {
      box.appendChild(el("li", "quiet", lines.length ? "nothing written here" : "no lines in this game"));
    }
    const more = (state.game.logs_more || {})[seat];
    if (more) {
      const bot = data.bots[state.game.seats[Number(seat)]];
      box.appendChild(el("li", "quiet", `${plural(more, "more line")} in this game: arena logs ${bot} --game ${state.game.id}`));
    }
  }

  // The bots of a game to choose a log from; the bot chosen stays chosen from game to game.
  function fillLogBots(game) {
    const select = $("log-bot");
    select.replaceChildren();
    game.seats.forEach((bot, s) => {
      const option = el("option", "", data.bots[bot]);
      option.value = s;
      select.appendChild(option);
    });
    const kept = game.seats.indexOf(state.logBot);
    const written = game.seats.findIndex((_, s) => (game.logs || {})[s]);
    select.value = String(kept >= 0 ? kept : Math.max(written, 0));
  }

  function show(at) {
    const moments = state.moments;
    state.at = Math.max(0, Math.min(at, moments.length - 1));
    const m = moments[state.at];
    const game = state.game;
    const rounds = game.rounds.length;
    const turns = game.rounds[m.round].turns.length;
    let where = `Round ${m.round + 1} of ${rounds} · ` +
      (m.turn === 0 ? "the deal" : `turn ${m.turn} of ${turns}`);
    if (state.at === moments.length - 1) {
      const won = game.winners.map((s) => data.bots[game.seats[s]]).join(" and ");
      where += ` · game over, won by ${won}`;
    }
    $("position").textContent = where;
    $("position").dataset.round = m.round + 1;
    $("position").dataset.turn = m.turn;
    showRows(m);
    showTurn(m);
    showScores(m);
    showLog(m);
    $("first").disabled = $("prev").disabled = $("prev-round").disabled = state.at === 0;
    $("last").disabled = $("next").disabled = $("next-round").disabled =
      state.at === moments.length - 1;
    // The address names the moment, to share it; set once the stepping pauses, because browsers
    // throttle (and warn about) a burst of history updates from a held-down arrow key.
    clearTimeout(state.addressTimer);
    state.addressTimer = setTimeout(() => {
      const spot = `${m.round + 1}.${m.turn}`;
      history.replaceState(null, "", `#game=${encodeURIComponent(game.id)}&turn=${spot}`);
    }, 300);
  }

  function momentOf(round, turn) {
    const i = state.moments.findIndex((m) => m.round === round - 1 && m.turn === turn);
    return i < 0 ? 0 : i;
  }

  function stepRound(direction) {
    const m = state.moments[state.at];
    if (direction < 0) {
      // Back to this round's deal, or to the previous round's when already there.
      show(momentOf(m.turn === 0 ? m.round : m.round + 1, 0));
    } else {
      const next = momentOf(m.round + 2, 0);
      show(next === 0 ? state.moments.length - 1 : next);
    }
  }

  const byId = new Map(data.games.map((g) => [g.id, g]));

  function label(game) {
    const scores = game.seats.map((b, s) => `${data.bots[b]} ${game.totals[s]}`).join(" · ");
    return `#${game.n} ${game.id} — ${scores}`;
  }

  function fillGames(filter) {
    const select = $("game-select");
    select.replaceChildren();
    for (const game of data.games) {
      if (filter !== "" && !game.seats.includes(Number(filter))) continue;
      const option = el("option", "", label(game));
      option.value = game.id;
      select.appendChild(option);
    }
    if (state.game) select.value = state.game.id;
  }

  function openGame(id, round, turn) {
    const game = byId.get(id);
    if (!game) return false;
    if (state.game !== game) {
      state.game = game;
      state.moments = unfold(game);
      fillLogBots(game);
    }
    $("viewer").hidden = false;
    $("game-select").value = id;
    const names = game.seats.map((b) => data.bots[b]).join(", ");
    const faults = game.faults.length ? ` · ${plural(game.faults.length, "fault")}` : "";
    $("game-title").textContent = `Game ${game.id} (#${game.n}): ${names}${faults}`;
    show(round ? momentOf(round, turn || 0) : 0);
    return true;
  }

  function openFromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    let id = params.get("game");
    if (!id) return false;
    if (/^\d+$/.test(id) && !byId.has(id)) {
      // #game=N: the game numbered N in the listing (`arena replay` numbers them so too).
      const game = data.games.find((g) => g.n === Number(id));
      if (!game) return false;
      id = game.id;
    }
    const [round, turn] = (params.get("turn") || "").split(".").map(Number);
    const opened = openGame(id, round || 0, turn || 0);
    if (opened) $("replay").scrollIntoView();
    return opened;
  }

  $("log-bot").addEventListener("change", (event) => {
    state.logBot = state.game.seats[Number(event.target.value)];
    showLog(state.moments[state.at]);
    event.target.blur(); // so that the arrow keys step through the game again
  });

  const filter = $("bot-filter");
  data.bots.forEach((name, b) => {
    const option = el("option", "", name);
    option.value = b;
    filter.appendChild(option);
  });
  filter.addEventListener("change", () => {
    fillGames(filter.value);
    const first = $("game-select").options[0];
    if (first) openGame(first.value);
    filter.blur();
  });
  $("game-select").addEventListener("change", (event) => {
    openGame(event.target.value);
    event.target.blur(); // so that the arrow keys step through the game, not the list
  });
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(state.at - 1));
  $("next").addEventListener("click", () => show(state.at + 1));
  $("last").addEventListener("click", () => show(state.moments.length - 1));
  $("prev-round").addEventListener("click", () => stepRound(-1));
  $("next-round").addEventListener("click", () => stepRound(1));
  document.addEventListener("keydown", (event) => {
    if (!state.game || event.altKey || event.ctrlKey || event.metaKey) return;
    if (/^(SELECT|INPUT|TEXTAREA)$/.test(event.target.tagName)) return;
    // The arrows always step; the keys that also scroll the page only while the viewer shows.
    const box = $("viewer").getBoundingClientRect();
    const inView = box.top < window.innerHeight && box.bottom > 0;
    if (!inView && !event.key.startsWith("Arrow")) return;
    const moves = {
      ArrowRight: () => show(state.at + 1),
      ArrowLeft: () => show(state.at - 1),
      PageDown: () => stepRound(1),
      PageUp: () => stepRound(-1),
      Home: () => show(0),
      End: () => show(state.moments.length - 1),
    };
    const move = moves[event.key];
    if (move) {
      move();
      event.preventDefault();
    }
  });
  window.addEventListener("hashchange", openFromHash);
  // A link to a game (notable takes, faults) opens it even when the address already shows it.
  document.addEventListener("click", (event) => {
    const link = event.target.closest('a[href^="#game="]');
    if (!link) return;
    event.preventDefault();
    history.replaceState(null, "", link.getAttribute("href"));
    openFromHash();
  });

  fillGames("");
  if (!openFromHash() && data.games.length) openGame(data.games[0].id);
})();
