/* The army builder: a list checked against the ruleset's army rules in the page, with no server.
   The rules come from <ruleset>/army.json, made from the rules model when the site was built
   (compiler/model/army_data.py): each requirement as an expression tree with the message
   `warscribe army check` prints. The checker below (window.wsArmy) works on those trees with exact
   fractions, as the command does. Everything from the rules is written with textContent, never as HTML. */
(function () {
  "use strict";

  // --- Exact numbers: [numerator, denominator] as BigInt, the denominator positive -------------
  function gcd(a, b) { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) { const t = a % b; a = b; b = t; } return a; }
  function num(n, d) {
    if (d === 0n) throw new Error("division by zero");
    if (d < 0n) { n = -n; d = -d; }
    const g = gcd(n, d) || 1n;
    return { n: n / g, d: d / g };
  }
  function cmp(a, b) { const l = a.n * b.d, r = b.n * a.d; return l < r ? -1 : l > r ? 1 : 0; }
  const ARITH = {
    "+": function (a, b) { return num(a.n * b.d + b.n * a.d, a.d * b.d); },
    "-": function (a, b) { return num(a.n * b.d - b.n * a.d, a.d * b.d); },
    "*": function (a, b) { return num(a.n * b.n, a.d * b.d); },
    "/": function (a, b) { return num(a.n * b.d, a.d * b.n); },
    "min": function (a, b) { return cmp(a, b) <= 0 ? a : b; },
    "max": function (a, b) { return cmp(a, b) >= 0 ? a : b; },
  };
  const ORDER = {
    "<": function (c) { return c < 0; }, "<=": function (c) { return c <= 0; },
    ">": function (c) { return c > 0; }, ">=": function (c) { return c >= 0; },
  };

  /* A requirement's tree on the list's quantities (a Map of BigInt): true, false or a number.
     Throws where `army check` would give up on the requirement (a division by zero). */
  function evaluate(t, env) {
    const k = t[0];
    if (k === "n") return num(BigInt(t[1]), BigInt(t[2]));
    if (k === "b") return t[1];
    if (k === "q") return quantity(env, t[1]);
    if (k === "not") return !evaluate(t[1], env);
    if (k === "neg") { const v = evaluate(t[1], env); return num(-v.n, v.d); }
    if (k === "and") return evaluate(t[1], env) && evaluate(t[2], env);
    if (k === "or") return evaluate(t[1], env) || evaluate(t[2], env);
    if (k === "if") return evaluate(t[1], env) ? evaluate(t[2], env) : evaluate(t[3], env);
    if (k === "in") {
      const v = evaluate(t[1], env), lo = evaluate(t[2], env), hi = evaluate(t[3], env);
      return cmp(lo, v) <= 0 && cmp(v, hi) <= 0;
    }
    const a = evaluate(t[1], env), b = evaluate(t[2], env);
    if (k === "==" || k === "!=") {
      const same = typeof a === "boolean" ? a === b : cmp(a, b) === 0;
      return k === "==" ? same : !same;
    }
    if (ARITH[k]) return ARITH[k](a, b);
    if (ORDER[k]) return ORDER[k](cmp(a, b));
    throw new Error("unknown operator " + k);
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, name) { return name in values ? String(values[name]) : all; });
  }
  function entryOf(data, id) { return data.entries.find(function (e) { return e.id === id; }); }

  /* A unit's points at `models` models: its cost law [base, per extra model, smallest size]. */
  function points(entry, models) {
    const base = BigInt(entry.cost[0]), extra = BigInt(entry.cost[1]);
    if (entry.cost[2] === null) return base;
    const over = BigInt(models) - BigInt(entry.cost[2]);
    return base + extra * (over > 0n ? over : 0n);
  }

  function armyOf(data, armyId) { return data.armies.find(function (a) { return a.id === armyId; }) || data.armies[0]; }
  /* The game's size: one of the army's sizes (the first by default), or any whole number when it has none. */
  function sizeOf(army, limit) {
    const n = limit === undefined || limit === null || limit === "" ? army.limit : Number(limit);
    if (army.sizes.length) return army.sizes.indexOf(n) >= 0 ? n : army.limit;
    return Number.isSafeInteger(n) && n >= 0 ? n : army.limit;
  }

  /* One unit's quantities: its own (keywords, stats), its models and points, and what each weapon it is
     listed with adds (its profile's or squad's own weapons when the line names none). */
  function unitEnv(data, e, u) {
    const env = new Map();
    Object.keys(e.own).forEach(function (k) { env.set(k, BigInt(e.own[k])); });
    env.set("models", BigInt(u.models));
    env.set("points", points(e, u.models));
    (u.weapons && u.weapons.length ? u.weapons : e.default_weapons).forEach(function (w) {
      const adds = data.weapon_adds[w] || {};
      Object.keys(adds).forEach(function (k) { env.set(k, (env.get(k) || 0n) + BigInt(adds[k])); });
    });
    return env;
  }
  function quantity(env, k) {
    if (!env.has(k)) throw new Error("no value for " + k);  // as the command: neither met nor broken
    return num(env.get(k), 1n);
  }

  /* Check a list ([{id, models, weapons}]) against army `armyId` in a game of `limit` points: its
     points, each violation (the message `army check` prints and what it cites), and the requirements
     only the command checks. */
  function check(data, armyId, units, limit) {
    const army = armyOf(data, armyId), size = sizeOf(army, limit);
    const requires = army.sized[String(size)] || army.requires;
    const env = new Map();
    Object.keys(army.base).forEach(function (k) { env.set(k, BigInt(army.base[k])); });
    env.set("limit", BigInt(size));
    // the list's own quantities, as army_quantities counts them: its marks, and one detachment if any unit
    env.set("detachments", BigInt(new Set(units.map(function (u) { return u.detachment || 1; })).size));
    ["warlords", "reserve_warlords", "reserve_points", "special_points"].forEach(function (k) { env.set(k, 0n); });
    units.forEach(function (u) {
      const e = entryOf(data, u.id), cost = points(e, u.models);
      env.set("points", env.get("points") + cost);
      env.set("models", env.get("models") + BigInt(u.models));
      Object.keys(e.adds).forEach(function (k) { env.set(k, (env.get(k) || 0n) + BigInt(e.adds[k])); });
      if (u.warlord) env.set("warlords", env.get("warlords") + 1n);
      if (u.warlord && u.reserve) env.set("reserve_warlords", env.get("reserve_warlords") + 1n);
      if (u.reserve) env.set("reserve_points", env.get("reserve_points") + cost);
      if (e.special) env.set("special_points", env.get("special_points") + cost);  // its keyword is role special
    });
    const violations = [], unchecked = [];
    requires.forEach(function (r) {
      if (!r.tree) { unchecked.push({ message: r.message, why: r.unsupported, unknown: !!r.unknown }); return; }
      let ok;
      try { ok = evaluate(r.tree, env); } catch (err) { return; }  // as the command: a requirement it cannot work out
      if (ok !== false) return;
      const detail = r.shown.map(function (k) { return k + " = " + env.get(k); }).join(", ");
      violations.push({ message: r.message + (detail ? " (" + detail + ")" : ""), cites: army.id,
                        title: army.title, rule: army.rule, never: r.never });
    });
    // `require each unit:` lines, unit by unit, on the unit's own quantities (armies.unit_quantities)
    const labelOf = function (e, i) { return units.length > 1 ? fill(data.label_many, { title: e.title, number: i + 1 }) : e.title; };
    (army.unit_requires || []).forEach(function (r) {
      if (!r.tree) { unchecked.push({ message: r.message, why: r.unsupported, unknown: false }); return; }
      units.forEach(function (u, i) {
        const e = entryOf(data, u.id), own = unitEnv(data, e, u);
        let ok;
        try { ok = evaluate(r.tree, own); } catch (err) { return; }  // a stat the unit gives as `-`
        if (ok !== false) return;
        const detail = r.shown.filter(function (k) { return own.has(k); })
          .map(function (k) { return k + " = " + own.get(k); }).join(", ");
        violations.push({ message: fill(data.unit_message, { label: labelOf(e, i), message: r.message })
                            + (detail ? " (" + detail + ")" : ""), cites: army.id, title: army.title, rule: army.rule });
      });
    });
    units.forEach(function (u, i) {
      const e = entryOf(data, u.id);
      if (e.kind !== "squad" || e.min === null || e.max === null) return;
      if (u.models >= e.min && u.models <= e.max) return;
      const label = units.length > 1 ? fill(data.label_many, { title: e.title, number: i + 1 }) : e.title;
      violations.push({ message: fill(data.size_message, { label: label, models: u.models, squad: e.title,
                                                         low: e.min, high: e.max }),
                        cites: e.id, title: e.title, rule: e.rule });
    });
    return { army: army.id, points: String(env.get("points")), limit: size,
             ok: violations.length ? false : unchecked.length ? null : true, violations: violations,
             unchecked: unchecked };
  }

  /* The list file `army check` reads: a comment, then one unit a line ("10 space_marine_squad"). */
  function listText(data, armyId, units, limit, name) {
    const army = armyOf(data, armyId), size = sizeOf(army, limit);
    const one = function (s) { return String(s).replace(/[\r\n\u2028\u2029\x0b\x0c\x1c-\x1e\x85]+/g, " ").trim(); };
    const lines = ["# " + one(data.title) + ": " + one(army.title) + " (" + army.id + ")"
      + (army.sizes.length || size ? ", a game of " + size + " points" : "")];
    if (name && one(name)) lines.push(NAMED + one(name));
    units.forEach(function (u) {
      lines.push(u.models + " " + u.id + (u.weapons && u.weapons.length ? " with " + u.weapons.join(", ") : "")
        + (u.warlord ? " as warlord" : "") + (u.reserve ? " in reserve" : "")
        + (u.detachment && u.detachment !== 1 ? " in detachment " + u.detachment : ""));
    });
    return lines.join("\n") + "\n";
  }

  const NAMED = "# List: ";  // the list's name, a comment line of its file
  /* A list file read back: its units and name, or the lines it cannot take, in the words of `army check`
     (compiler/model/listfile.py): "line N, column C: …". */
  const NAME = "[A-Za-z_][A-Za-z0-9_]*";
  const HEAD = new RegExp("^\\s*([0-9]+)\\s+(" + NAME + ")");
  const WORDS = new RegExp(NAME + "|,|[^\\sA-Za-z_,]\\S*", "g");
  const IS_NAME = new RegExp("^" + NAME + "$");
  const MARKS = { as: ["warlord"], in: ["reserve", "detachment"] };
  function readLine(data, body, known, weapons) {
    const head = HEAD.exec(body);
    if (!head) return [1, "cannot read this line; write e.g. `10 " + data.entries[0].id + "`"];
    const digits = head[1], count = Number(digits), start2 = head[0].length - head[2].length;
    if (digits.length > 6 || count < 1 || count > data.max_count) {
      return [body.indexOf(digits) + 1, "a unit of " + digits.slice(0, 12) + (digits.length > 12 ? "\u2026" : "")
        + " models; write from 1 to " + data.max_count.toLocaleString("en")];
    }
    if (!known.has(head[2])) return [start2 + 1, "'" + head[2] + "' is not a unit, squad or weapon of " + data.ruleset];
    const words = [];
    WORDS.lastIndex = head[0].length;
    let m;
    while ((m = WORDS.exec(body)) !== null) words.push([m[0], m.index + 1]);
    if (words.length && words[0][1] - 1 === head[0].length) return [words[0][1], "cannot read '" + words[0][0] + "' after the unit's name"];
    const end = body.replace(/\s+$/, "").length + 1;
    const picked = [], marks = {};
    let i = 0;
    if (words.length && words[0][0] === "with") {
      i = 1;
      for (;;) {
        if (i >= words.length || !IS_NAME.test(words[i][0])) {
          return [i < words.length ? words[i][1] : end, "`with` is followed by the weapons the unit takes: `with boltgun, flamer`"];
        }
        if (!weapons.has(words[i][0])) return [words[i][1], "'" + words[i][0] + "' is not a unit, squad or weapon of " + data.ruleset];
        picked.push(words[i][0]);
        i += 1;
        if (i < words.length && words[i][0] === ",") { i += 1; continue; }
        break;
      }
    }
    while (i < words.length) {
      const word = words[i][0], col = words[i][1];
      if (!Object.prototype.hasOwnProperty.call(MARKS, word)) {
        return [col, "cannot read '" + word + "' here; " + (word === "with" ? "the weapons come first, after `with`"
          : "after the unit come `with` and its weapons, then `as warlord`, `in reserve` or `in detachment N`")];
      }
      const seconds = MARKS[word];
      const said = seconds.map(function (w) { return "`" + word + " " + w + (w === "detachment" ? " N" : "") + "`"; }).join(" or ");
      if (i + 1 >= words.length) return [end, "`" + word + "` ends the line; a unit is marked " + said];
      const what = words[i + 1][0];
      if (seconds.indexOf(what) < 0) return [words[i + 1][1], "'" + what + "': a unit is marked " + said];
      if (Object.prototype.hasOwnProperty.call(marks, what)) return [col, "the unit is marked `" + word + " " + what + "` twice"];
      i += 2;
      if (what === "detachment") {
        const number = i < words.length ? words[i][0] : "";
        if (!/^[0-9]{1,2}$/.test(number) || Number(number) < 1) {
          return [i < words.length ? words[i][1] : end, "`in detachment` takes the detachment's number, from 1 to 99"];
        }
        marks[what] = Number(number);
        i += 1;
      } else {
        marks[what] = 1;
      }
    }
    return { id: head[2], models: count, weapons: picked, warlord: !!marks.warlord, reserve: !!marks.reserve,
             detachment: marks.detachment || 1 };
  }
  function parseList(data, text) {
    const units = [], errors = [];
    let name = "";
    const known = new Set(data.entries.map(function (e) { return e.id; }));
    const weapons = new Set(data.weapons);
    text.split(/\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]/).forEach(function (line, i) {
      const n = i + 1, body = line.split("#")[0];
      if (!name && line.indexOf(NAMED) === 0) name = line.slice(NAMED.length).trim();
      if (!body.trim()) return;
      const got = readLine(data, body, known, weapons);
      if (Array.isArray(got)) { errors.push("line " + n + ", column " + got[0] + ": " + got[1]); return; }
      units.push(got);
    });
    return { units: units, errors: errors, name: name };
  }

  /* The command that checks the list file as the page does. */
  function command(data, armyId, limit, file) {
    const army = armyOf(data, armyId), size = sizeOf(army, limit);
    return "warscribe army check rules/" + data.ruleset + " " + file
      + (army.id !== data.armies[0].id ? " --army " + army.id : "") + (size !== army.limit ? " --points " + size : "");
  }

  window.wsArmy = { check: check, listText: listText, parseList: parseList, points: points, evaluate: evaluate,
                    command: command };

  // --- The page ---------------------------------------------------------------------------------
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function button(text, onClick, label) {
    const b = el("button", text, "ws-army-button");
    b.type = "button";
    if (label) b.setAttribute("aria-label", label);
    b.addEventListener("click", onClick);
    return b;
  }
  function citeLink(id) {
    const a = document.getElementById("ws-army-cite-" + id);
    return a && a.getAttribute("href");
  }

  function start(root, data) {
    const state = { army: data.armies[0].id, units: [], limit: null, name: "" };
    const KEY = "warscribe.army." + data.ruleset;  // the list is kept in this browser between visits
    try {
      const kept = JSON.parse(localStorage.getItem(KEY) || "null");
      if (kept && data.armies.some(function (a) { return a.id === kept.army; })) {
        const got = parseList(data, String(kept.text));
        if (!got.errors.length) {
          state.army = kept.army; state.units = got.units; state.limit = kept.limit; state.name = got.name;
        }
      }
    } catch (err) { /* storage may be off, or hold something else */ }
    let sheets = null;  // the datasheets page, parsed, once a card is wanted
    const entries = data.entries.filter(function (e) { return !e.sample; });
    const offered = entries.length ? entries : data.entries;
    document.documentElement.classList.add("ws-army-page");
    if (!offered.length) {
      root.appendChild(el("p", "This ruleset has army rules but no units or squads to put in a list."));
      root.dataset.ready = "yes";
      return;
    }

    const controls = el("div", null, "ws-army-controls ws-army-noprint");
    const nameWrap = el("label", "List name ", "ws-army-field");
    const nameField = document.createElement("input");
    nameField.type = "text"; nameField.id = "ws-army-name"; nameField.maxLength = 80; nameField.value = state.name;
    nameField.addEventListener("change", function () { state.name = nameField.value; render(); });
    nameWrap.appendChild(nameField);
    controls.appendChild(nameWrap);
    let armySelect = null;
    if (data.armies.length > 1) {
      const wrap = el("label", "Army rules ", "ws-army-field");
      armySelect = document.createElement("select");
      data.armies.forEach(function (a) { const o = el("option", a.title); o.value = a.id; armySelect.appendChild(o); });
      armySelect.value = state.army;
      armySelect.addEventListener("change", function () {
        state.army = armySelect.value; state.limit = null; sizeControl(); render();
      });
      wrap.appendChild(armySelect);
      controls.appendChild(wrap);
    }
    const sizeWrap = el("span", null, "ws-army-size");
    controls.appendChild(sizeWrap);
    function sizeControl() {  // the game's size: a choice of the army's sizes, or any number without them
      sizeWrap.textContent = "";
      const army = armyOf(data, state.army);
      if (army.sizes.length === 1) return;
      const wrap = el("label", "Game size (points) ", "ws-army-field");
      let field;
      if (army.sizes.length) {
        field = document.createElement("select");
        army.sizes.forEach(function (n) { const o = el("option", String(n)); o.value = String(n); field.appendChild(o); });
      } else {
        field = document.createElement("input");
        field.type = "number"; field.min = "0"; field.step = "1";
      }
      field.id = "ws-army-size";
      field.value = String(sizeOf(army, state.limit));
      field.addEventListener("change", function () {
        const n = Number(field.value);
        if (!(Number.isSafeInteger(n) && n >= 0)) { field.value = String(sizeOf(army, state.limit)); return; }
        state.limit = n; render();
      });
      wrap.appendChild(field);
      sizeWrap.appendChild(wrap);
    }
    sizeControl();
    const pickWrap = el("label", "Unit ", "ws-army-field");
    const pick = document.createElement("select");
    pick.id = "ws-army-pick";
    const groups = [["squad", "Squads"], ["unit", "Units"]];
    groups.forEach(function (g) {
      const these = offered.filter(function (e) { return e.kind === g[0]; });
      if (!these.length) return;
      const og = document.createElement("optgroup");
      og.label = g[1];
      these.forEach(function (e) {
        const size = e.min !== null && e.max !== null ? ", " + e.min + " to " + e.max + " models" : "";
        const cost = e.kind === "squad" ? (e.cost[0] ? ", " + e.cost[0] + " points" : "")
          + (e.cost[1] ? " + " + e.cost[1] + " per extra model" : "")
          : e.cost[1] ? ", " + e.cost[1] + " points a model" : "";
        const o = el("option", e.title + size + cost); o.value = e.id; og.appendChild(o);
      });
      pick.appendChild(og);
    });
    pickWrap.appendChild(pick);
    controls.appendChild(pickWrap);
    controls.appendChild(button("Add to the list", function () {
      const e = entryOf(data, pick.value);
      state.units.push({ id: e.id, models: e.min !== null ? e.min : 1, weapons: [] });
      render();
      const inputs = root.querySelectorAll(".ws-army-models");
      if (inputs.length) inputs[inputs.length - 1].focus();
    }));
    root.appendChild(controls);

    const printHead = el("p", null, "ws-army-printonly");  // on paper, what the list is for
    root.appendChild(printHead);
    const table = el("table", null, "ws-army-list");
    const caption = el("caption", "Your list");
    table.appendChild(caption);
    const head = el("tr");
    const MARKED = { warlord: "Warlord", reserve: "In reserve", detachment: "Detachment" };  // the marks the rules read
    const marks = (data.marks || []).filter(function (m) { return MARKED[m]; });
    ["Unit", "Models", "Points"].concat(marks.map(function (m) { return MARKED[m]; }), [""]).forEach(function (h, i, all) {
      const th = el("th", h); th.scope = "col"; if (i === all.length - 1) th.className = "ws-army-noprint"; head.appendChild(th);
    });
    const thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
    const body = el("tbody"); table.appendChild(body);
    root.appendChild(table);

    const total = el("p", null, "ws-army-total");
    total.setAttribute("aria-live", "polite");
    root.appendChild(total);
    const verdict = el("div", null, "ws-army-verdict");
    verdict.setAttribute("role", "status");
    root.appendChild(verdict);

    const file = el("div", null, "ws-army-file ws-army-noprint");
    const status = el("p", null, "ws-army-status");
    status.setAttribute("aria-live", "polite");
    const actions = el("div", null, "ws-army-actions");
    const textLabel = el("label", "The list file (one unit a line; edit it or paste one, then read it)", "ws-army-field");
    const text = document.createElement("textarea");
    text.id = "ws-army-text"; text.rows = 6; text.spellcheck = false;
    textLabel.appendChild(text);
    actions.appendChild(button("Copy the list", function () {
      const done = function () { status.textContent = "The list file is copied."; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text.value).then(done, function () { text.select(); document.execCommand("copy"); done(); });
      } else { text.select(); document.execCommand("copy"); done(); }
    }));
    actions.appendChild(button("Download the list", function () {
      const url = URL.createObjectURL(new Blob([text.value], { type: "text/plain" }));
      const a = el("a"); a.href = url; a.download = data.ruleset + "-army.txt";
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
      status.textContent = "The list file is downloaded as " + a.download + ".";
    }));
    actions.appendChild(button("Print the list", function () { cards().then(function () { window.print(); }); }));
    actions.appendChild(button("Read the list file", function () {
      const got = parseList(data, text.value);
      if (got.errors.length) { status.textContent = "The list was not read: " + got.errors.join("; "); return; }
      state.units = got.units; state.name = got.name; nameField.value = got.name;
      status.textContent = "The list file is read."; render();
    }));
    file.appendChild(actions);
    file.appendChild(textLabel);
    const cli = el("p", null, "ws-army-cli ws-author");  // an author's aid: shown with the author notes
    file.appendChild(cli);
    file.appendChild(status);
    root.appendChild(file);

    const cardBox = el("section", null, "ws-army-cards");
    cardBox.setAttribute("aria-label", "Datasheets of the list's units");
    root.appendChild(cardBox);

    function unitRow(u, i) {
      const e = entryOf(data, u.id);
      const label = state.units.length > 1 ? fill(data.label_many, { title: e.title, number: i + 1 }) : e.title;
      const tr = el("tr");
      const th = el("th", label); th.scope = "row"; tr.appendChild(th);
      const td = el("td");
      const input = document.createElement("input");
      input.type = "number"; input.className = "ws-army-models"; input.value = String(u.models);
      input.min = String(e.min !== null ? e.min : 1); input.step = "1";
      input.max = String(e.max !== null ? e.max : data.max_count);
      input.setAttribute("aria-label", "Models in " + label);
      input.addEventListener("change", function () {
        const n = Math.round(Number(input.value));
        if (!(n >= 1 && n <= data.max_count)) { input.value = String(u.models); return; }
        u.models = n; render(input);
      });
      td.appendChild(input);
      tr.appendChild(td);
      tr.appendChild(el("td", String(points(e, u.models))));
      marks.forEach(function (m) {  // written to the list file as `as warlord`, `in reserve`, `in detachment 2`
        const cell = el("td", null, "ws-army-mark");
        const box = document.createElement("input");
        box.className = "ws-army-" + m;
        box.setAttribute("aria-label", MARKED[m] + ": " + label);
        if (m === "detachment") {
          box.type = "number"; box.min = "1"; box.max = "99"; box.step = "1"; box.value = String(u.detachment || 1);
          box.addEventListener("change", function () {
            const n = Math.round(Number(box.value));
            if (!(n >= 1 && n <= 99)) { box.value = String(u.detachment || 1); return; }
            u.detachment = n; render(box);
          });
        } else {
          box.type = "checkbox"; box.checked = !!u[m];
          box.addEventListener("change", function () { u[m] = box.checked; render(box); });
        }
        cell.appendChild(box);
        tr.appendChild(cell);
      });
      const rm = el("td", null, "ws-army-noprint");
      rm.appendChild(button("Remove", function () { state.units.splice(i, 1); render(); pick.focus(); }, "Remove " + label));
      tr.appendChild(rm);
      return tr;
    }

    function render(keep) {
      const kind = keep ? "." + keep.className.split(" ")[0] : null;
      const focused = keep ? Array.prototype.indexOf.call(root.querySelectorAll(kind), keep) : -1;
      body.textContent = "";
      state.units.forEach(function (u, i) { body.appendChild(unitRow(u, i)); });
      if (!state.units.length) {
        const tr = el("tr"); const td = el("td", "No units yet: pick one above and add it."); td.colSpan = 4 + marks.length;
        tr.appendChild(td); body.appendChild(tr);
      }
      if (focused >= 0) root.querySelectorAll(kind)[focused].focus();
      const got = check(data, state.army, state.units, state.limit);
      const army = armyOf(data, got.army);
      total.textContent = "Total: " + got.points + " points" + (army.sizes.length || got.limit ? " of " + got.limit : "") + ".";
      verdict.textContent = "";
      verdict.dataset.ok = got.ok === true ? "yes" : got.ok === false ? "no" : "unknown";
      verdict.dataset.points = got.points;
      const named = "\u201c" + army.title + "\u201d";
      verdict.appendChild(el("p", got.ok === true ? "The list meets the rules of " + named + "."
        : got.ok === false ? "The list breaks the rules of " + named + ": " + got.violations.length + " problem"
          + (got.violations.length === 1 ? "." : "s.")
        : got.unchecked.every(function (r) { return r.unknown; })
          ? "The list meets the rules of " + named + " that a list can show; the rest are below."
          : "The list meets the rules of " + named + " that this page checks; the rest are below.", "ws-army-summary"));
      if (got.violations.length) {
        const ul = el("ul", null, "ws-army-violations");
        got.violations.forEach(function (v) {
          const li = el("li");
          li.appendChild(el("span", v.message, "ws-army-message"));
          li.appendChild(document.createTextNode(" See "));
          const href = citeLink(v.cites);
          const cite = href ? el("a", v.title) : el("span", v.title);
          if (href) cite.href = href;
          if (v.rule) li.appendChild(document.createTextNode(v.rule.title + ", "));
          li.appendChild(cite);
          li.appendChild(document.createTextNode("."));
          if (v.never) {
            const names = Object.keys(v.never);
            li.appendChild(el("span", " No list can meet this rule: no unit or squad of the ruleset counts towards "
              + names.join(" or ").replace(/_/g, " ") + ", and warscribe army check counts "
              + names.map(function (k) { return k.replace(/_/g, " ") + " as " + v.never[k]; }).join(" and ") + ".",
              "ws-army-never"));
          }
          ul.appendChild(li);
        });
        verdict.appendChild(ul);
      }
      got.unchecked.forEach(function (r) {
        verdict.appendChild(el("p", r.unknown ? "Not checked (" + r.why + "): " + r.message
          : "Not checked here (" + r.why + "): " + r.message + " Check the list file with warscribe army check.", "ws-army-unchecked"));
      });
      text.value = listText(data, got.army, state.units, got.limit, state.name);
      caption.textContent = state.name.trim() || "Your list";
      printHead.textContent = data.title + ": " + army.title
        + (army.sizes.length || got.limit ? ", a game of " + got.limit + " points" : "") + ".";
      cli.textContent = "On the command line: " + command(data, got.army, got.limit, data.ruleset + "-army.txt");
      try { localStorage.setItem(KEY, JSON.stringify({ army: got.army, text: text.value, limit: got.limit })); }
      catch (err) { /* storage may be off */ }
      if (cardBox.childNodes.length || state.units.length) cards();
    }

    /* The units' datasheet cards, from the datasheets page (the site's own, cleaned HTML). */
    function cards() {
      const link = document.getElementById("ws-army-sheets");
      if (!link) return Promise.resolve();
      const got = sheets || fetch(link.href).then(function (r) { return r.text(); })
        .then(function (html) { return new DOMParser().parseFromString(html, "text/html"); });
      sheets = got;
      return got.then(function (doc) {
        cardBox.textContent = "";
        const seen = new Set();
        const ids = [];
        state.units.forEach(function (u) {
          const e = entryOf(data, u.id);
          [e.id, e.unit].forEach(function (id) { if (id && !seen.has(id)) { seen.add(id); ids.push(id); } });
        });
        if (ids.length) cardBox.appendChild(el("h2", "Datasheets of the list"));
        ids.forEach(function (id) {
          const found = doc.getElementById(id);
          if (!found) return;
          let card = found.closest(".ws-card");
          if (!card) {  // a unit with only a stat line: its row of the table it shares
            const t = found.closest("table");
            if (!t) return;
            card = t.cloneNode(true);
            card.querySelectorAll("tbody tr").forEach(function (tr) { if (!tr.querySelector("[id='" + id + "']")) tr.remove(); });
          } else {
            card = card.cloneNode(true);
          }
          card.querySelectorAll("[id]").forEach(function (x) { x.removeAttribute("id"); });
          card.querySelectorAll(".headerlink").forEach(function (x) { x.remove(); });
          card.querySelectorAll("a[href]").forEach(function (a) { a.href = new URL(a.getAttribute("href"), link.href).href; });
          card.classList.add("ws-army-card");
          cardBox.appendChild(document.importNode(card, true));
        });
      }).catch(function () { cardBox.textContent = "The datasheets could not be loaded."; });
    }

    render();
    root.dataset.ready = "yes";
  }

  function boot() {
    const root = document.getElementById("ws-army"), link = document.getElementById("ws-army-data");
    if (!root || !link || root.dataset.ready) return;
    link.parentNode.hidden = true;
    fetch(link.href).then(function (r) { return r.json(); }).then(function (d) { start(root, d); })
      .catch(function () { root.textContent = "The army builder's data could not be loaded."; });
  }
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(boot);
  else document.addEventListener("DOMContentLoaded", boot);
})();
