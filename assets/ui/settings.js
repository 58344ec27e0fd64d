// The window's pages (History | Settings) and the Settings page (its "Modes per app" section
// is modes.js's). It talks to the app only
// through window.ipc.postMessage with the commands of src/app/window/ipc.rs ("settings",
// "check", "set", "page", "shown"); the app's answers for this page come through
// window.app.reply, which this file wraps (the History page's answers go on to app.js).
// Every value is checked by the app as it is typed ("check"); a text field is applied when it
// is left or Enter is pressed, a choice or switch at once ("set"). Text is set with
// textContent, never parsed as HTML.
"use strict";
(function () {
  const L = window.SETTINGS_LABELS;
  const $ = (id) => document.getElementById(id);
  const send = (message) => window.ipc.postMessage(JSON.stringify(message));
  const PAGES = ["history", "settings", "models"];
  let page = PAGES.includes(location.hash.slice(1)) ? location.hash.slice(1) : "history";
  let values = null;
  let choices = null;
  let shown = false;
  const fields = {}; // key -> { row, update(values), adder? }

  function el(tag, props, children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children || []) node.appendChild(child);
    return node;
  }

  // ---- pages ----
  function showPage(name, tell) {
    if (!PAGES.includes(name)) return;
    page = name;
    $("history-page").hidden = name !== "history";
    $("settings-page").hidden = name !== "settings";
    $("models-page").hidden = name !== "models";
    for (const b of document.querySelectorAll("#pages button")) {
      b.classList.toggle("current", b.dataset.page === name);
      b.setAttribute("aria-current", b.dataset.page === name ? "page" : "false");
    }
    document.title = name === "settings" ? L.settings
      : name === "models" ? window.MODELS_LABELS.models : L.history;
    if (tell) send({ cmd: "page", page: name });
    if (name === "settings") {
      if (values) focusFirst();
    } else if (name === "history") {
      $("search").focus();
    }
  }

  function focusFirst() {
    const first = document.querySelector("#settings input, #settings select");
    if (first && !document.querySelector("#settings :focus")) first.focus();
  }

  // ---- a field's row: label, control, problem, hint, note ----
  function row(key, label, control, hint) {
    const id = "field-" + key;
    const problem = el("p", { className: "problem", hidden: true });
    problem.setAttribute("role", "alert");
    const note = el("p", { className: "note", hidden: true });
    const node = el("div", { className: "field" }, [
      el("label", { textContent: label, htmlFor: id }),
      el("div", { className: "control" }, [control]),
      problem,
      note,
    ]);
    if (hint) node.appendChild(el("p", { className: "hint", textContent: hint }));
    node.dataset.key = key;
    // The label names the field's input: a control that holds it keeps no id of its own
    // (two elements with one id left the label, and a WebDriver, on the wrong one).
    if (!control.querySelector("[id='" + id + "']")) control.id = control.id || id;
    return node;
  }

  function setProblem(key, text) {
    const f = fields[key];
    if (!f) return;
    const p = f.row.querySelector(".problem");
    p.textContent = text || "";
    p.hidden = !text;
    f.row.classList.toggle("invalid", !!text);
    if (text) f.row.querySelector(".note").hidden = true;
  }

  function setNote(key, text) {
    const f = fields[key];
    if (!f) return;
    const n = f.row.querySelector(".note");
    n.textContent = text;
    n.hidden = false;
    clearTimeout(f.noteTimer);
    f.noteTimer = setTimeout(() => { n.hidden = true; }, 2500);
  }

  // A text-like field: checked as typed, applied when left or on Enter.
  function textField(key, label, hint, kind) {
    const input = kind === "textarea"
      ? el("textarea", { spellcheck: false })
      : el("input", { type: "text", autocomplete: "off", spellcheck: false });
    if (kind === "days") {
      input.inputMode = "numeric";
      input.className = "days";
    }
    input.addEventListener("input", () => send({ cmd: "check", key, value: input.value }));
    input.addEventListener("change", () => send({ cmd: "set", key, value: input.value }));
    if (kind !== "textarea") {
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter") send({ cmd: "set", key, value: input.value });
      });
    }
    const node = row(key, label, input, hint);
    fields[key] = {
      row: node,
      update(v) {
        if (document.activeElement !== input) input.value = String(v[key]);
      },
    };
    return node;
  }

  function selectField(key, label, options, hint) {
    const select = el("select");
    select.addEventListener("change", () => send({ cmd: "set", key, value: select.value }));
    const node = row(key, label, select, hint);
    fields[key] = {
      row: node,
      update(v) {
        const list = options(v).slice();
        if (!list.some(([value]) => value === v[key])) list.push([v[key], v[key]]);
        select.replaceChildren(...list.map(([value, text]) => el("option", { value, textContent: text })));
        select.value = v[key];
      },
    };
    return node;
  }

  function switchField(key, label, hint) {
    const box = el("input", { type: "checkbox" });
    box.addEventListener("change", () => send({ cmd: "set", key, value: box.checked }));
    const node = row(key, label, box, hint);
    node.classList.add("switch");
    fields[key] = { row: node, update(v) { box.checked = !!v[key]; } };
    return node;
  }

  // The vocabulary: words as chips, each removable; a new word checked as typed, added on
  // Enter or Add.
  function wordsField(key, label, hint) {
    const chips = el("div", { className: "chips" });
    const input = el("input", { type: "text", autocomplete: "off", spellcheck: false, placeholder: L.new_word });
    input.setAttribute("aria-label", L.new_word);
    const add = el("button", { type: "button", textContent: L.add });
    const candidate = () => values[key].concat([input.value]);
    input.addEventListener("input", () => {
      if (input.value.trim()) send({ cmd: "check", key, value: candidate() });
      else setProblem(key, "");
    });
    const submit = () => { if (input.value.trim()) send({ cmd: "set", key, value: candidate() }); };
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") submit(); });
    add.addEventListener("click", submit);
    const box = el("div", { className: "control" }, [chips, el("div", { className: "adder" }, [input, add])]);
    input.id = "field-" + key;
    const node = row(key, label, box, hint);
    fields[key] = {
      row: node,
      update(v) {
        chips.replaceChildren(...v[key].map((word, i) => {
          const remove = el("button", { type: "button", textContent: "×", title: L.remove });
          remove.setAttribute("aria-label", L.remove + " " + word);
          remove.addEventListener("click", () => send({ cmd: "set", key, value: v[key].filter((_, j) => j !== i) }));
          return el("span", { className: "chip" }, [el("span", { textContent: word }), remove]);
        }));
      },
      applied() { input.value = ""; },
    };
    return node;
  }

  // The replacements: pairs said → written, each removable; a new pair checked as typed,
  // added on Enter or Add.
  function pairsField(key, label, hint) {
    const list = el("div", { className: "pairs" });
    const said = el("input", { type: "text", autocomplete: "off", spellcheck: false, placeholder: L.said });
    const written = el("input", { type: "text", autocomplete: "off", spellcheck: false, placeholder: L.written });
    said.setAttribute("aria-label", L.said);
    written.setAttribute("aria-label", L.written);
    const add = el("button", { type: "button", textContent: L.add });
    const candidate = () => values[key].concat([[said.value, written.value]]);
    const check = () => {
      if (said.value.trim() || written.value.trim()) send({ cmd: "check", key, value: candidate() });
      else setProblem(key, "");
    };
    said.addEventListener("input", check);
    written.addEventListener("input", check);
    const submit = () => { if (said.value.trim() || written.value.trim()) send({ cmd: "set", key, value: candidate() }); };
    for (const input of [said, written]) {
      input.addEventListener("keydown", (e) => { if (e.key === "Enter") submit(); });
    }
    add.addEventListener("click", submit);
    const box = el("div", { className: "control" }, [list, el("div", { className: "adder" }, [said, written, add])]);
    said.id = "field-" + key;
    const node = row(key, label, box, hint);
    fields[key] = {
      row: node,
      update(v) {
        list.replaceChildren(...v[key].map(([from, to], i) => {
          const remove = el("button", { type: "button", textContent: "×", title: L.remove });
          remove.setAttribute("aria-label", L.remove + " " + from);
          remove.addEventListener("click", () => send({ cmd: "set", key, value: v[key].filter((_, j) => j !== i) }));
          return el("div", { className: "pair" }, [
            el("span", { textContent: from }),
            el("span", { className: "arrow", textContent: "→" }),
            el("span", { textContent: to }),
            remove,
          ]);
        }));
      },
      applied() { said.value = ""; written.value = ""; },
    };
    return node;
  }

  function build() {
    const upper = (d) => d.toUpperCase();
    const form = $("settings");
    const modes = window.ModesSection({ el, send, L });
    fields.modes = modes.field;
    modes.field.choose(choices);
    form.replaceChildren(
      el("h2", { textContent: L.section_dictation }),
      textField("hotkey", L.hotkey, choices.hotkey_note ? L.hotkey_hint + " " + choices.hotkey_note : L.hotkey_hint, "text"),
      selectField("hotkey_mode", L.hotkey_mode, () => [["hold", L.mode_hold], ["toggle", L.mode_toggle]]),
      selectField("output", L.output, () => [["paste", L.output_paste], ["type", L.output_type], ["copy", L.output_copy]]),
      selectField("language", L.language, () => choices.languages),
      selectField("model", L.model, () => choices.models.map((m) => [m, m])),
      selectField("device", L.device, () => [["auto", L.device_auto]].concat(choices.devices.map((d) => [d, upper(d)]))),
      selectField("encoder", L.encoder, () => [["fast", L.encoder_fast], ["exact", L.encoder_exact]]),
      selectField("input_device", L.microphone, (v) => {
        const list = [["", L.microphone_default]].concat(choices.microphones.map((m) => [m, m]));
        if (v.input_device && !choices.microphones.includes(v.input_device)) {
          list.push([v.input_device, v.input_device + " (" + L.not_connected + ")"]);
        }
        return list;
      }),
      switchField("overlay", L.overlay),
      selectField("overlay_position", L.overlay_position, () => [["bottom", L.overlay_bottom], ["top", L.overlay_top]]),
      el("h2", { textContent: L.section_words }),
      wordsField("vocabulary", L.vocabulary, L.vocabulary_hint),
      pairsField("replacements", L.replacements, L.replacements_hint),
      textField("prompt", L.prompt, L.prompt_hint, "textarea"),
      switchField("spoken_commands", L.spoken_commands),
      switchField("remove_fillers", L.remove_fillers),
      el("h2", { textContent: L.section_privacy }),
      switchField("keep_delivered_recordings", L.keep_recordings),
      switchField("keep_history", L.keep_history),
      textField("history_text_days", L.history_text_days, null, "days"),
      textField("history_audio_days", L.history_audio_days, L.days_hint, "days"),
      switchField("log_text", L.log_text),
      el("h2", { textContent: L.section_recording }),
      switchField("keep_microphone_open", L.keep_microphone_open),
      switchField("pause_media", L.pause_media, L.pause_media_hint),
      selectField("unload_model_after_secs", L.unload_model, () => [["0", L.unload_never]].concat(
        [5, 10, 30, 60].map((n) => [String(n * 60), L.minutes.replace("{n}", n)])), L.unload_model_hint),
      textField("max_recording_secs", L.max_recording_secs, L.max_recording_hint, "days"),
      el("h2", { textContent: modes.title, id: "modes" }),
      modes.node,
    );
  }

  function show(newValues) {
    values = newValues;
    for (const key of Object.keys(fields)) fields[key].update(values);
  }

  function reply(r) {
    switch (r.kind) {
      case "settings":
        choices = r.choices;
        if (!Object.keys(fields).length) build();
        show(r.values);
        if (page === "settings") {
          focusFirst();
          if (!shown) {
            shown = true;
            requestAnimationFrame(() => send({ cmd: "shown", page: "settings" }));
          }
        }
        return true;
      case "checked":
        setProblem(r.key, r.problem);
        return true;
      case "applied":
        show(r.values);
        setProblem(r.key, r.problem);
        if (!r.problem) {
          if (fields[r.key] && fields[r.key].applied) fields[r.key].applied();
          setNote(r.key, r.saved ? L.saved : L.not_saved);
        }
        return true;
      case "show":
        showPage(r.page, false);
        return true;
    }
    return false;
  }

  const historyReply = window.app.reply;
  window.app.reply = (r) => { if (!reply(r)) historyReply(r); };

  $("nav-history").textContent = L.history;
  $("nav-settings").textContent = L.settings;
  for (const b of document.querySelectorAll("#pages button")) {
    b.addEventListener("click", () => showPage(b.dataset.page, true));
  }
  showPage(page, false);
  send({ cmd: "settings" });
})();
