"""The report's figures (matplotlib), written as SVG and PNG that are byte-identical across runs.

Each function draws one figure and returns its record: file name, title and a caption saying
what it shows, how to read it, the number of applications and the study's value drawn on it.
Determinism: the Agg backend, a fixed SVG hash salt, no creation date or software metadata,
and inputs sorted before plotting. Text from the scanned code (application names, API names)
is drawn with math text off, so a `$` in a name is shown, never interpreted.
"""

from __future__ import annotations

from pathlib import Path

from .metrics import SCOPES
from .study import FULLY_INFERABLE_THRESHOLD, STUDY

COLORS = {"one-shot": "#3a8d5c", "interactive-nonstrict": "#d9a21b", "interactive-strict": "#c0392b",
          "pk": "#4c72b0", "auto": "#dd8452", "study": "#555555", "light": "#dddddd"}
LINESTYLES = {"pk": "-", "auto": "--"}
PANEL_TITLES = {"explicit": "explicit transactions", "autocommit": "autocommit statements",
                "all": "all together (study's denominator)"}
RC = {"svg.hashsalt": "txscan", "font.size": 9, "axes.titlesize": 9.5, "axes.titlelocation": "left",
      "figure.dpi": 100, "axes.spines.top": False, "axes.spines.right": False, "svg.fonttype": "path",
      "text.parse_math": False, "legend.fontsize": 8}


def _pyplot():
    import matplotlib  # lazy: only `txscan report` pays for matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(RC)
    return plt


def _apps(n: int) -> str:
    return f"{n} application" + ("" if n == 1 else "s")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _save(plt, fig, out: Path, name: str, title: str, caption: str) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    # bbox_inches="tight" grows the canvas to every title, label and legend: nothing is clipped.
    fig.savefig(out / f"{name}.svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    fig.savefig(out / f"{name}.png", metadata={"Software": None}, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return {"name": name, "title": title, "caption": caption}


def _same(series: dict[str, list]) -> bool:
    values = list(series.values())
    return all(v == values[0] for v in values[1:])


def _modes_note(same: bool, modes: list[str], apart: str) -> str:
    """How the figure shows the CDA modes; `apart` says how they are told apart when they differ."""
    if len(modes) < 2:
        return f"CDA mode {modes[0]} only."
    if same:
        return f"Identical in both CDA modes ({' and '.join(modes)}), so drawn once."
    return f"The CDA modes differ, so both are drawn: {apart}."


def measured_scopes(survey: dict) -> list[str]:
    return [s for s in SCOPES if survey["scopes"][s]["measured"]]


def _autocommit_note(survey: dict) -> str:
    if survey["autocommit_measured"]:
        return ""
    return (" This store has no autocommit rows (statements outside explicit transactions were not recorded), so"
            " only explicit transactions are drawn; the study's figures count those statements too.")


def interactive_share(blocks: dict[str, dict], out: Path) -> dict:
    """Per application, the share of its transactions that are interactive, sorted, one panel per denominator."""
    plt = _pyplot()
    modes = list(blocks)
    survey = blocks[modes[0]]["survey"]
    scopes = [s for s in measured_scopes(survey) if s != "autocommit"]
    fig, axes = plt.subplots(1, len(scopes), figsize=(5.2 * len(scopes), 3.4), squeeze=False)
    per_mode = {m: {s: [(a["app"], a["scopes"][s]) for a in b["apps"] if a["scopes"][s]["transactions"]]
                    for s in scopes} for m, b in blocks.items()}
    same = _same({m: [[(n, c["nonstrict"], c["strict"]) for n, c in v[s]] for s in scopes]
                  for m, v in per_mode.items()})
    counts = {}
    for ax, scope in zip(axes[0], scopes, strict=True):
        rows = sorted(per_mode[modes[0]][scope], key=lambda nc: (-(nc[1]["interactive_share"] or 0), nc[0]))
        counts[scope] = len(rows)
        xs = range(len(rows))
        nonstrict = [c["nonstrict_share"] or 0 for _, c in rows]
        strict = [c["strict_share"] or 0 for _, c in rows]
        ax.bar(xs, strict, color=COLORS["interactive-strict"], label="strictly interactive", width=0.8)
        ax.bar(xs, nonstrict, bottom=strict, color=COLORS["interactive-nonstrict"],
               label="non-strictly interactive", width=0.8)
        if not same:
            order = {n: i for i, (n, _) in enumerate(rows)}
            other = [(order[n], c["interactive_share"] or 0) for n, c in per_mode[modes[1]][scope] if n in order]
            ax.plot([x for x, _ in other], [y for _, y in other], "_", color="black", markersize=12,
                    label=f"interactive share, CDA {modes[1]}")
        ax.axhline(STUDY["interactive_share_in_other_apps"], color=COLORS["study"], linestyle=":", linewidth=1.2,
                   label="study: 9.6% interactive, pooled over apps that have any")
        none = sum(1 for _, c in rows if not c["interactive"])
        ax.text(0.99, 0.97, f"no interactive transaction: {none} of {len(rows)} apps\n(study: 39% of apps)",
                transform=ax.transAxes, ha="right", va="top", fontsize=8, color=COLORS["study"])
        ax.set_ylim(0, 1.05)
        ax.set_xlim(-0.8, max(len(rows), 1) - 0.2)
        if len(rows) <= 30:
            ax.set_xticks(list(xs), [n for n, _ in rows], rotation=45, ha="right", fontsize=7)
        else:
            ax.set_xticks([])
            ax.set_xlabel("applications, sorted by interactive share")
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{100 * v:.0f}%")
        ax.set_ylabel("share of the application's transactions")
        ax.set_title(f"{PANEL_TITLES[scope]}, N = {_apps(len(rows))}")
    axes[0][0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.42), ncol=2, frameon=False)
    n = ", ".join(f"{_apps(counts[s])} with {PANEL_TITLES[s]}" for s in scopes)
    caption = ("Interactive share per application: one bar per application with at least one transaction, sorted"
               " from most to least interactive; the red part is strictly interactive, the yellow part"
               " non-strictly interactive, so a bar's height is the share of the application's transactions that"
               " are interactive. The dotted line is the study's 9.6% (interactive share pooled over the"
               " applications that have any); the study found no interactive transaction in 39% of applications"
               f" (count in the corner). N: {n}. {_modes_note(same, modes, 'black ticks mark the auto mode')}"
               f"{_autocommit_note(survey)}")
    return _save(plt, fig, out, "interactive_share", "Interactive transactions per application", caption)


def fully_inferable_cdf(blocks: dict[str, dict], out: Path) -> dict:
    """CDF over applications of the share of their transactions with a fully inferable read/write set."""
    plt = _pyplot()
    modes = list(blocks)
    survey = blocks[modes[0]]["survey"]
    scopes = measured_scopes(survey)
    fig, axes = plt.subplots(1, len(scopes), figsize=(4.6 * len(scopes), 3.4), squeeze=False)
    values = {m: {s: sorted(a["scopes"][s]["rw_full_share"] for a in b["apps"] if a["scopes"][s]["transactions"])
                  for s in scopes} for m, b in blocks.items()}
    same = _same(values)
    for ax, scope in zip(axes[0], scopes, strict=True):
        for mode in modes[:1] if same else modes:
            shares = values[mode][scope]
            if shares:
                xs = [0.0] + shares + [1.0]
                ys = [0.0] + [(i + 1) / len(shares) for i in range(len(shares))] + [1.0]
                label = "this survey" + ("" if len(modes) < 2 else " (pk = auto)" if same else f", CDA {mode}")
                ax.step(xs, ys, where="post", color=COLORS[mode], linestyle=LINESTYLES.get(mode, "-"), label=label)
        point_y = 1 - STUDY["apps_with_58pct_fully_inferable"]
        ax.plot([FULLY_INFERABLE_THRESHOLD], [point_y], "D", color=COLORS["study"], zorder=5,
                label="study: 90% of apps have >= 58%")
        ax.axvline(FULLY_INFERABLE_THRESHOLD, color=COLORS["study"], linestyle=":", linewidth=1)
        ax.axhline(point_y, color=COLORS["study"], linestyle=":", linewidth=1)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{100 * v:.0f}%")
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{100 * v:.0f}%")
        ax.set_xlabel("share of an application's transactions\nwith a fully inferable read/write set")
        ax.set_ylabel("share of applications (CDF)")
        ax.set_title(f"{PANEL_TITLES[scope]}, N = {_apps(len(values[modes[0]][scope]))}")
    axes[0][0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.3), ncol=3, frameon=False)
    caption = ("Read/write set inferability per application, as a cumulative distribution: a point (x, y) means"
               " that a share y of the applications have at most a share x of their transactions fully"
               " inferable, so a curve further right is better. The diamond is the study's finding (90% of"
               " applications have at least 58% fully inferable, i.e. the curve should pass at or below 10% at"
               " 58%). N: "
               + "; ".join(f"{_apps(len(values[modes[0]][s]))} with {PANEL_TITLES[s]}" for s in scopes)
               + f". {_modes_note(same, modes, 'pk solid blue, auto dashed orange')}"
               f"{_autocommit_note(survey)}")
    return _save(plt, fig, out, "fully_inferable_cdf", "Fully inferable read/write sets per application (CDF)",
                 caption)


def _grouped_barh(plt, labels: list[str], series: dict[str, list[int]], xlabel: str):
    fig, ax = plt.subplots(figsize=(6.8, 1.4 + 0.3 * max(len(labels), 1) * (1 if len(series) == 1 else 1.6)))
    labels = labels or ["(none)"]
    height = 0.8 / len(series)
    for i, (mode, counts) in enumerate(series.items()):
        counts = counts or [0]
        ys = [len(labels) - 1 - j + (len(series) - 1 - 2 * i) * height / 2 for j in range(len(labels))]
        ax.barh(ys, counts, height=height, color=COLORS.get(mode, COLORS["pk"]),
                label=None if len(series) == 1 else f"CDA {mode}")
        for y, count in zip(ys, counts, strict=True):
            ax.text(count, y, f" {count}", va="center", fontsize=7)
    ax.set_yticks(range(len(labels)), labels[::-1], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_xlim(0, max([max(c or [0]) for c in series.values()] + [1]) * 1.15)
    if len(series) > 1:
        ax.legend(loc="lower right", frameon=False)
    return fig, ax


def _ours(blocks: dict[str, dict], key: str) -> str:
    """This survey's value of a headline figure on the study's denominator (explicit only when autocommit is
    not measured), once when both CDA modes agree."""
    scope = "all" if next(iter(blocks.values()))["survey"]["autocommit_measured"] else "explicit"
    values = {m: _pct(b["survey"]["scopes"][scope]["figures"][key]) for m, b in blocks.items()}
    shown = (next(iter(values.values())) if len(set(values.values())) == 1
             else "; ".join(f"{m}: {v}" for m, v in values.items()))
    return f"this survey {shown}" + ("" if scope == "all" else " (explicit transactions only)")


def _study_note(ax, text: str) -> None:
    ax.text(1.0, 1.02, text, transform=ax.transAxes, ha="right", va="bottom", fontsize=8, color=COLORS["study"])


def mismatches(blocks: dict[str, dict], out: Path, top: int = 15) -> dict:
    plt = _pyplot()
    modes = list(blocks)
    counts = {m: {f"{x['kind']} {x['api']}": x["count"] for x in b["breakdowns"]["mismatch_by_api"]}
              for m, b in blocks.items()}
    labels = sorted(set().union(*counts.values()), key=lambda k: (-max(c.get(k, 0) for c in counts.values()), k))
    shown = labels[:top]
    same = _same(counts)
    series = {m: [counts[m].get(k, 0) for k in shown] for m in (modes[:1] if same else modes)}
    fig, ax = _grouped_barh(plt, shown, series, "statements with a CDA mismatch")
    survey = blocks[modes[0]]["survey"]
    ours = _ours(blocks, "cda_mismatch_share_of_transactions")
    _study_note(ax, f"transactions with a CDA mismatch: study 27%; {ours}")
    n = survey["scopes"]["all"]["applications"]
    caption = (f"The {len(shown)} most frequent statement kinds and APIs with a CDA mismatch (the statement selects"
               " rows by attributes other than the entity's conflict detection attribute, so a reconnaissance"
               f" query is needed), counted over all statements of the {_apps(n)} with transactions;"
               f" {len(labels) - len(shown)} rarer ones are left out. Bars are statements, not transactions. The"
               " note above the plot compares the share of transactions with at least one mismatch with the"
               f" study's 27%. {_modes_note(same, modes, 'pk blue (upper bar), auto orange (lower bar)')}")
    return _save(plt, fig, out, "cda_mismatch_by_api", "CDA mismatches by statement kind and API", caption)


def strict_reasons(blocks: dict[str, dict], out: Path) -> dict:
    plt = _pyplot()
    modes = list(blocks)
    counts = {m: b["breakdowns"]["strict_reasons"] for m, b in blocks.items()}
    labels = sorted(set().union(*counts.values()), key=lambda k: (-max(c.get(k, 0) for c in counts.values()), k))
    same = _same(counts)
    series = {m: [counts[m].get(k, 0) for k in labels] for m in (modes[:1] if same else modes)}
    fig, ax = _grouped_barh(plt, labels, series, "external calls inside strictly interactive transactions")
    ours = _ours(blocks, "strict_share_of_all")
    _study_note(ax, f"strictly interactive share of all transactions: study 0.5%; {ours}")
    n = blocks[modes[0]]["survey"]["scopes"]["all"]["applications"]
    caption = ("Why transactions are strictly interactive: each bar counts the calls of one category (HTTP, email,"
               " queue, cache, storage, ...) that a strictly interactive transaction makes to something outside"
               " the database; a transaction with two such calls counts twice. The note above the plot compares"
               f" the strictly interactive share of all transactions with the study's 0.5%. N = {_apps(n)}."
               f" {_modes_note(same, modes, 'pk blue (upper bar), auto orange (lower bar)')}")
    return _save(plt, fig, out, "strict_reasons", "Strictly interactive transactions by external call", caption)


def rewrites(blocks: dict[str, dict], out: Path) -> dict:
    plt = _pyplot()
    modes = list(blocks)
    keys = ["interactive-nonstrict", "interactive-strict"]
    labels = ["non-strictly interactive", "strictly interactive"]
    data = {m: [(b["breakdowns"]["convertible"][k]["one_shot_after_rewrite"],
                 b["breakdowns"]["convertible"][k]["total"]) for k in keys]
            for m, b in blocks.items()}
    same = _same(data)
    shown = modes[:1] if same else modes
    fig, ax = plt.subplots(figsize=(6.8, 1.6 + 0.7 * len(shown)))
    height = 0.8 / len(shown)
    for i, mode in enumerate(shown):
        ys = [len(keys) - 1 - j + (len(shown) - 1 - 2 * i) * height / 2 for j in range(len(keys))]
        totals = [t for _, t in data[mode]]
        done = [d for d, _ in data[mode]]
        suffix = "" if len(shown) == 1 else f", CDA {mode}"
        ax.barh(ys, totals, height=height, color=COLORS["light"], label="transactions" if i == 0 else None)
        ax.barh(ys, done, height=height, color=COLORS["one-shot"], alpha=1 if i == 0 else 0.6,
                label=f"one-shot after the suggested rewrite{suffix}")
        for y, (d, t) in zip(ys, data[mode], strict=True):
            ax.text(t, y, f" {d}/{t}{suffix}", va="center", fontsize=7)
    ax.set_yticks(range(len(keys)), labels[::-1])
    ax.set_xlabel("transactions")
    ax.set_xlim(0, max([t for m in shown for _, t in data[m]] + [1]) * 1.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3 - 0.1 * len(shown)), ncol=2, frameon=False)
    _study_note(ax, "study: 1shot-hard (convertible) vs mshot; strict = 0.5% of all transactions")
    n = blocks[modes[0]]["survey"]["scopes"]["all"]["applications"]
    caption = ("How many interactive transactions txscan's suggested rewrites make one-shot (green) out of all"
               " interactive transactions of that kind (grey): non-strictly interactive ones are convertible by"
               " construction (the study's 1shot-hard), strictly interactive ones only when the external call can"
               f" move out (e.g. to on_commit; the study's mshot). N = {_apps(n)}."
               f" {_modes_note(same, modes, 'one bar per mode, labelled with its mode')}")
    return _save(plt, fig, out, "rewrites", "Interactive transactions made one-shot by the suggested rewrites",
                 caption)


HEADLINE_ORDER = ["apps_without_interactive", "interactive_share_in_other_apps", "strict_share_of_all",
                  "apps_with_58pct_fully_inferable", "cda_mismatch_share_of_transactions"]
SHORT_LABELS = {"apps_without_interactive": "apps with no interactive txn",
                "interactive_share_in_other_apps": "interactive share (other apps)",
                "strict_share_of_all": "strictly interactive share",
                "apps_with_58pct_fully_inferable": "apps >= 58% fully inferable",
                "cda_mismatch_share_of_transactions": "txns with a CDA mismatch"}
SCOPE_MARKERS = {"explicit": "o", "autocommit": "s", "all": "^"}


def headline(blocks: dict[str, dict], out: Path) -> dict:
    """The study's five figures next to this survey's, one marker per denominator and CDA mode."""
    plt = _pyplot()
    modes = list(blocks)
    survey = blocks[modes[0]]["survey"]
    scopes = measured_scopes(survey)
    fig, ax = plt.subplots(figsize=(6.8, 3.2))
    rows = HEADLINE_ORDER[::-1]
    ax.scatter([STUDY[k] for k in rows], range(len(rows)), marker="D", s=46, color=COLORS["study"], zorder=4,
               label="study")
    offsets = {(m, s): (i - (len(modes) * len(scopes) - 1) / 2) * 0.13
               for i, (m, s) in enumerate((m, s) for m in modes for s in scopes)}
    for mode in modes:
        for scope in scopes:
            figures = blocks[mode]["survey"]["scopes"][scope]["figures"]
            points = [(figures[k], y + offsets[(mode, scope)]) for y, k in enumerate(rows) if figures[k] is not None]
            ax.scatter([x for x, _ in points], [y for _, y in points], marker=SCOPE_MARKERS[scope], s=30,
                       facecolors=COLORS[mode] if mode == "pk" else "none", edgecolors=COLORS[mode], zorder=5,
                       label=f"{PANEL_TITLES[scope].split(' (')[0]}, CDA {mode}")
    ax.set_yticks(range(len(rows)), [SHORT_LABELS[k] for k in rows])
    ax.set_xlim(-0.02, 1.02)
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{100 * v:.0f}%")
    ax.grid(axis="x", color="#eeeeee")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title(f"N = {_apps(survey['scopes']['explicit']['applications'])} with explicit transactions")
    caption = ("The study's five headline figures (grey diamonds) next to this survey's, one marker per denominator"
               " (circle: explicit transactions, square: autocommit statements, triangle: all together, the"
               " study's denominator) and CDA mode (filled: pk, hollow: auto). Read along a row: the further a"
               " marker from the diamond, the more the survey differs from the study. N: "
               + "; ".join(f"{_apps(survey['scopes'][s]['applications'])} with {PANEL_TITLES[s]}" for s in scopes)
               + f".{_autocommit_note(survey)}")
    return _save(plt, fig, out, "headline", "This survey's headline figures next to the study's", caption)


FIGURES = [headline, interactive_share, fully_inferable_cdf, mismatches, strict_reasons, rewrites]


def draw_all(blocks: dict[str, dict], out: Path) -> list[dict]:
    return [figure(blocks, out) for figure in FIGURES]
