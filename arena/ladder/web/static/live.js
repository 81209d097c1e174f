// The live leaderboard: every few seconds, ask /leaderboard/rows whether the table changed
// (If-None-Match with the stamp it shows: 304 if not), and put the new rows in when it did.
// The rows are the server's own rendering of the page's template, escaped there; nothing a bot
// or an author wrote is ever read as markup here. Without this script the page is the same
// table, as fresh as its last load.
(() => {
  "use strict";
  const body = document.getElementById("standings");
  const note = document.getElementById("live");
  if (!body) return;
  const every = Math.max(1, Number(body.dataset.poll) || 5) * 1000;
  let stamp = `"${body.dataset.stamp}"`;

  async function poll() {
    try {
      const answer = await fetch("/leaderboard/rows", {
        headers: { "If-None-Match": stamp },
        cache: "no-store",
      });
      if (answer.status === 200) {
        const rows = await answer.text();
        stamp = answer.headers.get("ETag") || stamp;
        body.innerHTML = rows;
        body.dataset.stamp = stamp.replace(/^"|"$/g, "");
        note.textContent = `Updated ${new Date().toISOString().slice(11, 19)} UTC; live while this page is open.`;
      }
    } catch (error) {
      note.textContent = "The ladder did not answer; trying again.";
    }
    setTimeout(poll, every);
  }
  setTimeout(poll, every);
})();
