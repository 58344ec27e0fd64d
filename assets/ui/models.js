// The Models page: the catalogue and the installed models (sizes, memory, languages, what each
// is good for), the one in use and the one suggested for this computer; Download with progress
// and Cancel, Verify, Remove (two clicks; never the model in use) and Use. It talks to the app
// only through window.ipc.postMessage with the commands of src/app/window/ipc.rs
// ("model_list", "download", "cancel_download", "verify", "remove_model", "use_model"); the
// app's answers for this page come through window.app.reply, which this file wraps. Text is
// set with textContent, never parsed as HTML.
"use strict";
(function () {
  const L = window.MODELS_LABELS;
  const $ = (id) => document.getElementById(id);
  const send = (message) => window.ipc.postMessage(JSON.stringify(message));
  let models = [];
  let downloading = null; // { model, stage, percent }
  let verifying = null; // a model's name
  let focusList = false; // focus the first button once the list is shown
  let folder = "";

  function el(tag, props, children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children || []) node.appendChild(child);
    return node;
  }

  function status(text, kind) {
    const line = $("models-status");
    line.textContent = text || "";
    line.hidden = !text;
    line.className = kind || "";
  }

  function stageText(stage) {
    return stage === "verifying" ? L.verifying : stage === "loading" ? L.loading : L.downloading;
  }

  function button(model, action, text, onClick, disabled) {
    const b = el("button", { type: "button", textContent: text, disabled: !!disabled });
    b.dataset.model = model.name;
    b.dataset.action = action;
    b.addEventListener("click", onClick);
    return b;
  }

  function progressLine(name) {
    const bar = el("progress", { max: 100, value: 0 });
    const text = el("span", { className: "progress-text" });
    const line = el("div", { className: "progress" }, [bar, text]);
    line.dataset.model = name;
    return line;
  }

  // A download's stage and percent; a verification (percent null) has no percent to show.
  function showProgress(model, stage, percent) {
    const line = document.querySelector('#models .progress[data-model="' + CSS.escape(model) + '"]');
    if (!line) return;
    line.hidden = false;
    const bar = line.querySelector("progress");
    if (percent == null) bar.removeAttribute("value");
    else bar.value = percent;
    line.querySelector(".progress-text").textContent = stageText(stage) + (percent == null ? "…" : " " + percent + " %");
  }

  function card(model) {
    const badges = [];
    if (model.current) badges.push(el("span", { className: "badge current", textContent: L.in_use }));
    if (model.installed && !model.current) badges.push(el("span", { className: "badge", textContent: L.installed }));
    if (model.suggested) badges.push(el("span", { className: "badge suggested", textContent: L.suggested, title: L.suggested_hint }));
    const facts = [];
    if (model.size) facts.push(L.size + " " + model.size);
    if (model.memory) facts.push(L.memory + " " + model.memory);
    if (model.languages) facts.push(model.languages);
    if (!model.downloadable) facts.push(L.own_folder);
    if (model.partial && !model.installed) facts.push(L.partial + " (" + model.partial + ")");
    const running = downloading && downloading.model === model.name;
    const busy = !!downloading;
    const actions = [];
    if (model.installed) {
      actions.push(button(model, "use", L.use_model, () => send({ cmd: "use_model", model: model.name }), model.current));
      actions.push(button(model, "verify", L.verify, () => {
        verifying = model.name;
        showProgress(model.name, "verifying", null);
        send({ cmd: "verify", model: model.name });
      }));
      const remove = button(model, "remove", L.remove, () => {
        if (remove.classList.contains("armed")) {
          clearTimeout(remove.disarm);
          send({ cmd: "remove_model", model: model.name });
          return;
        }
        remove.classList.add("armed");
        remove.textContent = L.remove_confirm;
        remove.disarm = setTimeout(() => { remove.classList.remove("armed"); remove.textContent = L.remove; }, 4000);
      }, model.current || running);
      remove.classList.add("remove");
      actions.push(remove);
    } else if (running) {
      actions.push(button(model, "cancel", L.cancel, () => send({ cmd: "cancel_download" })));
    } else if (model.downloadable) {
      actions.push(button(model, "download", L.download, () => send({ cmd: "download", model: model.name }), busy));
    }
    const node = el("article", { className: "model-card" + (model.current ? " in-use" : "") }, [
      el("div", { className: "model-head" }, [el("strong", { textContent: model.name })].concat(badges)),
      el("div", { className: "meta" }, [el("span", { textContent: facts.join(" · ") })]),
    ]);
    if (model.advice) node.appendChild(el("p", { className: "advice", textContent: model.advice }));
    const line = progressLine(model.name);
    line.hidden = !(running || verifying === model.name);
    node.appendChild(line);
    node.appendChild(el("div", { className: "actions" }, actions));
    node.dataset.model = model.name;
    return node;
  }

  function render() {
    // Keep the keyboard where it was: the same button, else the first one of its model.
    const active = document.activeElement;
    const had = active && active.dataset && active.dataset.model && $("models").contains(active)
      ? { model: active.dataset.model, action: active.dataset.action } : null;
    $("models").replaceChildren(...models.map(card));
    if (downloading) showProgress(downloading.model, downloading.stage, downloading.percent);
    if (verifying) showProgress(verifying, "verifying", null);
    $("models-folder").textContent = folder ? L.folder + " " + folder : "";
    let target = null;
    if (had) {
      const sel = '#models button[data-model="' + CSS.escape(had.model) + '"]';
      target = document.querySelector(sel + '[data-action="' + had.action + '"]:not(:disabled)')
        || document.querySelector(sel + ":not(:disabled)");
    } else if (focusList) {
      target = document.querySelector("#models button:not(:disabled)");
    }
    focusList = false;
    if (target) target.focus();
  }

  function done(r) {
    if (r.action === "verify") {
      verifying = null;
      const line = document.querySelector('#models .progress[data-model="' + CSS.escape(r.model) + '"]');
      if (line && !(downloading && downloading.model === r.model)) line.hidden = true;
    }
    if (r.action === "cancel") return status(L.cancelled + " " + r.model, "done");
    if (!r.ok) return status(L.failed + " " + r.model + ": " + r.detail);
    const said = { download: L.done_download, verify: L.verified, remove: L.removed, use: L.now_used }[r.action];
    status(said + " " + r.model + (r.action === "verify" ? " — " + r.detail : ""), "done");
  }

  function reply(r) {
    switch (r.kind) {
      case "model_list":
        models = r.models;
        downloading = r.downloading;
        folder = r.folder;
        render();
        return true;
      case "model_progress":
        if (r.stage === "verifying" && verifying === r.model) {
          showProgress(r.model, r.stage, null);
          return true;
        }
        if (!downloading || downloading.model !== r.model) {
          downloading = { model: r.model, stage: r.stage, percent: r.percent };
          render();
        }
        downloading.stage = r.stage;
        downloading.percent = r.percent;
        showProgress(r.model, r.stage, r.percent);
        return true;
      case "model_done":
        if (r.action === "download" || r.action === "cancel") downloading = null;
        done(r);
        return true;
    }
    return false;
  }

  const otherReply = window.app.reply;
  window.app.reply = (r) => { if (!reply(r)) otherReply(r); };

  $("nav-models").textContent = L.models;
  $("nav-models").addEventListener("click", () => {
    focusList = true;
    send({ cmd: "model_list" });
  });
  if (location.hash === "#models") focusList = true;
  send({ cmd: "model_list" });
})();
