"""Scores: NoLiMa's ``contains`` metric, and its base score and effective length.

``contains`` (every published config): 1 when any gold answer is a substring of the reply,
case-sensitive, with no normalisation; with ``{CHAR}`` the gold is the drawn character's name.

**Base score**: the *best* accuracy among the short lengths 250, 500 and 1K (those the run
has). The code does not say whether mean or max; the published table settles it: Jamba 1.5
Mini's base is 92.4 with 76.3 at 1K, so a mean of the three would need 250 and 500 to
average 100.45% (tests/nolima/test_scoring.py checks every row). **Effective length**: the
longest length whose accuracy is at least 85% of the base, every length up to it included;
NoLiMa's table starts at 1K and writes "<1K" where 1K falls below. A base at chance (0)
supports no effective length.
"""

from __future__ import annotations

from typing import Sequence

from .grid import BASE_LENGTHS

THRESHOLD = 0.85
CHANCE = 0.0  # an open answer: the drawn name is written nowhere but in the needle


def contains(reply: str, gold: Sequence[str]) -> bool:
    return any(answer in reply for answer in gold)


def base_score(accuracy: dict[int, float]) -> float | None:
    """The best accuracy among NoLiMa's short lengths present (None: none present)."""
    short = [accuracy[length] for length in BASE_LENGTHS if length in accuracy]
    return max(short) if short else None


def effective_length(accuracy: dict[int, float]) -> tuple[int | None, str]:
    """(the effective length, as NoLiMa writes it). None: no base score, or the shortest
    length already below the threshold."""
    base = base_score(accuracy)
    if base is None:
        return None, "no base (needs 250, 500 or 1K)"
    if base <= CHANCE:  # every length holds 85% of nothing: no length to name
        return None, "none (the base is at chance, 0)"
    threshold = THRESHOLD * base
    found = None
    for length in sorted(accuracy):
        if accuracy[length] < threshold:
            break
        found = length
    shown = length_label(found) if found is not None else "none"
    if 1000 in accuracy and (found is None or found < 1000):
        shown = "<1K"
    return found, shown


def length_label(tokens: int) -> str:
    return f"{tokens // 1000}K" if tokens >= 1000 and tokens % 1000 == 0 else str(tokens)


def findings(frame) -> dict:
    """Per needle set and question type: accuracy by length (n, 95% Wilson interval), the
    base score and the effective length; the latent and literal curves side by side."""
    from reporting.analysis.stats import wilson_interval

    if frame.empty or "scores.contains" not in frame:
        return {}
    scored = frame[(frame["outcome"] == "ok") & frame["scores.contains"].notna()]
    if scored.empty:
        return {}
    rows, lines = [], []
    groups = []
    for stem, part in sorted(scored.groupby("params.set")):
        kinds = sorted(part["params.question_type"].unique())
        groups.append((stem, "all", part))
        if len(kinds) > 1:
            groups.extend((stem, kind, part[part["params.question_type"] == kind])
                          for kind in kinds)
    for stem, kind, part in groups:
        curve = {}
        for length, cell in sorted(part.groupby("params.length")):
            hits, total = int(cell["scores.contains"].astype(bool).sum()), len(cell)
            low, high = wilson_interval(hits, total)
            curve[int(length)] = {"accuracy": hits / total, "n": total, "low": low,
                                  "high": high}
        accuracy = {length: point["accuracy"] for length, point in curve.items()}
        base = base_score(accuracy)
        effective, shown = effective_length(accuracy)
        literal = bool(part["params.literal"].iloc[0])
        rows.append({"set": stem, "question_type": kind, "literal": literal,
                     "source": str(part["params.source"].iloc[0]),
                     "curve": {str(k): v for k, v in curve.items()},
                     "base": base, "threshold": None if base is None else THRESHOLD * base,
                     "effective_length": effective, "effective_length_shown": shown})
        points = ", ".join(f"{length_label(k)} {100 * v['accuracy']:.1f}% "
                           f"[{100 * v['low']:.0f}, {100 * v['high']:.0f}] n={v['n']}"
                           for k, v in curve.items())
        base_text = "no base" if base is None else \
            f"base {100 * base:.1f} (thr. {100 * THRESHOLD * base:.1f})"
        lines.append(f"{'literal' if literal else 'latent'} {stem} [{kind}]: {points}; "
                     f"{base_text}; effective length {shown}")
    side = side_by_side(rows)
    return {"curves": rows, "lines": lines + side}


def side_by_side(rows: list[dict]) -> list[str]:
    """The latent and literal curves (all question types) as one table, a line a length."""
    columns = sorted((r for r in rows if r["question_type"] == "all"),
                     key=lambda r: (r["literal"], r["set"]))
    if not any(r["literal"] for r in columns) or all(r["literal"] for r in columns):
        return []
    names = [f"{'literal' if r['literal'] else 'latent'} {r['set']}" for r in columns]
    width = max(len(name) for name in names) + 2
    lines = ["latent vs literal, contains accuracy % (n):",
             "length" + "".join(name.rjust(width) for name in names)]
    for length in sorted({int(k) for r in columns for k in r["curve"]}):
        cells = []
        for r in columns:
            point = r["curve"].get(str(length))
            text = "" if point is None else f"{100 * point['accuracy']:.1f} ({point['n']})"
            cells.append(text.rjust(width))
        lines.append(length_label(length).rjust(6) + "".join(cells))
    return lines
