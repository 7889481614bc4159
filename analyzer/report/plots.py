"""The report's figures (matplotlib), written as SVG and PNG that are byte-identical across runs.

Determinism: the Agg backend, a fixed SVG hash salt, no creation date or software metadata,
and inputs sorted before plotting.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401

from .study import FULLY_INFERABLE_THRESHOLD, STUDY  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "txscan", "font.size": 9, "axes.titlesize": 10, "axes.titlelocation": "left", "figure.dpi": 100, "axes.spines.top": False,
                     "axes.spines.right": False, "svg.fonttype": "path"})
COLORS = {"one-shot": "#3a8d5c", "interactive-nonstrict": "#d9a21b", "interactive-strict": "#c0392b",
          "bar": "#4c72b0", "study": "#888888"}


def _save(fig, out: Path, name: str) -> str:
    out.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out / f"{name}.svg", metadata={"Date": None, "Creator": None})
    fig.savefig(out / f"{name}.png", metadata={"Software": None}, dpi=110)
    plt.close(fig)
    return name


def interactive_share(per_app: list[dict], out: Path, mode: str) -> str:
    values = sorted(a["interactive_share"] for a in per_app if a["interactive_share"] is not None)
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    ax.hist(values, bins=[i / 10 for i in range(11)], color=COLORS["bar"], edgecolor="white")
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("share of an application's transactions that are interactive")
    ax.set_ylabel("applications")
    ax.set_title(f"Interactive transactions per application (CDA {mode})")
    return _save(fig, out, f"interactive_share_{mode}")


def fully_inferable_cdf(per_app: list[dict], out: Path, mode: str) -> str:
    values = sorted(a["rw_full_share"] for a in per_app if a["rw_full_share"] is not None)
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    if values:
        xs = [0.0] + values + [1.0]
        ys = [0.0] + [(i + 1) / len(values) for i in range(len(values))] + [1.0]
        ax.step(xs, ys, where="post", color=COLORS["bar"], label="this survey")
    point_y = 1 - STUDY["apps_with_58pct_fully_inferable"]
    ax.plot([FULLY_INFERABLE_THRESHOLD], [point_y], "o", color=COLORS["study"],
            label="study: 90% of apps have >= 58% fully inferable")
    ax.axvline(FULLY_INFERABLE_THRESHOLD, color=COLORS["study"], linestyle=":", linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("share of an application's transactions with a fully inferable read/write set")
    ax.set_ylabel("share of applications (CDF)")
    ax.legend(loc="upper left", frameon=False)
    ax.set_title(f"Read/write set inferability (CDA {mode})")
    return _save(fig, out, f"fully_inferable_cdf_{mode}")


def _barh(items: list[tuple[str, int]], out: Path, name: str, title: str, xlabel: str) -> str:
    items = items or [("(none)", 0)]
    fig, ax = plt.subplots(figsize=(6.5, 0.9 + 0.28 * len(items)))
    labels = [label for label, _ in items][::-1]
    counts = [count for _, count in items][::-1]
    ax.barh(labels, counts, color=COLORS["bar"])
    for y, count in enumerate(counts):
        ax.text(count, y, f" {count}", va="center", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return _save(fig, out, name)


def mismatches(breakdown: dict, out: Path, mode: str) -> str:
    items = [(f"{m['kind']} {m['api']}", m["count"]) for m in breakdown["mismatch_by_api"]]
    return _barh(items, out, f"cda_mismatch_by_api_{mode}", f"CDA mismatches by kind and API (CDA {mode})",
                 "statements")


def strict_reasons(breakdown: dict, out: Path, mode: str) -> str:
    items = sorted(breakdown["strict_reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
    return _barh(items, out, f"strict_reasons_{mode}", f"Strict reasons by category (CDA {mode})",
                 "reasons (one per external call)")


def rewrites(breakdown: dict, out: Path, mode: str) -> str:
    labels = ["non-strictly interactive", "strictly interactive"]
    keys = ["interactive-nonstrict", "interactive-strict"]
    totals = [breakdown["convertible"][k]["total"] for k in keys]
    converted = [breakdown["convertible"][k]["one_shot_after_rewrite"] for k in keys]
    fig, ax = plt.subplots(figsize=(6.5, 2.6))
    ax.barh(labels, totals, color="#dddddd", label="transactions")
    ax.barh(labels, converted, color=COLORS["one-shot"], label="one-shot after the suggested rewrite")
    for y, (total, done) in enumerate(zip(totals, converted, strict=True)):
        ax.text(total, y, f" {done}/{total}", va="center", fontsize=8)
    ax.set_xlabel("transactions")
    ax.set_xlim(0, max(totals + [1]) * 1.25)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2, frameon=False, fontsize=7)
    ax.set_title(f"Interactive transactions one-shot after the suggested rewrites (CDA {mode})")
    return _save(fig, out, f"rewrites_{mode}")
