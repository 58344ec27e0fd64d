// The History window's page. It talks to the app only through window.ipc.postMessage with
// the commands of src/app/window/ipc.rs, and the app answers by calling window.app.reply.
// Text is always set with textContent, never parsed as HTML.
"use strict";
(function () {
  const L = window.LABELS;
  const $ = (id) => document.getElementById(id);
  const send = (message) => window.ipc.postMessage(JSON.stringify(message));
  let query = "";
  let painted = false;
  let entries = [];

  function when(ms) {
    try {
      return new Date(ms).toLocaleString(L.lang, { dateStyle: "medium", timeStyle: "short" });
    } catch (e) {
      return new Date(ms).toISOString();
    }
  }

  function facts(entry) {
    const parts = [];
    if (entry.model) parts.push(entry.model);
    if (entry.device) parts.push(entry.device);
    if (entry.language) parts.push(entry.language);
    if (entry.duration_ms > 0) parts.push((entry.duration_ms / 1000).toFixed(1) + " s");
    if (entry.key_up_to_pasted_ms != null) {
      parts.push(L.key_up_to_pasted + " " + entry.key_up_to_pasted_ms + " ms");
    }
    return parts.join(" · ");
  }

  function status(text) {
    const line = $("status");
    line.textContent = text || "";
    line.hidden = !text;
  }

  function row(entry) {
    const node = $("row").content.firstElementChild.cloneNode(true);
    node.dataset.id = String(entry.id);
    const time = node.querySelector("time");
    time.textContent = when(entry.at_ms);
    time.dateTime = new Date(entry.at_ms).toISOString();
    node.querySelector(".facts").textContent = facts(entry);
    node.querySelector(".text").textContent = entry.text;
    const star = node.querySelector(".star");
    const setStar = (on) => {
      star.classList.toggle("on", on);
      star.textContent = on ? "★" : "☆";
      star.title = on ? L.unstar : L.star;
      star.setAttribute("aria-label", star.title);
    };
    setStar(entry.starred);
    star.addEventListener("click", () => send({ cmd: "star", id: entry.id, starred: !star.classList.contains("on") }));
    const copy = node.querySelector(".copy");
    copy.textContent = L.copy;
    copy.addEventListener("click", () => send({ cmd: "copy", id: entry.id }));
    const del = node.querySelector(".delete");
    del.textContent = L.delete;
    let disarm = null;
    del.addEventListener("click", () => {
      if (del.classList.contains("armed")) {
        clearTimeout(disarm);
        send({ cmd: "delete", id: entry.id });
        return;
      }
      del.classList.add("armed");
      del.textContent = L.delete_confirm;
      disarm = setTimeout(() => { del.classList.remove("armed"); del.textContent = L.delete; }, 3000);
    });
    node.setStar = setStar;
    return node;
  }

  function render() {
    const list = $("list");
    list.replaceChildren();
    if (entries.length === 0) {
      const empty = document.createElement("p");
      empty.className = "empty";
      empty.textContent = query.trim() ? L.no_match : L.empty;
      list.appendChild(empty);
    } else {
      const fragment = document.createDocumentFragment();
      for (const entry of entries) fragment.appendChild(row(entry));
      list.appendChild(fragment);
    }
    $("count").textContent = entries.length + " " + (entries.length === 1 ? L.entries_one : L.entries_many);
  }

  function byId(id) {
    return document.querySelector('.entry[data-id="' + Number(id) + '"]');
  }

  function flash(button, text) {
    const before = button.textContent;
    button.textContent = text;
    setTimeout(() => { button.textContent = before; }, 1200);
  }

  window.app = {
    reply(reply) {
      switch (reply.kind) {
        case "entries":
          if (reply.query !== query) return; // an answer to an older query
          entries = reply.entries;
          status("");
          render();
          if (!painted) {
            painted = true;
            requestAnimationFrame(() => send({ cmd: "painted" }));
          }
          break;
        case "copied": {
          const node = byId(reply.id);
          if (node) flash(node.querySelector(".copy"), L.copied);
          break;
        }
        case "starred": {
          const node = byId(reply.id);
          if (node) node.setStar(reply.starred);
          for (const entry of entries) if (entry.id === reply.id) entry.starred = reply.starred;
          break;
        }
        case "deleted":
        case "missing":
          entries = entries.filter((entry) => entry.id !== reply.id);
          render();
          if (reply.kind === "missing") status(L.missing);
          break;
        case "failed":
          status(L.failed + " " + reply.detail);
          if (!painted) {
            painted = true;
            requestAnimationFrame(() => send({ cmd: "painted" }));
          }
          break;
      }
    },
  };

  document.title = L.title;
  const search = $("search");
  search.placeholder = L.search;
  search.setAttribute("aria-label", L.search);
  search.addEventListener("input", () => {
    query = search.value;
    send({ cmd: "search", query: query });
  });
  send({ cmd: "hello" });
})();
