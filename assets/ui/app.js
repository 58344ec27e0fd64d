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
  const latestAgain = new Map(); // entry id → its newest re-transcription { id, model, diff }
  let playing = null; // { id, timer }

  function when(ms) {
    try {
      return new Date(ms).toLocaleString(L.lang, { dateStyle: "medium", timeStyle: "short" });
    } catch (e) {
      return new Date(ms).toISOString();
    }
  }

  // The line of facts under an entry's time: "model · device · language · → app [mode] · …",
  // the per-app mode the dictation used (when a rule applied) a tag right after the app.
  function facts(line, entry) {
    const parts = [];
    if (entry.model) parts.push(entry.model);
    if (entry.device) parts.push(entry.device);
    if (entry.language) parts.push(entry.language);
    const modeAfter = parts.length; // the app's part, or where it would be
    if (entry.app) parts.push("→ " + entry.app);
    if (entry.duration_ms > 0) parts.push((entry.duration_ms / 1000).toFixed(1) + " s");
    if (entry.key_up_to_pasted_ms != null) {
      parts.push(L.key_up_to_pasted + " " + entry.key_up_to_pasted_ms + " ms");
    }
    const before = parts.slice(0, entry.app ? modeAfter + 1 : modeAfter).join(" · ");
    const after = parts.slice(entry.app ? modeAfter + 1 : modeAfter).join(" · ");
    line.replaceChildren();
    if (!entry.mode) {
      line.textContent = parts.join(" · ");
      return;
    }
    const tag = document.createElement("span");
    tag.className = "badge mode";
    tag.textContent = entry.mode;
    if (before) line.append(before + " ");
    line.append(tag);
    if (after) line.append(" · " + after);
  }

  function status(text, kind) {
    const line = $("status");
    line.textContent = text || "";
    line.hidden = !text;
    line.className = kind || "";
  }

  function row(entry) {
    const node = $("row").content.firstElementChild.cloneNode(true);
    node.dataset.id = String(entry.id);
    const time = node.querySelector("time");
    time.textContent = when(entry.at_ms);
    time.dateTime = new Date(entry.at_ms).toISOString();
    facts(node.querySelector(".facts"), entry);
    node.querySelector(".text").textContent = entry.text;
    if (entry.raw_text && entry.raw_text.trim() !== entry.text.trim()) {
      const heard = node.querySelector(".heard");
      heard.textContent = L.heard + " " + entry.raw_text;
      heard.hidden = false;
    }
    const play = node.querySelector(".play");
    play.textContent = playing && playing.id === entry.id ? L.stop : L.play;
    play.disabled = !entry.recording;
    if (!entry.recording) play.title = L.no_audio;
    play.addEventListener("click", () => {
      if (playing && playing.id === entry.id) send({ cmd: "stop" });
      else send({ cmd: "play", id: entry.id });
    });
    const again = node.querySelector(".retranscribe");
    again.textContent = L.retranscribe;
    again.disabled = !entry.recording || !$("model").value;
    again.addEventListener("click", () => {
      send({ cmd: "retranscribe", id: entry.id, model: $("model").value });
    });
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
      // Each entry's newest re-transcription, as when it was made (also after a reopen).
      for (const entry of entries) {
        const made = latestAgain.get(entry.id);
        if (made) showAgain(entry.id, made.model, diffWords(made.diff));
      }
    }
    $("count").textContent = entries.length + " " + (entries.length === 1 ? L.entries_one : L.entries_many);
  }

  function byId(id) {
    return document.querySelector('.entry[data-id="' + Number(id) + '"]');
  }

  function stopped() {
    if (!playing) return;
    clearTimeout(playing.timer);
    const node = byId(playing.id);
    playing = null;
    if (node) node.querySelector(".play").textContent = L.play;
  }

  function showAgain(id, model, parts) {
    const node = byId(id);
    if (!node) return;
    const box = node.querySelector(".again");
    box.replaceChildren();
    const label = document.createElement("span");
    label.className = "model";
    label.textContent = L.retranscribed + " " + model + ": ";
    box.appendChild(label);
    for (const part of parts) box.appendChild(part);
    box.hidden = false;
  }

  function diffWords(diff) {
    const parts = [];
    for (const word of diff) {
      const span = document.createElement(word.change === "added" ? "ins" : word.change === "removed" ? "del" : "span");
      span.textContent = word.text;
      parts.push(span, document.createTextNode(" "));
    }
    return parts;
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
          for (const made of reply.again) latestAgain.set(made.id, made);
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
        case "playing": {
          stopped();
          const node = byId(reply.id);
          if (node) node.querySelector(".play").textContent = L.stop;
          playing = { id: reply.id, timer: setTimeout(stopped, reply.seconds * 1000 + 300) };
          break;
        }
        case "stopped":
          stopped();
          break;
        case "no_audio": {
          const node = byId(reply.id);
          if (node) node.querySelector(".play").disabled = true;
          status(L.no_audio);
          break;
        }
        case "models": {
          const select = $("model");
          select.replaceChildren();
          for (const name of reply.names) {
            const option = document.createElement("option");
            option.value = name;
            option.textContent = name;
            select.appendChild(option);
          }
          const other = reply.names.find((name) => name !== reply.current);
          if (other) select.value = other;
          $("model-label").hidden = reply.names.length === 0;
          render();
          break;
        }
        case "retranscribing":
          showAgain(reply.id, reply.model, [document.createTextNode(L.retranscribing)]);
          break;
        case "retranscribed": {
          latestAgain.set(reply.id, { id: reply.id, model: reply.model, diff: reply.diff });
          showAgain(reply.id, reply.model, diffWords(reply.diff));
          break;
        }
        case "transcriptions":
          break;
        case "exported":
          status(L.exported + " " + reply.path, "done");
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
  $("model-text").textContent = L.retranscribe_with;
  $("model-label").hidden = true;
  for (const [id, format, label] of [["export-csv", "csv", L.export_csv], ["export-json", "json", L.export_json]]) {
    const button = $(id);
    button.textContent = label;
    button.addEventListener("click", () => send({ cmd: "export", format: format }));
  }
  send({ cmd: "hello" });
  send({ cmd: "models" });
})();
