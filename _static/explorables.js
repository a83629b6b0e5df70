/*
 * Explorables for the neardup-lab book: small widgets that run in the page.
 *
 * No kernel, no network, no framework. A chapter places an empty placeholder,
 *
 *     <div class="nd-explorable" data-explorable="s-curve"></div>
 *
 * and this script renders the widget into it when the page loads. Widgets:
 *
 *   shingle-overlap  two texts, their word shingles, the shared ones, Jaccard (chapter 2)
 *   minhash-error    simulated MinHash estimates against sqrt(J(1-J)/k) (chapter 4)
 *   s-curve          the banding S-curve, its error areas, the best bands and rows (chapters 7-8)
 *   block-table      block tables for Hamming search: chance seen, candidates, memory (chapter 13)
 *
 * Every number a widget shows is computed the way the Python package neardup_lab
 * computes it, and the book's browser tests compare them. Displayed numbers are
 * rounded; each <output> also carries its full-precision value in data-value.
 *
 * Reading order: page helpers, then one section per widget (its arithmetic first,
 * then its page), then start-up.
 */
(function () {
  "use strict";

  // ------------------------------------------------------------------ page helpers

  let instances = 0;

  /** An element with attributes (on* keys become listeners) and children. */
  function el(tag, attrs, ...children) {
    const svg = tag.startsWith("svg:");
    const node = svg
      ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
      : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child !== null && child !== undefined && child !== false) {
        node.append(child instanceof Node ? child : String(child));
      }
    }
    return node;
  }

  /** A fresh id prefix, so that two widgets on one page never share an id. */
  function prefixFor(name) {
    instances += 1;
    return `nd-${name}-${instances}-`;
  }

  /** A labelled control: <label for> + <input> (+ an <output> echoing a slider's value). */
  function control(ids, key, label, attrs, format) {
    const id = ids + key;
    const input = el("input", Object.assign({ id, name: key, "data-key": key }, attrs));
    const parts = [el("label", { for: id, text: label }), input];
    let echo = null;
    if (attrs.type === "range") {
      echo = el("output", { for: id, class: "nd-echo", "aria-hidden": "true" });
      parts.push(echo);
    }
    const show = () => {
      if (echo) echo.textContent = format ? format(Number(input.value)) : input.value;
    };
    input.addEventListener("input", show);
    show();
    return { row: el("div", { class: "nd-control" }, parts), input, show };
  }

  /** A result line: a term and an <output> announced politely when it changes. */
  function result(ids, key, label) {
    const output = el("output", { id: ids + key, "data-key": key, "aria-live": "polite" });
    return { dt: el("dt", { text: label }), dd: el("dd", {}, output), output };
  }

  function resultList(items) {
    return el("dl", { class: "nd-results" }, items.map((item) => [item.dt, item.dd]));
  }

  /** Show ``text``; keep the full-precision ``value`` (if any) in data-value. */
  function put(output, text, value) {
    output.textContent = text;
    if (value === undefined) output.removeAttribute("data-value");
    else output.setAttribute("data-value", typeof value === "string" ? value : JSON.stringify(value));
  }

  function intValue(input, low, high) {
    const value = Number(input.value);
    if (!Number.isInteger(value) || value < low || value > high) {
      throw new RangeError(`${input.dataset.key} must be a whole number from ${low} to ${high}, got "${input.value}"`);
    }
    return value;
  }

  function numberValue(input, low, high) {
    const value = Number(input.value);
    if (input.value.trim() === "" || !Number.isFinite(value) || value < low || value > high) {
      throw new RangeError(`${input.dataset.key} must be a number from ${low} to ${high}, got "${input.value}"`);
    }
    return value;
  }

  const fixed = (digits) => (x) => x.toFixed(digits);
  const grouped = (n) => n.toLocaleString("en-US");

  function significant(x, digits) {
    if (x === 0) return "0";
    if (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6) return String(Number(x.toPrecision(digits)));
    return x.toExponential(digits - 1).replace("e", " × 10^").replace("^+", "^");
  }

  function bytesText(n) {
    const units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let value = n;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit += 1;
    }
    return unit === 0 ? `${grouped(n)} bytes` : `${significant(value, 3)} ${units[unit]}`;
  }

  /** Run ``update`` now and after every change of ``inputs``; show its errors in ``status``.
   *  ``update`` learns whether a slider is still being dragged (an "input" event from a
   *  range; its "change" follows when it is let go), to put off slow work until then. */
  function wire(inputs, status, update) {
    const run = (event) => {
      const dragging = Boolean(event && event.type === "input" && event.target.type === "range");
      try {
        status.textContent = "";
        status.hidden = true;
        update(dragging, event);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        status.textContent = error.message;
        status.hidden = false;
      }
    };
    for (const input of inputs) {
      input.addEventListener("input", run);
      if (input.type === "range") input.addEventListener("change", run);
    }
    run(null);
  }

  function statusLine() {
    return el("p", { class: "nd-status", role: "alert", hidden: true });
  }

  /** A chart: an <svg role="img"> whose <title> and <desc> are its text alternative. */
  function chart(ids, key, width, height) {
    const title = el("svg:title", { id: ids + key + "-title" });
    const desc = el("svg:desc", { id: ids + key + "-desc" });
    const svg = el("svg:svg", {
      class: "nd-chart",
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-labelledby": `${ids}${key}-title ${ids}${key}-desc`,
      "data-key": key,
    });
    svg.append(title, desc);
    return { svg, title, desc, clear: () => svg.replaceChildren(title, desc) };
  }

  function frame(title, intro, ...parts) {
    return [el("p", { class: "nd-title", text: title }), el("p", { class: "nd-intro" }, intro), ...parts];
  }

  /** Axes for a plot area [x0, x1] x [y0, y1] in svg units, with ticks and labels. */
  function axes(svg, box, xTicks, yTicks, xLabel, yLabel) {
    const g = el("svg:g", { class: "nd-axes" });
    g.append(el("svg:line", { x1: box.x0, y1: box.y1, x2: box.x1, y2: box.y1 }));
    g.append(el("svg:line", { x1: box.x0, y1: box.y0, x2: box.x0, y2: box.y1 }));
    for (const [value, x] of xTicks) {
      g.append(el("svg:line", { x1: x, y1: box.y1, x2: x, y2: box.y1 + 4 }));
      g.append(el("svg:text", { x, y: box.y1 + 15, "text-anchor": "middle", text: value }));
    }
    for (const [value, y] of yTicks) {
      g.append(el("svg:line", { x1: box.x0 - 4, y1: y, x2: box.x0, y2: y }));
      g.append(el("svg:text", { x: box.x0 - 7, y: y + 4, "text-anchor": "end", text: value }));
    }
    g.append(el("svg:text", { x: (box.x0 + box.x1) / 2, y: box.y1 + 31, "text-anchor": "middle", text: xLabel }));
    const yMid = (box.y0 + box.y1) / 2;
    g.append(
      el("svg:text", {
        x: 12,
        y: yMid,
        "text-anchor": "middle",
        transform: `rotate(-90 12 ${yMid})`,
        text: yLabel,
      }),
    );
    svg.append(g);
  }

  // =================================================================== shingle overlap
  //
  // neardup_lab.text: normalize (NFKC, casefold, every Unicode punctuation or symbol
  // character to a space), words (split on whitespace), word_shingles (k consecutive
  // words joined by one space; a text shorter than k words is one shingle of all its
  // words; an empty text none) and jaccard (two empty sets are identical: 1.0).

  // What Python's str.split() splits on, before and after NFKC (JavaScript's \s is not it).
  const WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
  const SEPARATOR = /[\p{P}\p{S}]/gu;

  /** Case folding, close to Python's str.casefold (upper then lower folds ß to ss, ς to σ). */
  function casefold(text) {
    return text.toUpperCase().toLowerCase().replace(/ς/g, "σ");
  }

  function words(text) {
    const folded = /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : casefold(text.normalize("NFKC"));
    return folded.replace(SEPARATOR, " ").split(WHITESPACE).filter((w) => w !== "");
  }

  /** The distinct k-word shingles of ``text``, in order of first appearance. */
  function wordShingles(text, k) {
    const tokens = words(text);
    if (tokens.length < k) return tokens.length ? [tokens.join(" ")] : [];
    const seen = new Set();
    for (let i = 0; i + k <= tokens.length; i++) seen.add(tokens.slice(i, i + k).join(" "));
    return Array.from(seen);
  }

  function jaccard(a, b) {
    if (a.size === 0 && b.size === 0) return 1.0;
    let inter = 0;
    for (const item of a) if (b.has(item)) inter += 1;
    return inter / (a.size + b.size - inter);
  }

  const SHINGLES_SHOWN = 150;

  function renderShingleOverlap(root, ids) {
    const textA = el("textarea", { id: ids + "a", "data-key": "a", rows: 4, spellcheck: "false" });
    const textB = el("textarea", { id: ids + "b", "data-key": "b", rows: 4, spellcheck: "false" });
    textA.value = "Heavy rain closed the coastal road on Monday, officials said.";
    textB.value = "Officials said heavy rain closed the coastal road on Monday night.";
    const k = control(ids, "k", "Shingle size k (words)", { type: "number", min: 1, max: 20, step: 1, value: 3 });
    const counts = {
      words: result(ids, "words", "Words (A, B)"),
      shingles: result(ids, "shingles", "Distinct shingles (A, B)"),
      shared: result(ids, "shared", "Shared shingles |A ∩ B|"),
      union: result(ids, "union", "All shingles |A ∪ B|"),
      jaccard: result(ids, "jaccard", "Jaccard |A ∩ B| / |A ∪ B|"),
    };
    const listA = el("ul", { class: "nd-shingles", "data-key": "list-a", "aria-label": "Shingles of text A" });
    const listB = el("ul", { class: "nd-shingles", "data-key": "list-b", "aria-label": "Shingles of text B" });
    const moreA = el("p", { class: "nd-note", hidden: true });
    const moreB = el("p", { class: "nd-note", hidden: true });
    const status = statusLine();

    root.append(
      ...frame(
        "Shingle overlap",
        "Type or paste two texts. Both are normalised and cut into word k-shingles; the shared shingles are " +
          "marked, and Jaccard similarity is the share of all shingles that both texts have.",
        el(
          "div",
          { class: "nd-columns" },
          el("div", { class: "nd-control nd-text" }, el("label", { for: ids + "a", text: "Text A" }), textA),
          el("div", { class: "nd-control nd-text" }, el("label", { for: ids + "b", text: "Text B" }), textB),
        ),
        el("div", { class: "nd-controls" }, k.row),
        status,
        resultList(Object.values(counts)),
        el(
          "div",
          { class: "nd-columns" },
          el("div", {}, el("p", { class: "nd-subtitle", text: "Shingles of A" }), listA, moreA),
          el("div", {}, el("p", { class: "nd-subtitle", text: "Shingles of B" }), listB, moreB),
        ),
        el(
          "p",
          { class: "nd-note" },
          "Marked ",
          el("mark", { text: "✓ like this" }),
          ": the shingle is in both texts. Normalisation is the package's: lower case, every punctuation " +
            "mark or symbol becomes a space, words are split at white space; for ASCII text the shingles " +
            "and Jaccard here equal neardup_lab's word_shingles and jaccard exactly. For other text the page " +
            "applies NFKC and approximates Python's case folding (it folds ß to ss and final ς to σ, not " +
            "every rare letter), using the browser's Unicode tables, which may be a different Unicode " +
            "version from Python's; so a few non-ASCII texts can differ from the package.",
        ),
      ),
    );

    function fill(list, more, shingles, other) {
      list.replaceChildren(
        ...shingles.slice(0, SHINGLES_SHOWN).map((s) =>
          other.has(s)
            ? el("li", { class: "nd-shared", "data-shared": "true" }, el("mark", {}, "✓ ", s))
            : el("li", { text: s }),
        ),
      );
      more.hidden = shingles.length <= SHINGLES_SHOWN;
      more.textContent = `Showing the first ${SHINGLES_SHOWN} of ${grouped(shingles.length)} shingles; all of them count.`;
    }

    wire([textA, textB, k.input], status, () => {
      const size = intValue(k.input, 1, 20);
      const a = wordShingles(textA.value, size);
      const b = wordShingles(textB.value, size);
      const setA = new Set(a);
      const setB = new Set(b);
      const shared = a.filter((s) => setB.has(s)).length;
      const j = jaccard(setA, setB);
      put(counts.words.output, `${words(textA.value).length}, ${words(textB.value).length}`);
      put(counts.shingles.output, `${a.length}, ${b.length}`, [a.length, b.length]);
      put(counts.shared.output, String(shared), shared);
      put(counts.union.output, String(a.length + b.length - shared), a.length + b.length - shared);
      put(counts.jaccard.output, j.toFixed(3), j);
      fill(listA, moreA, a, setB);
      fill(listB, moreB, b, setA);
    });
  }

  // ===================================================================== MinHash error
  //
  // Each of the k values of two MinHash signatures agrees with probability J, the
  // Jaccard similarity, independently of the others; the estimate is the share that
  // agree. So k * estimate ~ Binomial(k, J): mean J, standard deviation sqrt(J(1-J)/k).
  // The simulator draws the k agreements from a seeded generator, so a seed always
  // gives the same histogram.

  /** xoshiro128** seeded by splitmix32: 32-bit integer arithmetic only, same in every browser. */
  function generator(seed) {
    let state = seed >>> 0;
    const splitmix32 = () => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    let a = splitmix32();
    let b = splitmix32();
    let c = splitmix32();
    let d = splitmix32();
    const rotl = (x, n) => (x << n) | (x >>> (32 - n));
    /** A uniform number in [0, 1) with 32 random bits. */
    return () => {
      const out = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
      const t = b << 9;
      c ^= a;
      d ^= b;
      b ^= c;
      a ^= d;
      c ^= t;
      d = rotl(d, 11);
      return out / 4294967296;
    };
  }

  /** ``draws`` simulated estimates of J from k agreements each: counts of agreeing values. */
  function simulateAgreements(j, k, draws, seed) {
    const next = generator(seed);
    const agreements = new Int32Array(draws);
    for (let i = 0; i < draws; i++) {
      let agree = 0;
      for (let v = 0; v < k; v++) if (next() < j) agree += 1;
      agreements[i] = agree;
    }
    return agreements;
  }

  /** How far the measured standard deviation of ``draws`` estimates strays from the formula:
   *  one standard error, sqrt(mu4 - sigma^4) / (2 sigma sqrt(draws)), with the binomial's
   *  fourth central moment mu4 = sigma^4 (3 + (1 - 6pq) / (kpq)). */
  function spreadStandardError(j, k, draws) {
    const pq = j * (1 - j);
    if (pq === 0) return 0;
    return (Math.sqrt(pq / k) * Math.sqrt(2 + (1 - 6 * pq) / (k * pq))) / (2 * Math.sqrt(draws));
  }

  const MAX_K = 1024;
  const MAX_DRAWS = 10000;

  function renderMinhashError(root, ids) {
    const jSlider = control(ids, "j", "Jaccard similarity J", { type: "range", min: 0, max: 1, step: 0.01, value: 0.5 }, fixed(2));
    const kInput = control(ids, "k", `Signature length n (1 to ${MAX_K})`, { type: "number", min: 1, max: MAX_K, step: 1, value: 128 });
    const drawsInput = control(ids, "draws", `Simulated pairs (10 to ${grouped(MAX_DRAWS)})`, {
      type: "number",
      min: 10,
      max: MAX_DRAWS,
      step: 1,
      value: 2000,
    });
    const seedInput = control(ids, "seed", "Seed", { type: "number", min: 0, max: 4294967295, step: 1, value: 1 });
    const again = el("button", { type: "button", class: "nd-button", text: "Draw again (next seed)" });
    const out = {
      formula: result(ids, "formula-sd", "Standard deviation, formula sqrt(J(1−J)/k)"),
      measured: result(ids, "measured-sd", "Standard deviation, measured"),
      mean: result(ids, "mean", "Mean of the estimates"),
      range: result(ids, "range", "Smallest and largest estimate"),
      band: result(ids, "tolerance", "Measured spread expected within (4 standard errors)"),
    };
    const plot = chart(ids, "histogram", 360, 230);
    const status = statusLine();

    again.addEventListener("click", () => {
      seedInput.input.value = String((Number(seedInput.input.value) + 1) % 4294967296);
      seedInput.input.dispatchEvent(new Event("input"));
    });

    root.append(
      ...frame(
        "MinHash error simulator",
        "Each of the k values of two signatures agrees with probability J, so the estimate, the share of " +
          "values that agree, scatters around J. Draw many estimates and compare their spread with the formula.",
        el("div", { class: "nd-controls" }, jSlider.row, kInput.row, drawsInput.row, seedInput.row, again),
        status,
        plot.svg,
        resultList(Object.values(out)),
      ),
    );

    wire([jSlider.input, kInput.input, drawsInput.input, seedInput.input], status, () => {
      const j = numberValue(jSlider.input, 0, 1);
      const k = intValue(kInput.input, 1, MAX_K);
      const draws = intValue(drawsInput.input, 10, MAX_DRAWS);
      const seed = intValue(seedInput.input, 0, 4294967295);
      const agreements = simulateAgreements(j, k, draws, seed);
      let sum = 0;
      let low = k;
      let high = 0;
      for (const a of agreements) {
        sum += a / k;
        low = Math.min(low, a);
        high = Math.max(high, a);
      }
      const mean = sum / draws;
      let squares = 0;
      for (const a of agreements) squares += (a / k - mean) ** 2;
      const measured = Math.sqrt(squares / draws); // population form, as numpy's std()
      const formula = Math.sqrt((j * (1 - j)) / k);
      const tolerance = 4 * spreadStandardError(j, k, draws);
      put(out.formula.output, formula.toFixed(4), formula);
      put(out.measured.output, measured.toFixed(4), measured);
      put(out.mean.output, mean.toFixed(4), mean);
      put(out.range.output, `${(low / k).toFixed(3)} to ${(high / k).toFixed(3)}`, [low / k, high / k]);
      put(
        out.band.output,
        `${(formula - tolerance).toFixed(4)} to ${(formula + tolerance).toFixed(4)}` +
          (Math.abs(measured - formula) <= tolerance ? " (it is)" : " (it is not: an unlucky seed)"),
        [formula - tolerance, formula + tolerance],
      );
      drawHistogram(plot, agreements, j, k, draws, formula, measured, mean);
    });
  }

  function drawHistogram(plot, agreements, j, k, draws, formula, measured, mean) {
    // One bar per possible estimate a/k when there are few, else groups of equal width.
    const perBar = Math.max(1, Math.ceil((k + 1) / 40));
    const bars = Math.ceil((k + 1) / perBar);
    const counts = new Array(bars).fill(0);
    for (const a of agreements) counts[Math.floor(a / perBar)] += 1;
    const box = { x0: 46, x1: 350, y0: 10, y1: 180 };
    const x = (value) => box.x0 + value * (box.x1 - box.x0);
    const top = Math.max(...counts, 1);
    // Expected counts from the normal curve with the formula's spread, for comparison.
    const width = perBar / k;
    const density = (v) =>
      formula > 0 ? Math.exp(-0.5 * ((v - j) / formula) ** 2) / (formula * Math.sqrt(2 * Math.PI)) : 0;
    const peak = formula > 0 ? draws * width * density(j) : 0;
    const yMax = Math.max(top, peak) * 1.08;
    const y = (count) => box.y1 - (count / yMax) * (box.y1 - box.y0);
    plot.clear();
    plot.svg.setAttribute("data-counts", JSON.stringify(counts));
    plot.svg.setAttribute("data-per-bar", String(perBar));
    const xTicks = [0, 0.25, 0.5, 0.75, 1].map((v) => [String(v), x(v)]);
    const yTicks = [0, 0.5, 1].map((f) => [String(Math.round(f * yMax)), y(f * yMax)]);
    axes(plot.svg, box, xTicks, yTicks, "estimate of J", "pairs");
    const barGroup = el("svg:g", { class: "nd-bars" });
    counts.forEach((count, i) => {
      if (count === 0) return;
      const left = x((i * perBar) / k);
      const right = x(Math.min(((i + 1) * perBar) / k, 1 + 1 / k));
      const w = Math.max(1, (right - left) * (perBar === 1 ? 0.8 : 0.95));
      barGroup.append(el("svg:rect", { x: left - (perBar === 1 ? w / 2 : 0), y: y(count), width: w, height: box.y1 - y(count) }));
    });
    plot.svg.append(barGroup);
    if (formula > 0) {
      const points = [];
      for (let i = 0; i <= 200; i++) {
        const v = i / 200;
        const centre = perBar === 1 ? v : v - width / 2;
        points.push(`${x(v).toFixed(2)},${y(draws * width * density(centre + (perBar === 1 ? 0 : width / 2))).toFixed(2)}`);
      }
      plot.svg.append(el("svg:polyline", { class: "nd-expected", points: points.join(" ") }));
      for (const edge of [j - formula, j + formula]) {
        if (edge >= 0 && edge <= 1) {
          plot.svg.append(el("svg:line", { class: "nd-marker", x1: x(edge), x2: x(edge), y1: box.y0, y2: box.y1 }));
        }
      }
    }
    plot.svg.append(el("svg:line", { class: "nd-marker nd-strong", x1: x(j), x2: x(j), y1: box.y0, y2: box.y1 }));
    plot.title.textContent = `Histogram of ${grouped(draws)} simulated MinHash estimates, J = ${j.toFixed(2)}, n = ${k}`;
    plot.desc.textContent =
      `Bars: how many of the ${grouped(draws)} estimates fall in each interval of width ${significant(width, 3)}. ` +
      `Curve: the normal distribution with mean J and the formula's standard deviation ${formula.toFixed(4)}; ` +
      `dashed lines at J and J plus or minus one standard deviation. Measured: mean ${mean.toFixed(4)}, ` +
      `standard deviation ${measured.toFixed(4)}.`;
  }

  // ========================================================================== S-curve
  //
  // neardup_lab.lsh: s_curve = 1 - (1 - s^r)^b; approx_threshold = (1/b)^(1/r); the
  // false-positive area is the integral of the S-curve over [0, t] and the false-
  // negative area that of 1 - S-curve over [t, 1]; optimal_params tries bands 1..n, then
  // rows 1..floor(n/bands), and keeps the first (bands, rows) with the strictly smallest
  // fp_weight * fp + fn_weight * fn.
  //
  // Both areas are in closed form, as in lsh.py. With u = s^r and a = 1/r, the integral
  // of (1 - s^r)^b over [0, t] is (1/r) B(t^r; a, b + 1), an incomplete beta function, and
  // over [0, 1] it is the complete (1/r) B(a, b + 1) = prod_{k=1..b} k / (k + a). lsh.py
  // calls scipy.special.betainc; here the incomplete beta is its continued fraction
  // (modified Lentz), taken on the side of the mean where it converges fast, so that the
  // area on that side comes without cancellation. Both agree to about 1e-13.

  const LENTZ_TINY = 1e-300;

  /** The continued fraction of the incomplete beta function B(x; a, b). */
  function betaFraction(a, b, x) {
    let c = 1.0;
    let d = 1.0 - ((a + b) * x) / (a + 1.0);
    if (Math.abs(d) < LENTZ_TINY) d = LENTZ_TINY;
    d = 1.0 / d;
    let fraction = d;
    const step = (term) => {
      d = 1.0 + term * d;
      if (Math.abs(d) < LENTZ_TINY) d = LENTZ_TINY;
      c = 1.0 + term / c;
      if (Math.abs(c) < LENTZ_TINY) c = LENTZ_TINY;
      d = 1.0 / d;
      return d * c;
    };
    for (let m = 1; m <= 100000; m++) {
      fraction *= step((m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)));
      const change = step((-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1)));
      fraction *= change;
      if (Math.abs(change - 1.0) < 1e-16) break;
    }
    return fraction;
  }

  /** The two integrals of (1 - s^r)^b, over [0, t] and over [t, 1]. */
  function missedMass(threshold, bands, rows) {
    const a = 1.0 / rows;
    const b = bands + 1.0;
    const x = threshold ** rows;
    let whole = 1.0;
    for (let k = 1; k <= bands; k++) whole *= k / (k + a);
    const front = threshold * (1.0 - x) ** b; // x^a (1 - x)^b, as x^a = t
    if (x < (a + 1.0) / (a + b + 2.0)) {
      const below = front * betaFraction(a, b, x); // (1/r) x^a (1-x)^b / a * fraction, and (1/r) / a = 1
      return [below, whole - below];
    }
    const above = (front * betaFraction(b, a, 1.0 - x)) / (rows * b);
    return [whole - above, above];
  }

  /** The S-curve 1 - (1 - s^r)^b, written as lsh.py writes it so the bits agree. */
  function sCurve(s, bands, rows) {
    return 1 - (1 - s ** rows) ** bands;
  }

  function bend(bands, rows) {
    return (1.0 / bands) ** (1.0 / rows);
  }

  function falsePositiveArea(threshold, bands, rows) {
    return threshold - missedMass(threshold, bands, rows)[0];
  }

  function falseNegativeArea(threshold, bands, rows) {
    return missedMass(threshold, bands, rows)[1];
  }

  const bestCache = new Map();
  const optimalKey = (threshold, numPerm, fpWeight, fnWeight) => `${threshold} ${numPerm} ${fpWeight} ${fnWeight}`;
  const hasOptimal = (...args) => bestCache.has(optimalKey(...args));

  /** optimal_params: bands first, then rows; the first strictly smaller weighted error wins. */
  function optimalParams(threshold, numPerm, fpWeight, fnWeight) {
    const key = optimalKey(threshold, numPerm, fpWeight, fnWeight);
    if (bestCache.has(key)) return bestCache.get(key);
    let best = [0, 0];
    let bestError = Infinity;
    for (let bands = 1; bands <= numPerm; bands++) {
      for (let rows = 1; rows <= Math.trunc(numPerm / bands); rows++) {
        const error =
          fpWeight * falsePositiveArea(threshold, bands, rows) + fnWeight * falseNegativeArea(threshold, bands, rows);
        if (error < bestError) {
          best = [bands, rows];
          bestError = error;
        }
      }
    }
    if (bestCache.size > 256) bestCache.clear();
    bestCache.set(key, best);
    return best;
  }

  const MAX_PERM = 1024;

  function renderSCurve(root, ids) {
    const num = control(ids, "num-perm", `Signature length (values, 1 to ${MAX_PERM})`, {
      type: "number",
      min: 1,
      max: MAX_PERM,
      step: 1,
      value: 128,
    });
    const bands = control(ids, "bands", "Bands b", { type: "range", min: 1, max: 128, step: 1, value: 20 });
    const rows = control(ids, "rows", "Rows per band r", { type: "range", min: 1, max: 128, step: 1, value: 5 });
    const threshold = control(ids, "threshold", "Threshold t", { type: "range", min: 0.01, max: 0.99, step: 0.01, value: 0.8 }, fixed(2));
    const fpw = control(ids, "fp-weight", "False-positive weight", { type: "range", min: 0, max: 1, step: 0.01, value: 0.5 }, fixed(2));
    const fnw = control(ids, "fn-weight", "False-negative weight", { type: "range", min: 0, max: 1, step: 0.01, value: 0.5 }, fixed(2));
    const follow = el("input", { type: "checkbox", id: ids + "follow", "data-key": "follow", checked: true });
    const followRow = el(
      "div",
      { class: "nd-control nd-check" },
      follow,
      el("label", { for: ids + "follow", text: "Keep bands and rows at the best choice" }),
    );
    const out = {
      p: result(ids, "p-threshold", "P(candidate) at the threshold"),
      bend: result(ids, "bend", "Bend of the curve (1/b)^(1/r)"),
      fp: result(ids, "fp-area", "False-positive area (below t, under the curve)"),
      fn: result(ids, "fn-area", "False-negative area (above t, over the curve)"),
      error: result(ids, "error", "Weighted error"),
      best: result(ids, "best", "Best bands × rows for this length and these weights"),
      bestError: result(ids, "best-error", "Weighted error of the best"),
    };
    const fit = el("p", { class: "nd-note", "data-key": "fit" });
    const plot = chart(ids, "curve", 360, 240);
    const status = statusLine();

    root.append(
      ...frame(
        "S-curve and banding explorer",
        "Cut each signature into b bands of r values; a pair becomes a candidate when one band agrees " +
          "completely, with probability 1 − (1 − s^r)^b for similarity s. The best choice minimises the " +
          "weighted error areas, as neardup_lab.optimal_params does; while the box is ticked, bands and " +
          "rows follow it as you move the threshold, the weights or the signature length. Moving bands " +
          "or rows yourself unticks it.",
        el("div", { class: "nd-controls" }, num.row, threshold.row, fpw.row, fnw.row, followRow, bands.row, rows.row),
        status,
        plot.svg,
        el(
          "p",
          { class: "nd-legend", "aria-hidden": "true" },
          el("span", { class: "nd-swatch nd-swatch-fp" }),
          " false-positive area ",
          el("span", { class: "nd-swatch nd-swatch-fn" }),
          " false-negative area; solid line: threshold t, dashed: the bend",
        ),
        fit,
        resultList(Object.values(out)),
        el(
          "p",
          { class: "nd-note" },
          "The areas are the integrals optimal_params minimises: the curve's area left of the threshold " +
            "(pairs below it proposed anyway) and the area between the curve and 1 right of it (pairs above " +
            "it missed). neardup_lab's own pipeline weighs missed pairs 0.99 and proposed ones 0.01.",
        ),
      ),
    );

    const inputs = [num.input, bands.input, rows.input, threshold.input, fpw.input, fnw.input, follow];
    wire(inputs, status, (dragging, event) => {
      if (event && (event.target === bands.input || event.target === rows.input)) follow.checked = false;
      const n = intValue(num.input, 1, MAX_PERM);
      for (const slider of [bands, rows]) {
        if (Number(slider.input.max) !== n) {
          slider.input.max = String(n);
          slider.show();
        }
      }
      const t = numberValue(threshold.input, 0.01, 0.99);
      const wFp = numberValue(fpw.input, 0, 1);
      const wFn = numberValue(fnw.input, 0, 1);
      let best = null;
      if (wFp === 0 && wFn === 0) {
        put(out.best.output, "(set a weight above 0)");
        put(out.bestError.output, "");
      } else if (dragging && !hasOptimal(t, n, wFp, wFn)) {
        // The search takes a noticeable moment for long signatures: wait until the slider is let go.
        put(out.best.output, "(computed when the slider is let go)");
        put(out.bestError.output, "");
      } else {
        best = optimalParams(t, n, wFp, wFn);
        const bestErr = wFp * falsePositiveArea(t, best[0], best[1]) + wFn * falseNegativeArea(t, best[0], best[1]);
        put(out.best.output, `${best[0]} × ${best[1]} (${best[0] * best[1]} of ${n} values)`, best);
        put(out.bestError.output, significant(bestErr, 4), bestErr);
        if (follow.checked) {
          bands.input.value = String(best[0]);
          rows.input.value = String(best[1]);
          bands.show();
          rows.show();
        }
      }
      const b = intValue(bands.input, 1, n);
      const r = intValue(rows.input, 1, n);
      const p = sCurve(t, b, r);
      const knee = bend(b, r);
      const fp = falsePositiveArea(t, b, r);
      const fn = falseNegativeArea(t, b, r);
      put(out.p.output, p.toFixed(4), p);
      put(out.bend.output, knee.toFixed(3), knee);
      put(out.fp.output, significant(fp, 4), fp);
      put(out.fn.output, significant(fn, 4), fn);
      put(out.error.output, significant(wFp * fp + wFn * fn, 4), wFp * fp + wFn * fn);
      fit.textContent =
        b * r <= n
          ? `${b} × ${r} uses ${b * r} of the ${n} values of a signature.`
          : `${b} × ${r} = ${b * r} needs more values than a signature of ${n} has: use fewer bands or rows.`;
      drawSCurve(plot, b, r, t, p, knee, fp, fn);
    });
  }

  function drawSCurve(plot, b, r, t, p, knee, fp, fn) {
    const box = { x0: 46, x1: 350, y0: 10, y1: 190 };
    const x = (s) => box.x0 + s * (box.x1 - box.x0);
    const y = (q) => box.y1 - q * (box.y1 - box.y0);
    const samples = [];
    for (let i = 0; i <= 100; i++) samples.push(sCurve(i / 100, b, r));
    const fine = (s) => [x(s), y(sCurve(s, b, r))];
    const path = (from, to) => {
      const pts = [];
      for (let i = 0; i <= 200; i++) {
        const s = from + ((to - from) * i) / 200;
        pts.push(fine(s).map((v) => v.toFixed(2)).join(","));
      }
      return pts;
    };
    plot.clear();
    plot.svg.setAttribute("data-curve", JSON.stringify(samples));
    const ticks = [0, 0.25, 0.5, 0.75, 1];
    axes(plot.svg, box, ticks.map((v) => [String(v), x(v)]), ticks.map((v) => [String(v), y(v)]), "similarity s", "P(candidate)");
    const under = path(0, t);
    plot.svg.append(
      el("svg:polygon", { class: "nd-area-fp", points: [`${x(0)},${y(0)}`, ...under, `${x(t)},${y(0)}`].join(" ") }),
    );
    const over = path(t, 1);
    plot.svg.append(el("svg:polygon", { class: "nd-area-fn", points: [`${x(t)},${y(1)}`, ...over, `${x(1)},${y(1)}`].join(" ") }));
    plot.svg.append(el("svg:polyline", { class: "nd-curve", points: path(0, 1).join(" ") }));
    plot.svg.append(el("svg:line", { class: "nd-marker nd-strong", x1: x(t), x2: x(t), y1: box.y0, y2: box.y1 }));
    plot.svg.append(el("svg:line", { class: "nd-marker", x1: x(knee), x2: x(knee), y1: box.y0, y2: box.y1 }));
    plot.svg.append(el("svg:circle", { class: "nd-point", cx: x(t), cy: y(p), r: 3.5 }));
    plot.svg.append(el("svg:text", { class: "nd-label", x: x(t) - 4, y: box.y0 + 10, "text-anchor": "end", text: "t" }));
    plot.svg.append(el("svg:text", { class: "nd-label", x: x(knee) + 4, y: box.y0 + 24, text: "bend" }));
    plot.title.textContent = `S-curve for ${b} bands of ${r} rows, threshold ${t.toFixed(2)}`;
    plot.desc.textContent =
      `The probability of becoming a candidate rises from 0 at similarity 0 to 1 at similarity 1, ` +
      `most steeply near the bend at ${knee.toFixed(3)}. At the threshold ${t.toFixed(2)} it is ${p.toFixed(4)}. ` +
      `Shaded left of the threshold, under the curve: the false-positive area, ${significant(fp, 4)}. ` +
      `Shaded right of it, above the curve: the false-negative area, ${significant(fn, 4)}.`;
  }

  // ====================================================================== block tables
  //
  // neardup_lab.simhash_index.BlockIndex with scheme="permuted": cut the fingerprint
  // into m blocks as equal as possible, wider first (_block_widths), and build one table
  // for every choice of m - k key blocks, in itertools.combinations order. Chapter 13
  // computes, for a layout,
  //   random candidates per query = sum over tables of (N - 1) / 2^(key bits), and
  //   chance seen(d) = share of the C(bits, d) ways to flip d bits that leave the key
  //   blocks of some table untouched.
  // The chapter enumerates every way to flip d bits; here the ways are counted per set
  // of touched blocks, which gives the same integers without the enumeration.

  const MAX_TABLES = 1024; // as BlockIndex refuses more

  function blockWidths(bits, blocks) {
    const base = Math.trunc(bits / blocks);
    const extra = bits % blocks;
    return Array.from({ length: blocks }, (_, i) => (i < extra ? base + 1 : base));
  }

  /** C(n, k) as a number; exact while it stays below 2^53. */
  function choose(n, k) {
    if (k < 0 || k > n) return 0;
    let c = 1;
    for (let i = 1; i <= Math.min(k, n - k); i++) c = (c * (n - i + 1)) / i;
    return Math.round(c);
  }

  /** Every choice of ``size`` items from 0..n-1, in itertools.combinations order. */
  function combinations(n, size) {
    const out = [];
    const pick = [];
    const walk = (start) => {
      if (pick.length === size) {
        out.push(pick.slice());
        return;
      }
      for (let i = start; i <= n - (size - pick.length); i++) {
        pick.push(i);
        walk(i + 1);
        pick.pop();
      }
    };
    walk(0);
    return out;
  }

  function layout(bits, blocks, maxDistance, tables) {
    const widths = blockWidths(bits, blocks);
    const keys = combinations(blocks, blocks - maxDistance).slice(0, tables);
    const keyBits = keys.map((key) => key.reduce((sum, b) => sum + widths[b], 0));
    return { bits, widths, keys, keyBits };
  }

  function randomCandidates(plan, n) {
    let total = 0;
    for (const kb of plan.keyBits) total += (n - 1) / 2 ** kb;
    return total;
  }

  /** The distinct sets of touched blocks that leave some table's key untouched, each with
   *  its blocks' widths: a table sees a neighbour when every block its differing bits touch
   *  lies outside the table's key. */
  function unseenKeysFit(plan) {
    if (plan.fits) return plan.fits;
    const m = plan.widths.length;
    const fits = new Map();
    for (const key of plan.keys) {
      const blocks = [];
      for (let b = 0; b < m; b++) if (!key.includes(b)) blocks.push(b);
      for (let mask = 1; mask < 1 << blocks.length; mask++) {
        const touched = blocks.filter((_, i) => mask & (1 << i));
        const name = touched.join(",");
        if (!fits.has(name)) fits.set(name, touched.map((b) => plan.widths[b]));
      }
    }
    plan.fits = Array.from(fits.values());
    return plan.fits;
  }

  /** Chance that a fingerprint ``d`` bits from the query shares a key with it in some table. */
  function chanceSeen(plan, d) {
    if (d === 0) return 1.0;
    let ways = 0;
    for (const widths of unseenKeysFit(plan)) {
      if (widths.length > d) continue;
      // Ways to flip d bits inside exactly these blocks, touching each: inclusion-exclusion.
      for (let mask = 0; mask < 1 << widths.length; mask++) {
        let width = 0;
        let left = widths.length;
        for (let i = 0; i < widths.length; i++) {
          if (mask & (1 << i)) {
            width += widths[i];
            left -= 1;
          }
        }
        ways += (left % 2 === 0 ? 1 : -1) * choose(width, d);
      }
    }
    return ways / choose(plan.bits, d);
  }

  function renderBlockTable(root, ids) {
    const bits = control(ids, "bits", "Fingerprint bits (8 to 64)", { type: "number", min: 8, max: 64, step: 1, value: 64 });
    const k = control(ids, "max-distance", "Maximum distance k (bits, 0 to 8)", { type: "number", min: 0, max: 8, step: 1, value: 3 });
    const blocks = control(ids, "blocks", "Blocks m", { type: "number", min: 1, max: 64, step: 1, value: 6 });
    const tables = control(ids, "tables", "Tables used", { type: "number", min: 1, max: MAX_TABLES, step: 1, value: 20 });
    const n = control(ids, "n", "Fingerprints stored N", { type: "number", min: 1, max: 1e13, step: 1, value: 1048576 });
    const out = {
      widths: result(ids, "widths", "Block widths (bits, highest block first)"),
      tables: result(ids, "all-tables", "Tables for a guarantee, C(m, k)"),
      keys: result(ids, "key-bits", "Key bits per table"),
      candidates: result(ids, "candidates", "Expected random candidates per query"),
      brute: result(ids, "brute", "Fingerprints brute force compares per query"),
      memory: result(ids, "memory", "Memory of the tables"),
    };
    const seenTable = el("table", { class: "nd-table", "data-key": "seen" });
    const picture = chart(ids, "layout", 360, 120);
    const status = statusLine();

    root.append(
      ...frame(
        "Block-table calculator",
        "Cut every fingerprint into m blocks. Two fingerprints at most k bits apart agree on at least m − k " +
          "whole blocks, so one sorted table per choice of m − k key blocks finds every such neighbour. " +
          "Longer keys mean fewer random candidates per lookup; more tables mean more memory.",
        el("div", { class: "nd-controls" }, bits.row, k.row, blocks.row, tables.row, n.row),
        status,
        resultList(Object.values(out)),
        seenTable,
        picture.svg,
        el(
          "p",
          { class: "nd-note" },
          "As neardup_lab.BlockIndex(scheme=\"permuted\") lays the tables out: it always builds all C(m, k) " +
            "tables. Using fewer (the first ones in its order) saves memory but can miss neighbours within k " +
            "bits. Candidates count each table's random matches, (N − 1) / 2^(key bits) per table; memory is " +
            "8 bytes per fingerprint and table plus 4 for its position (8 from 2^32 fingerprints on).",
        ),
      ),
    );

    let previous = null; // [bits, k, blocks] of the last complete update
    wire([bits.input, k.input, blocks.input, tables.input, n.input], status, () => {
      const width = intValue(bits.input, 8, 64);
      const distance = intValue(k.input, 0, 8);
      if (previous && (previous[0] !== width || previous[1] !== distance)) {
        // A new width or k starts from BlockIndex's default number of blocks, max(k + 1, 2k).
        blocks.input.value = String(Math.min(width, Math.max(distance + 1, 2 * distance)));
      }
      blocks.input.min = String(distance + 1);
      blocks.input.max = String(width);
      const m = intValue(blocks.input, distance + 1, width);
      const all = choose(m, distance);
      if (all > MAX_TABLES) {
        throw new RangeError(
          `${m} blocks with k = ${distance} need C(${m}, ${distance}) = ${grouped(all)} tables ` +
            `(BlockIndex's limit is ${MAX_TABLES}); use fewer blocks`,
        );
      }
      const changed = previous ? previous.join() !== [width, distance, m].join() : Number(tables.input.value) > all;
      if (changed) tables.input.value = String(all); // a new layout starts with all its tables
      previous = [width, distance, m];
      tables.input.max = String(all);
      const used = intValue(tables.input, 1, all);
      const size = intValue(n.input, 1, 1e13);
      const plan = layout(width, m, distance, used);
      const candidates = randomCandidates(plan, size);
      const idBytes = size < 2 ** 32 ? 4 : 8;
      const memory = used * size * (8 + idBytes);
      const keyLow = Math.min(...plan.keyBits);
      const keyHigh = Math.max(...plan.keyBits);
      put(out.widths.output, plan.widths.join(", "), plan.widths);
      put(out.tables.output, `${all}` + (used < all ? ` (using ${used}: neighbours within k can be missed)` : ""), all);
      put(out.keys.output, keyLow === keyHigh ? `${keyLow}` : `${keyLow} to ${keyHigh}`, plan.keyBits);
      put(out.candidates.output, significant(candidates, 4), candidates);
      put(out.brute.output, grouped(size), size);
      put(out.memory.output, bytesText(memory), memory);

      const distances = [];
      for (let d = 0; d <= Math.min(width, distance + 2); d++) distances.push(d);
      const chances = distances.map((d) => chanceSeen(plan, d));
      seenTable.replaceChildren(
        el("caption", { text: "Chance that a stored fingerprint d bits from the query is a candidate" }),
        el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "d (bits)" }), el("th", { scope: "col", text: "chance seen" }))),
        el(
          "tbody",
          {},
          distances.map((d, i) =>
            el(
              "tr",
              {},
              el("th", { scope: "row", text: String(d) }),
              el("td", {}, el("output", { "data-key": `seen-${d}`, "data-value": JSON.stringify(chances[i]), text: chances[i].toFixed(4) })),
            ),
          ),
        ),
      );
      seenTable.setAttribute("data-value", JSON.stringify(chances));
      drawLayout(picture, plan, all);
    });
  }

  function drawLayout(plot, plan, all) {
    const shown = Math.min(plan.keys.length, 12);
    const box = { x0: 62, x1: 354, y0: 6, row: 12 };
    const scale = (box.x1 - box.x0) / plan.bits;
    plot.svg.setAttribute("viewBox", `0 0 360 ${box.y0 + (shown + 1) * box.row + 24}`);
    plot.clear();
    const edges = [0];
    for (const w of plan.widths) edges.push(edges[edges.length - 1] + w);
    const row = (i, label, cls) => {
      const g = el("svg:g", {});
      g.append(el("svg:text", { x: box.x0 - 6, y: box.y0 + i * box.row + 9, "text-anchor": "end", class: "nd-small", text: label }));
      plan.widths.forEach((w, b) => {
        g.append(
          el("svg:rect", {
            x: box.x0 + edges[b] * scale,
            y: box.y0 + i * box.row,
            width: Math.max(w * scale - 1, 0.5),
            height: box.row - 2,
            class: cls(b),
          }),
        );
      });
      plot.svg.append(g);
    };
    row(0, "blocks", () => "nd-block");
    for (let t = 0; t < shown; t++) {
      row(t + 1, `table ${t + 1}`, (b) => (plan.keys[t].includes(b) ? "nd-key" : "nd-free"));
    }
    const more = plan.keys.length - shown;
    plot.svg.append(
      el("svg:text", {
        x: box.x0,
        y: box.y0 + (shown + 1) * box.row + 16,
        class: "nd-small",
        text: more > 0 ? `… and ${more} more tables` : `${plan.keys.length} of ${all} tables`,
      }),
    );
    plot.title.textContent = `Layout of ${plan.widths.length} blocks and ${plan.keys.length} tables`;
    plot.desc.textContent =
      `The ${plan.bits} bits are cut into blocks of ${plan.widths.join(", ")} bits. Each row is a table; ` +
      `its dark blocks are its key: ` +
      plan.keys
        .slice(0, shown)
        .map((key, t) => `table ${t + 1} on blocks ${key.map((b) => b + 1).join(", ")}`)
        .join("; ") +
      (more > 0 ? `; and ${more} more.` : ".");
  }

  // ========================================================================== start-up

  const WIDGETS = {
    "shingle-overlap": renderShingleOverlap,
    "minhash-error": renderMinhashError,
    "s-curve": renderSCurve,
    "block-table": renderBlockTable,
  };

  function renderAll(scope) {
    for (const root of (scope || document).querySelectorAll(".nd-explorable[data-explorable]")) {
      if (root.dataset.ready) continue;
      const name = root.dataset.explorable;
      const render = WIDGETS[name];
      if (!render) {
        root.dataset.ready = "unknown";
        root.replaceChildren(el("p", { class: "nd-status", text: `Unknown explorable "${name}".` }));
        continue;
      }
      root.replaceChildren();
      root.setAttribute("role", "group");
      root.setAttribute("aria-label", name.replace("-", " ") + " explorable");
      render(root, prefixFor(name));
      root.dataset.ready = "true";
    }
  }

  // The arithmetic, for readers who want it in the browser's console.
  window.ndExplorables = {
    render: renderAll,
    text: { words, wordShingles, jaccard },
    minhash: { generator, simulateAgreements, spreadStandardError },
    lsh: { sCurve, bend, falsePositiveArea, falseNegativeArea, optimalParams },
    blocks: { blockWidths, layout, randomCandidates, chanceSeen },
  };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => renderAll());
  else renderAll();
})();
