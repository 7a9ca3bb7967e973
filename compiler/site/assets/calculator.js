/* The matchup calculator: the exact distributions worked out when the site was built, loaded
   only on the calculator page: <ruleset>/calculator.json (the attacks and units), then
   calculator-A-T.json (attacker A's distributions against target T) when a reader picks them.
   Everything from the rules is written with textContent, never as HTML. */
(function () {
  "use strict";
  function gcd(a, b) { a = a < 0n ? -a : a; while (b) { const t = a % b; a = b; b = t; } return a; }
  function frac(n, d) { const g = gcd(n, d) || 1n; return [n / g, d / g]; }
  function fracText(f) { return f[1] === 1n ? String(f[0]) : f[0] + "/" + f[1]; }
  function dec(f) { return Number(f[0] * 1000000n / f[1]) / 1000000; }
  function pct(f) {
    const p = dec(f) * 100;
    if (f[0] === 0n) return "0%";
    if (p < 0.01) return "<0.01%";
    return (p >= 10 ? p.toFixed(1) : p >= 1 ? p.toFixed(2) : p.toFixed(3)).replace(/\.?0+$/, "") + "%";
  }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function select(label, options, onChange) {
    const wrap = el("label", label + " ", "ws-calc-field");
    const s = document.createElement("select");
    options.forEach(function (o) { const op = el("option", o[1]); op.value = o[0]; s.appendChild(op); });
    s.addEventListener("change", onChange);
    wrap.appendChild(s);
    return [wrap, s];
  }
  function start(root, data, base) {
    const parts = {};  // "A-T" -> that attacker's tables against that target, or a promise of them
    function part(unit, target) {
      const a = units[unit], t = units[target];
      if (a.targets.indexOf(t.n) < 0) return {};  // no answer against this target
      const name = a.n + "-" + t.n;
      if (!parts[name]) {
        parts[name] = fetch(new URL("calculator-" + name + ".json", base).href)
          .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
          .then(function (d) { parts[name] = d.tables; return d.tables; });
      }
      return parts[name];
    }
    const units = {}; data.units.forEach(function (u) { units[u.id] = u; });
    const form = el("form", undefined, "ws-calc-form");
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    const out = el("div", undefined, "ws-calc-out");
    out.setAttribute("aria-live", "polite");
    root.appendChild(form); root.appendChild(out);
    const atk = select("Attack", data.attacks.map(function (a) { return [a.id, a.title]; }), rebuild);
    form.appendChild(atk[0]);
    const fields = el("div"); form.appendChild(fields);
    let s = {};
    function counts(max) { const o = []; for (let i = 1; i <= max; i++) o.push([String(i), String(i)]); return o; }
    function rebuild() {
      fields.textContent = "";
      const attack = data.attacks.find(function (a) { return a.id === atk[1].value; });
      const armed = data.units.filter(function (u) { return u.weapons.length; });  // with a weapon that has answers
      s = { attack: attack };
      s.unit = select("Attacker", armed.map(function (u) { return [u.id, u.title]; }), function () { unitChanged(); show(); });
      s.n = select("Models", [], show);
      s.weapon = select("Weapon", [], show);
      const targets = data.units.filter(function (u) { return u.target; });
      s.target = select("Target", targets.map(function (u) { return [u.id, u.title]; }), function () { targetChanged(); show(); });
      s.m = select("Models", [], show);
      [s.unit, s.n, s.weapon, s.target, s.m].forEach(function (x) { fields.appendChild(x[0]); });
      s.sits = attack.situations.map(function (sit) {
        const x = select(sit.title, sit.values.map(function (v) { return [v, v]; }), show);
        x[1].dataset.situation = sit.id;
        fields.appendChild(x[0]);
        return x;
      });
      unitChanged(); targetChanged(); show();
    }
    function fill(sel, options) {
      sel.textContent = "";
      options.forEach(function (o) { const op = el("option", o[1]); op.value = o[0]; sel.appendChild(op); });
    }
    function unitChanged() {
      const u = units[s.unit[1].value];
      fill(s.n[1], counts(u.max)); fill(s.weapon[1], u.weapons);
    }
    function targetChanged() { fill(s.m[1], counts(units[s.target[1].value].max)); }
    function show() {
      const tables = part(s.unit[1].value, s.target[1].value);
      if (typeof tables.then === "function") {
        out.textContent = "";
        delete root.dataset.shown;
        out.appendChild(el("p", "Loading…", "ws-calc-loading"));
        tables.then(show, function () { out.textContent = "The calculator's data could not be loaded."; });
        return;
      }
      out.textContent = "";
      const a = s.attack, unit = s.unit[1].value, weapon = s.weapon[1].value, target = s.target[1].value;
      const n = Number(s.n[1].value), m = Number(s.m[1].value);
      const set = s.sits.map(function (x, i) { return [x[1].dataset.situation, x[1].value, i]; })
        .filter(function (x) { return x[1] !== a.situations[x[2]].values[0]; })
        .sort(function (p, q) { return p[0] < q[0] ? -1 : 1; });
      const key = [a.id, unit, weapon, target, set.map(function (x) { return x[0] + "=" + x[1]; }).join(",")].join("|");
      let line = a.id + "(" + n + " " + unit + ", " + weapon + ", " + m + " " + target + ")." + a.result;
      let withs = "";
      set.forEach(function (x) { withs += " --with '" + x[0] + " = " + x[1] + "'"; });
      root.dataset.shown = key + "|" + n + "|" + m;
      const grid = tables[key];
      const packed = grid && grid[n - 1] && grid[n - 1][m - 1];
      if (!packed) {
        out.appendChild(el("p", set.length > 1 && !a.every
          ? "This combination of situations is outside what was worked out for this site; ask the command line:"
          : "This attack cannot be made against this target under these rules, or it is outside what was worked out for this site:", "ws-calc-none"));
        out.appendChild(el("code", "warscribe eval " + data.ruleset + ' "' + line + '"' + withs));
        return;
      }
      const lo = packed[0], den = BigInt(packed[1]), nums = packed.slice(2).map(function (x) { return BigInt(x); });
      let mean = 0n, tail = den;
      nums.forEach(function (x, i) { mean += BigInt(lo + i) * x; });
      const meanF = frac(mean, den);
      const table = el("table", undefined, "ws-calc-table");
      const head = el("tr");
      ["Result (" + a.result + ")", "Chance", "At least", ""].forEach(function (h) { head.appendChild(el("th", h)); });
      const thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
      const body = el("tbody");
      const top = nums.reduce(function (p, q) { return q > p ? q : p; }, 0n) || 1n;
      nums.forEach(function (x, i) {
        const f = frac(x, den), t = frac(tail, den);
        tail -= x;
        if (x === 0n) return;
        const tr = el("tr", undefined, "ws-calc-row");
        tr.dataset.value = String(lo + i); tr.dataset.p = fracText(f); tr.dataset.atLeast = fracText(t);
        tr.appendChild(el("td", String(lo + i)));
        const c = el("td", pct(f)); c.title = "exactly " + fracText(f); tr.appendChild(c);
        const al = el("td", pct(t)); al.title = "exactly " + fracText(t); tr.appendChild(al);
        const bar = el("td"); const b = el("span", undefined, "ws-calc-bar");
        b.style.width = (Number(x * 1000n / top) / 10) + "%"; b.setAttribute("aria-hidden", "true");
        bar.appendChild(b); tr.appendChild(bar);
        body.appendChild(tr);
      });
      table.appendChild(body);
      const exact = fracText(meanF);
      const meanP = el("p", "Mean: " + dec(meanF).toFixed(2) + (exact.length <= 12 && exact.indexOf("/") >= 0 ? " (" + exact + ")" : ""), "ws-calc-mean");
      meanP.dataset.mean = exact;
      out.appendChild(meanP);
      out.appendChild(table);
      out.appendChild(el("p", "The same on the command line:", "ws-calc-cli"));
      out.appendChild(el("code", "warscribe eval " + data.ruleset + ' "' + line + '"' + withs));
    }
    rebuild();
    root.dataset.ready = "yes";
  }
  function boot() {
    const root = document.getElementById("ws-calc"), link = document.getElementById("ws-calc-data");
    if (!root || !link || root.dataset.ready) return;
    link.parentNode.hidden = true;
    fetch(link.href).then(function (r) { return r.json(); }).then(function (d) { start(root, d, link.href); })
      .catch(function () { root.textContent = "The calculator's data could not be loaded."; });
  }
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(boot);
  else document.addEventListener("DOMContentLoaded", boot);
})();
