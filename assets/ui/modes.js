// The Settings page's "Modes per app" section (words: window.MODES_LABELS), built by
// settings.js through window.ModesSection(kit). The person's modes are cards; every edit is
// checked by the app as it is typed ("check", key "modes", the whole list as it would be) and
// applied when a text field is left or Enter is pressed, a choice at once ("set"). A choice
// left at "As in general" is absent from the rule (the general setting applies). A new mode
// starts from a name and an app (the apps offered: the one in front when the window opened,
// then those in the history). The built-in modes are listed; "Change" copies one among the
// person's, where it then applies instead. Text is set with textContent, never parsed as HTML.
"use strict";
window.ModesSection = function (kit) {
  const M = window.MODES_LABELS;
  const { el, send, L } = kit;
  const KEY = "modes";
  let rules = [];
  let choices = null;
  let cards = [];
  const list = el("div", { className: "mode-list" });
  const builtins = el("div", { className: "mode-list" });
  const apps = el("datalist", { id: "mode-apps" });

  // A problem or a note is shown on the card last edited (the field's row for settings.js).
  const field = { row: null };
  function editing(node) {
    if (field.row && field.row !== node) {
      const p = field.row.querySelector(".problem");
      p.hidden = true;
      field.row.classList.remove("invalid");
    }
    field.row = node;
  }
  function says() {
    const problem = el("p", { className: "problem", hidden: true });
    problem.setAttribute("role", "alert");
    return [problem, el("p", { className: "note", hidden: true })];
  }

  const check = (list) => send({ cmd: "check", key: KEY, value: list });
  const set = (list) => send({ cmd: "set", key: KEY, value: list });
  const withRule = (i, rule) => rules.map((r, j) => (j === i ? rule : r));
  // A labelled control of a card; `wide` spans the card, `hint` goes under it.
  let ids = 0;
  const cell = (label, control, wide, hint) => {
    const target = control.matches("input, select, textarea") ? control : control.querySelector("input");
    target.id = target.id || "mode-field-" + ++ids;
    const node = el("div", { className: "mode-cell" + (wide ? " wide" : "") }, [
      el("label", { textContent: label, htmlFor: target.id }), control]);
    if (hint) node.appendChild(el("p", { className: "hint", textContent: hint }));
    return node;
  };
  const textInput = (placeholder) =>
    el("input", { type: "text", autocomplete: "off", spellcheck: false, placeholder: placeholder || "" });

  // A choice: "As in general" (the rule leaves it out) or one of `options` ([value, label]).
  function choice(options, field, read, write, onChange) {
    const select = el("select");
    select.dataset.field = field;
    const fill = (rule) => {
      const list = [["", M.general]].concat(options);
      const value = read(rule);
      if (value !== "" && !list.some(([v]) => v === value)) list.push([value, value]);
      select.replaceChildren(...list.map(([v, t]) => el("option", { value: v, textContent: t })));
      select.value = value;
    };
    select.addEventListener("change", () => onChange((rule) => write(rule, select.value)));
    return { control: select, fill };
  }
  const str = (name) => [name, (r) => (r[name] === undefined || r[name] === null ? "" : String(r[name])),
    (r, v) => { if (v === "") delete r[name]; else r[name] = v; }];
  const bool = (name) => [name, (r) => (typeof r[name] === "boolean" ? String(r[name]) : ""),
    (r, v) => { if (v === "") delete r[name]; else r[name] = v === "true"; }];
  const onOff = () => [["true", M.on], ["false", M.off]];

  function card(i) {
    let draft = JSON.parse(JSON.stringify(rules[i]));
    const [problem, note] = says();
    const node = el("section", { className: "mode-card" });
    node.setAttribute("aria-label", rules[i].name);
    const focus = () => editing(node);
    node.addEventListener("focusin", focus);
    const edit = (change, apply) => {
      const rule = JSON.parse(JSON.stringify(draft));
      change(rule);
      draft = rule;
      focus();
      (apply ? set : check)(withRule(i, rule));
    };

    const name = textInput();
    name.setAttribute("aria-label", M.name);
    name.className = "mode-name";
    name.addEventListener("input", () => edit((r) => { r.name = name.value; }, false));
    name.addEventListener("change", () => edit((r) => { r.name = name.value; }, true));
    const up = el("button", { type: "button", textContent: "↑", title: M.move_up, disabled: i === 0 });
    up.setAttribute("aria-label", M.move_up);
    up.addEventListener("click", () => {
      focus();
      const list = rules.slice();
      [list[i - 1], list[i]] = [list[i], list[i - 1]];
      set(list);
    });
    const remove = el("button", { type: "button", textContent: L.remove });
    remove.addEventListener("click", () => { focus(); set(rules.filter((_, j) => j !== i)); });

    const chips = el("div", { className: "chips" });
    const newApp = textInput(M.app_placeholder);
    newApp.setAttribute("list", "mode-apps");
    const addApp = el("button", { type: "button", textContent: L.add });
    const withApp = (r) => { r.apps = (r.apps || []).concat([newApp.value]); };
    newApp.addEventListener("input", () => {
      if (newApp.value.trim()) check(withRule(i, Object.assign({}, draft, { apps: (draft.apps || []).concat([newApp.value]) })));
    });
    const submitApp = () => { if (newApp.value.trim()) edit(withApp, true); };
    newApp.addEventListener("keydown", (e) => { if (e.key === "Enter") submitApp(); });
    addApp.addEventListener("click", submitApp);

    const outputs = [["paste", L.output_paste], ["type", L.output_type], ["copy", L.output_copy]];
    const selects = [
      [L.output, choice(outputs, ...str("output"), (c) => edit(c, true))],
      [M.paste_keys, choice(choices.paste_keys, ...str("paste_keys"), (c) => edit(c, true))],
      [M.press_after, choice(choices.keys_after, ...str("press_after"), (c) => edit(c, true))],
      [M.join_previous, choice(onOff(), ...bool("join_previous"), (c) => edit(c, true))],
      [L.language, choice(choices.languages, ...str("language"), (c) => edit(c, true))],
      [L.spoken_commands, choice(onOff(), ...bool("spoken_commands"), (c) => edit(c, true))],
      [L.remove_fillers, choice(onOff(), ...bool("remove_fillers"), (c) => edit(c, true))],
    ];

    const words = textInput();
    const readWords = (r) => {
      const list = words.value.split(",").map((w) => w.trim()).filter(Boolean);
      if (list.length) r.vocabulary = list; else delete r.vocabulary;
    };
    words.addEventListener("input", () => edit(readWords, false));
    words.addEventListener("change", () => edit(readWords, true));
    words.addEventListener("keydown", (e) => { if (e.key === "Enter") edit(readWords, true); });
    const prompt = el("textarea", { spellcheck: false });
    const readPrompt = (r) => { if (prompt.value) r.prompt = prompt.value; else delete r.prompt; };
    prompt.addEventListener("input", () => edit(readPrompt, false));
    prompt.addEventListener("change", () => edit(readPrompt, true));

    const grid = el("div", { className: "mode-grid" }, [
      cell(M.apps, el("div", { className: "control" }, [
        chips, el("div", { className: "adder" }, [newApp, addApp])]), true),
      ...selects.map(([label, c]) => cell(label, c.control)),
      cell(M.vocabulary, words, true, M.vocabulary_hint),
      cell(L.prompt, prompt, true, M.prompt_hint),
    ]);
    node.append(el("div", { className: "mode-head" }, [name, up, remove]), problem, note, grid);

    const show = (rule) => {
      draft = JSON.parse(JSON.stringify(rule));
      node.setAttribute("aria-label", rule.name);
      const active = document.activeElement;
      if (active !== name) name.value = rule.name;
      chips.replaceChildren(...(rule.apps || []).map((app, k) => {
        const x = el("button", { type: "button", textContent: "×", title: L.remove });
        x.setAttribute("aria-label", L.remove + " " + app);
        x.addEventListener("click", () => edit((r) => { r.apps = r.apps.filter((_, j) => j !== k); }, true));
        return el("span", { className: "chip" }, [el("span", { textContent: app }), x]);
      }));
      for (const [, c] of selects) if (active !== c.control) c.fill(rule);
      if (active !== words) words.value = (rule.vocabulary || []).join(", ");
      if (active !== prompt) prompt.value = rule.prompt || "";
    };
    show(rules[i]);
    return { node, show, clearAdder() { newApp.value = ""; } };
  }

  // The new mode: a name and its first app; the rest is set on its card.
  const [adderProblem, adderNote] = says();
  const newName = textInput(M.new_mode);
  newName.setAttribute("aria-label", M.name);
  const firstApp = textInput(M.app_placeholder);
  firstApp.setAttribute("aria-label", M.apps);
  firstApp.setAttribute("list", "mode-apps");
  const addMode = el("button", { type: "button", textContent: M.add_mode });
  const adder = el("section", { className: "mode-card mode-new" }, [
    el("div", { className: "adder" }, [newName, firstApp, addMode]), adderProblem, adderNote]);
  adder.addEventListener("focusin", () => editing(adder));
  const candidate = () => rules.concat([{ name: newName.value, apps: firstApp.value.trim() ? [firstApp.value] : [] }]);
  // While the name is typed and no app yet, the app's absence is not said (it comes next);
  // Add without one says it.
  const checkNew = () => {
    editing(adder);
    if (!newName.value.trim() && !firstApp.value.trim()) return;
    const list = candidate();
    if (!firstApp.value.trim()) list[list.length - 1].apps = ["-"];
    check(list);
  };
  newName.addEventListener("input", checkNew);
  firstApp.addEventListener("input", checkNew);
  const submitNew = () => { editing(adder); set(candidate()); };
  for (const input of [newName, firstApp]) input.addEventListener("keydown", (e) => { if (e.key === "Enter") submitNew(); });
  addMode.addEventListener("click", submitNew);
  field.row = adder;

  function showBuiltins() {
    builtins.replaceChildren(...choices.builtin_modes.map((rule) => {
      const shown = rule.apps.slice(0, 6).join(", ");
      const more = rule.apps.length > 6 ? " " + M.more_apps.replace("{n}", rule.apps.length - 6) : "";
      const keys = (choices.paste_keys.find(([v]) => v === rule.paste_keys) || [rule.paste_keys, rule.paste_keys])[1];
      const change = el("button", { type: "button", textContent: M.change });
      change.addEventListener("click", () => {
        editing(adder);
        set(rules.concat([JSON.parse(JSON.stringify(rule))]));
      });
      return el("div", { className: "mode-builtin" }, [
        el("strong", { textContent: rule.name }),
        el("span", { className: "apps", textContent: shown + more }),
        el("span", { textContent: M.paste_keys + ": " + keys }),
        change,
      ]);
    }));
  }

  const node = el("div", { className: "modes" }, [
    el("p", { className: "hint", textContent: M.hint }), list, adder, apps,
    el("h3", { textContent: M.builtin }), el("p", { className: "hint", textContent: M.builtin_hint }),
    builtins,
  ]);

  field.update = (values) => {
    rules = values.modes;
    const inside = list.contains(document.activeElement);
    if (cards.length !== rules.length || !inside) {
      cards = rules.map((_, i) => card(i));
      list.replaceChildren(...cards.map((c) => c.node));
    } else {
      cards.forEach((c, i) => c.show(rules[i]));
    }
  };
  field.applied = () => {
    newName.value = "";
    firstApp.value = "";
    for (const c of cards) c.clearAdder();
  };
  field.choose = (newChoices) => {
    choices = newChoices;
    const front = new Set(choices.in_front);
    apps.replaceChildren(...choices.apps.map((app) =>
      el("option", { value: app, label: front.has(app) ? app + " · " + M.current_app : app })));
    showBuiltins();
  };
  return { node, field, title: M.section };
};
