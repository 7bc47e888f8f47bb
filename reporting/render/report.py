"""The self-contained HTML report of a run (and of a comparison of runs).

One file, no network: plots are embedded as base64 PNGs, the overview's small curves are
inline SVG, styles are inline, there is no script. Its first screen says what the run shows:
one line naming the model, then the overview (per experiment the headline metric and
interval, the verdict or "no verdict" with its reason, a small curve, a link to its section),
then the gate. Then per experiment its verdict, findings, published reference rows (where
the run is comparable), curve tables, plots, its summary table (counts and 95% intervals,
from ``summary.summarize``) and, per grid cell, the samples behind it, worst first. Who the
run was in full (endpoint host, judge, sampling, scale, seeds, versions) comes last.
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from reporting import plots
from reporting.gating.compare import CellDelta, RunData, format_deltas, run_identity
from reporting.analysis import published
from reporting.analysis.blocks import interval_text
from reporting.analysis.curve_tables import (WITH_BLOCKED, CurvePoint, curve, curve_axes,
                                             matrix, number, short, value_text)
from reporting.experiments import Experiment
from reporting.storage.records import OUTCOMES
from reporting.storage.store import experiment_frames
from reporting.analysis.summary import cached_share, cached_total, cell_label, summarize
from reporting.analysis.verdict_settings import (ABSOLUTE_EFFECTIVE_LENGTH, EFFECTIVE_LENGTH, LENGTH_AUC,
                               VerdictSettings)
from reporting.analysis.verdicts import (MORE_SAMPLES, NO_LENGTH_AXIS, TOO_FEW_SAMPLES, Verdict,
                                        estimate_text, verdicts_first)
from reporting.analysis.verdicts import verdicts as compute_verdicts

SAMPLES_PER_CELL = 10  # the worst ones; every record is in samples.jsonl and the store
PROMPT_EXCERPT = 400
OUTPUT_EXCERPT = 1200

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: .6em 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; border: 1px solid #eee; margin: .4em 0; display: block; }
.plots { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: .5em; }
.plots img { margin: 0; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font-size: 12px;
      max-height: 16em; overflow: auto; background: #fafafa; }
details { margin: .3em 0; } summary { cursor: pointer; }
.bad { color: #b00020; font-weight: 600; } .muted { color: #777; }
.lede { margin: .2em 0 .8em; } #overview td { vertical-align: middle; }
#overview .why { font-size: 12px; color: #555; max-width: 34em; }
#overview td:last-child { font-size: 12px; max-width: 11em; }
#overview .shows { font-size: 12px; color: #555; margin-top: .3em; max-width: 22em; }
svg.spark + .axes { font-size: 11px; color: #777; }
svg.spark { display: block; } svg.spark .band { fill: #c9dcf0; }
svg.spark .line { fill: none; stroke: #1f5fa8; stroke-width: 1.6; }
svg.spark .dot { fill: #1f5fa8; }
tr.published td { color: #555; font-style: italic; }
"""
SPARK_WIDTH, SPARK_HEIGHT, SPARK_PAD = 160, 38, 4


# -- plots -------------------------------------------------------------------------------
def render_plots(frame: pd.DataFrame, experiments: dict[str, Experiment], plots_dir: Path,
                 warn: Callable[[str], None] = lambda message: None) -> dict[str, list[Path]]:
    """Each experiment's declared plots, drawn from its records into ``plots_dir/<name>/``."""
    rendered: dict[str, list[Path]] = {}
    if frame.empty:
        return rendered
    try:
        with plots.parallel_writes():
            for name, part in experiment_frames(frame):
                experiment = experiments.get(name)
                if experiment is None or experiment.render is None:
                    continue
                out = plots_dir / name
                out.mkdir(parents=True, exist_ok=True)
                try:
                    rendered[name] = list(experiment.renderer()(part, out))
                    # every experiment's: reasoning tokens by length, where any were spent
                    if thinking := plots.reasoning_curve(part, experiment, out):
                        rendered[name].append(thinking)
                except Exception as error:  # a plot bug must not lose the records or report
                    rendered[name] = []
                    warn(f"contextrot: plots of {name} failed: {type(error).__name__}: "
                         f"{error}")
    except plots.FigureWriteError as error:
        for name, paths in rendered.items():
            if failed := [p for p in paths if p in error.failures]:
                warn(f"contextrot: plots of {name} failed: " +
                     "; ".join(f"{p.name}: {error.failures[p]}" for p in failed))
                rendered[name] = [p for p in paths if p not in error.failures]
    return rendered


def image_tag(path: Path, alt: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


# -- pieces ------------------------------------------------------------------------------
def escape(value) -> str:
    return html.escape("" if value is None else str(value))


def html_table(header: Sequence[str] | None, rows: Sequence[Sequence],
               numeric: set[int] = frozenset(), *, table_id: str = "",
               row_classes: Sequence[str] = ()) -> str:
    """Cells are HTML already (escape values with ``escape``); numeric columns are escaped
    here. ``row_classes``: a CSS class per row ("" for none)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header) if header else ""
    head = f"<thead><tr>{head}</tr></thead>" if head else ""
    classes = [*row_classes, *[""] * (len(rows) - len(row_classes))]
    body = "".join(
        (f'<tr class="{escape(c)}">' if c else "<tr>")
        + "".join(f'<td class="num">{escape(v)}</td>' if i in numeric else f"<td>{v}</td>"
                  for i, v in enumerate(row)) + "</tr>" for row, c in zip(rows, classes))
    opening = f'<table id="{escape(table_id)}">' if table_id else "<table>"
    return f"{opening}{head}<tbody>{body}</tbody></table>"


def _excerpt(text: str | None, limit: int) -> str:
    if not isinstance(text, str):  # None, or NaN where the frame mixes skipped samples in
        return ""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} [... {len(text) - 2 * half} characters ...] {text[-half:]}"


def identity_section(run_id: str, info: dict, frame: pd.DataFrame, *, started: str = "",
                     finished: str = "", exit_status=None) -> str:
    identity = run_identity(info, frame)
    counts = frame["outcome"].value_counts().to_dict() if not frame.empty else {}
    rows = [
        ("run", escape(run_id)), ("model", escape(identity["model"])),
        ("endpoint host", escape(identity["endpoint"] or "—")),
        ("judge", escape(identity["judge"])),
        ("tokenizer (target lengths)", escape(identity["tokenizer"] or "o200k_base")),
        ("sampling", escape(", ".join(f"{k}={v}" for k, v in identity["sampling"].items())
                            or "—")),
        ("generation settings", escape(", ".join(
            f"{k}={v}" for k, v in identity.get("generation", {}).items()) or "none set")),
        ("protocol", escape(", ".join(f"{k}={v}" for k, v in
                                      identity.get("protocol", {}).items()) or "—")),
        ("scale", escape(identity["scale"] or "—")),
        ("seeds", escape(", ".join(f"{k}={v}" for k, v in identity["seeds"].items())
                     or "fixed in each experiment's grid")),
        ("samples", escape(f"{len(frame)} recorded: " + ", ".join(
            f"{o} {counts.get(o, 0)}" for o in OUTCOMES))),
        ("prompt tokens cached", escape(cached_share(
            int(frame["prompt_tokens"].fillna(0).sum()) if "prompt_tokens" in frame else 0,
            cached_total(frame) if not frame.empty else None))),
        ("started / finished", escape(f"{started or '—'} / {finished or '—'}")),
        ("exit status", escape("—" if exit_status is None else exit_status)),
        ("python, platform", escape(f"{info.get('python', '—')}, {info.get('platform', '—')}")),
        ("versions", escape(", ".join(f"{k} {v}" for k, v in identity["versions"].items()))),
    ]
    if info.get("missing"):
        rows.append(("missing samples", f'<span class="bad">{len(info["missing"])} sent no '
                                        f"record: {escape(', '.join(info['missing'][:10]))}"
                                        "</span>"))
    return "<h2 id='run'>Run</h2>" + html_table(None, [(f"<b>{k}</b>", v) for k, v in rows])


def summary_table(experiment: Experiment, rows: list[dict]) -> str:
    metric = experiment.metric.split(".")[-1]
    blocks = any(row.get("with_blocked") for row in rows)  # the rate with them, beside it
    header = ["cell", f"{metric} (mean)", "95% interval", "n scored", *OUTCOMES,
              *([WITH_BLOCKED] if blocks else []), "tokens in / out", "time s"]
    body = []
    for row in rows:
        interval = "—" if row["ci_low"] is None else \
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        mean = "—" if row["mean"] is None else f"{row['mean']:.3f}"
        body.append([escape(" ".join(f"{k}={v}" for k, v in row["cell"].items())), mean, interval,
                     row["n"], *(row["outcomes"][o] for o in OUTCOMES),
                     *([interval_text(row.get("with_blocked"))] if blocks else []),
                     f"{row['prompt_tokens']} / {row['completion_tokens']}" + (
                         "" if row.get("cached_tokens") is None
                         else f" ({row['cached_tokens']} cached)"),
                     f"{row['latency_s']:.1f}"])
    return html_table(header, body, numeric=set(range(1, len(header))))


def _worst_first(cell: pd.DataFrame, experiment: Experiment) -> pd.DataFrame:
    """Harness failures first (no score at all), then the lowest (or highest) scores."""
    cell = cell.copy()
    cell["_unscored"] = cell["outcome"] != "ok"
    metric = cell[experiment.metric] if experiment.metric in cell else pd.Series(math.nan,
                                                                                  cell.index)
    cell["_order"] = pd.to_numeric(metric, errors="coerce")
    return cell.sort_values(["_unscored", "_order"], ascending=[False,
                                                                experiment.higher_is_better],
                            na_position="first", kind="stable")


def samples_section(frame: pd.DataFrame, experiment: Experiment) -> str:
    if frame.empty:
        return ""
    frame = frame.copy()
    for column in experiment.cell:
        if column not in frame:
            frame[column] = None
    score_columns = sorted(c for c in frame.columns if c.startswith("scores."))
    parts = ["<h3>Samples behind each cell, worst first</h3>"]
    for _, cell in frame.groupby(list(experiment.cell), sort=True, dropna=False):
        ordered = _worst_first(cell, experiment)
        shown = ordered.head(SAMPLES_PER_CELL)
        rows = []
        for _, sample in shown.iterrows():
            prompt = ""
            messages = sample.get("messages")
            if isinstance(messages, list) and messages:
                prompt = messages[-1].get("content", "")
            scores = ", ".join(f"{c.removeprefix('scores.')}={_fmt(sample[c])}"
                               for c in score_columns if _present(sample[c]))
            outcome = escape(sample["outcome"])
            if sample["outcome"] != "ok":
                outcome = f'<span class="bad">{outcome}</span>: {escape(sample.get("reason", ""))}'
            rows.append([escape(sample.get("sample_id")), outcome,
                         f"<pre>{escape(_excerpt(prompt, PROMPT_EXCERPT))}</pre>",
                         f"<pre>{escape(_excerpt(sample.get('output'), OUTPUT_EXCERPT))}</pre>",
                         escape(scores)])
        more = len(ordered) - len(shown)
        note = f' <span class="muted">({more} more in samples.jsonl)</span>' if more else ""
        parts.append(f"<details><summary>{escape(cell_label(experiment, cell.iloc[0]))}: "
                     f"{len(cell)} samples{note}</summary>"
                     + html_table(["sample", "outcome", "prompt (excerpt)", "output",
                                   "scores"], rows)
                     + "</details>")
    return "".join(parts)


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _fmt(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
            f"<body><h1>{escape(title)}</h1>{body}</body></html>")


# -- the first screen --------------------------------------------------------------------
def anchor(name: str) -> str:
    return f"x-{name}"


def run_line(run_id: str, info: dict, frame: pd.DataFrame) -> str:
    """Whose run this is, in one line (the whole identity is in the Run section): with how
    many samples it asked and how many never ran, so a stopped run never reads as whole."""
    identity = run_identity(info, frame)
    counts = frame["outcome"].value_counts().to_dict() if not frame.empty else {}
    outcomes = ", ".join(f"{o} {counts[o]}" for o in OUTCOMES if counts.get(o))
    asked = samples_asked(info, frame)
    total, never = sum(a for a, _ in asked.values()), sum(n for _, n in asked.values())
    missing = (f"; <b class='bad'>{never} never ran</b> (the run stopped early: the same "
               "command runs them)") if never else "; every one ran"
    return (f"<p class='lede'><b>{escape(identity['model'])}</b> at "
            f"{escape(identity['endpoint'] or '—')}, scale {escape(identity['scale'] or '—')}, "
            f"lengths in {escape(identity['tokenizer'] or 'o200k_base')} tokens: "
            f"{total} samples asked, {len(frame)} ran ({escape(outcomes or 'none')}){missing}. "
            "<a href='#run'>The run in full</a></p>")


def samples_asked(info: dict, frame: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Per experiment (those asked and those recorded): (samples asked, samples that never
    ran), from the samples the run collected, stored with it; a run stored before it kept
    them: its records, none known to be missing."""
    asked, never = info.get("asked") or {}, info.get("never_ran") or {}
    recorded = frame["experiment"].value_counts().to_dict() if not frame.empty else {}
    return {name: (int(asked.get(name, recorded.get(name, 0))), int(never.get(name, 0)))
            for name in sorted(set(asked) | set(recorded))}


def on_embedded_model(info: dict) -> bool:
    """The run's model was the embedded one (no --model given)."""
    options = info.get("options") or {}
    return "model" in options and options["model"] is None


def experiment_order(info: dict, frame: pd.DataFrame, verdicts: dict[str, Verdict]
                     ) -> list[str]:
    """Every experiment asked or recorded, those with a falling curve and verdict first."""
    return verdicts_first(samples_asked(info, frame), verdicts)


def sparkline(points: Sequence[CurvePoint], label: str) -> str:
    """The curve's means (line) and 95% intervals (band) as a small inline SVG; points keep
    their place on the x axis when a value has no scored sample."""
    drawn = [(i, p) for i, p in enumerate(points) if p.mean is not None]
    if not drawn:
        return "<span class='muted'>no scored sample</span>"
    values = [v for _, p in drawn for v in (p.mean, p.low, p.high) if v is not None]
    low, high = (0.0, 1.0) if 0 <= min(values) and max(values) <= 1 else \
        (min(values), max(values))
    high = high if high > low else low + 1
    width, height, pad = SPARK_WIDTH, SPARK_HEIGHT, SPARK_PAD
    step = (width - 2 * pad) / max(len(points) - 1, 1)

    def xy(i: int, value: float) -> str:
        y = height - pad - (value - low) / (high - low) * (height - 2 * pad)
        return f"{pad + i * step:.1f},{y:.1f}"
    banded = [(i, p) for i, p in drawn if p.low is not None and p.high is not None]
    band = " ".join([xy(i, p.high) for i, p in banded] + [xy(i, p.low) for i, p in banded[::-1]])
    line = " ".join(xy(i, p.mean) for i, p in drawn)
    dots = "".join(f'<circle class="dot" cx="{xy(i, p.mean).split(",")[0]}" '
                   f'cy="{xy(i, p.mean).split(",")[1]}" r="1.8"/>' for i, p in drawn)
    axes = (f"y {low:g} to {high:g}; x {value_text(points[0].value)} to "
            f"{value_text(points[-1].value)}" if len(points) > 1 else f"y {low:g} to {high:g}")
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} '
            f'{height}" role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
            + (f'<polygon class="band" points="{band}"/>' if len(banded) > 1 else "")
            + f'<polyline class="line" points="{line}"/>{dots}</svg>'
            + f"<div class='axes'>{escape(axes)}</div>")


def overview_verdict(verdict: Verdict | None) -> str:
    """The verdict in a few words: its numbers, or "no verdict" with the reason."""
    if verdict is None:
        return "<span class='muted'>—</span>"
    if verdict.length_axis is None:
        return f"<span class='muted'>{NO_LENGTH_AXIS}</span>"
    if verdict.refusal():  # what to do is said once, below the table
        reason, _, explained = verdict.why(EFFECTIVE_LENGTH, advice=False).partition(": ")
        return (f"<b>{escape(reason)}</b>"
                + (f"<div class='why'>{escape(explained)}</div>" if explained else ""))
    bar = "" if verdict.absolute is None else \
        f" ({'>=' if verdict.higher_is_better else '<='} {verdict.absolute:g})"
    return "<br>".join([
        f"effective length {escape(verdict.number_text(EFFECTIVE_LENGTH))}",
        f"absolute{escape(bar)}: {escape(verdict.number_text(ABSOLUTE_EFFECTIVE_LENGTH))}",
        f"length AUC {escape(verdict.number_text(LENGTH_AUC))}"])


def overview_section(frame: pd.DataFrame, experiments: dict[str, Experiment],
                     verdicts: dict[str, Verdict],
                     references: dict[str, list[published.Reference]] | None = None,
                     info: dict | None = None) -> str:
    """One row per experiment asked or recorded (those with a falling curve and a verdict
    first): what a reader needs before any section, with how many samples were asked and
    how many never ran. Where the run is comparable with a published table, its verdict
    cell links to it; on the embedded model each row says what it shows there."""
    references, info = references or {}, info or {}
    asked = samples_asked(info, frame)
    embedded = on_embedded_model(info)
    parts = dict(experiment_frames(frame))
    body, advice = [], False
    for name in experiment_order(info, frame, verdicts):
        part = parts.get(name, frame.iloc[0:0])
        experiment = experiments.get(name)
        link = f'<a href="#{anchor(name)}">{escape(name)}</a>' if name in parts \
            else escape(name)
        wanted, never = asked[name]
        counts = (f"{len(part)} ran of {wanted} asked"
                  + (f"; <b class='bad'>{never} never ran</b>" if never else ""))
        if experiment is None:
            body.append([link, "<span class='muted'>not declared here</span>", "", "",
                         counts])
            continue
        if part.empty:  # it never started: its row says so
            body.append([f"{link}<div class='why'>{escape(experiment.title)}</div>",
                         "—", "<b class='bad'>never started</b>", "", counts])
            continue
        verdict = verdicts.get(name)
        advice = advice or (verdict is not None and verdict.refusal() == TOO_FEW_SAMPLES)
        x, _ = curve_axes(part, experiment)
        points = curve(part, experiment, x) if x is not None else []
        label = f"{short(experiment.metric)} by {short(x)}: " + "; ".join(
            f"{value_text(p.value)}: {number(p.mean)}" for p in points)
        headline = "—" if verdict is None else estimate_text(verdict.overall)
        scored_n = sum(p.n for p in points)
        unit = f"; lengths in {verdict.length_unit}" if verdict and verdict.length_unit else ""
        beside = "".join(
            f"<div class='why'><a href='#{anchor(name)}-published'>beside {len(r.table.rows)} "
            f"published rows</a>: {escape(r.table.title)}</div>"
            for r in references.get(name, ()) if r.comparable and not r.error)
        shows = f"<div class='shows'>{escape(experiment.on_embedded)}</div>" \
            if embedded and experiment.on_embedded else ""
        body.append([f"{link}<div class='why'>{escape(experiment.title + unit)}</div>",
                     f"{escape(short(experiment.metric))} {escape(headline)}{shows}",
                     overview_verdict(verdict) + beside, sparkline(points, label),
                     f"{scored_n} scored; {counts}"])
    if not body:
        return ""
    note = ("<p class='muted'>headline: the mean over every scored sample with its 95% "
            "interval; curve: the headline's mean at each length (or the main grid axis), "
            "shaded: its 95% interval, its axes' ranges below it; samples: scored, ran (a "
            "record each) and asked (collected), and those that never ran."
            + (f" No verdict (too few samples): {escape(MORE_SAMPLES)}." if advice else "")
            + ("" if not embedded else " On the embedded 135M model, a row's grey line says "
               "what that experiment shows there.") + "</p>")
    # short headers: the verdict column gets the width (its "no verdict" reason is the longest)
    header = ["experiment", "headline [95% CI]", "verdict", "curve", "samples"]
    return "<h2>Overview</h2>" + html_table(header, body, table_id="overview") + note


def published_section(references: Sequence[published.Reference], run_label: str,
                      section: str) -> str:
    """Each published table beside this run's row where the run is comparable; where it is
    not, one line saying why. The first table shown is ``<section>-published``."""
    parts, target = [], f" id='{section}-published'"
    for reference in references:
        table = reference.table
        if not reference.comparable:
            why = "this run differs: " + "; ".join(reference.problems)
            parts.append(f"<p class='muted'>{escape(published.not_shown_text(table, why))}</p>")
        elif reference.error:
            parts.append(f"<p class='bad'>{escape(table.title)}: this run's row could not be "
                         f"computed: {escape(reference.error)}</p>")
        else:
            parts.append(f"<h3{target}>{escape(table.title)}</h3>"
                         + published_table(table, [(run_label, reference.measured or {})]))
            target = ""
    return "".join(parts)


def published_table(table, measured: Sequence[tuple[str, dict]]) -> str:
    """A published table with measured rows on top; published rows marked and greyed."""
    header, body = published.rows(table, measured)
    marked = ["published" if row[1] == published.PUBLISHED_MARK else "" for row in body]
    return (html_table(header, [[escape(v) for v in row] for row in body], row_classes=marked)
            + f"<p class='muted'>{escape(published.source_text(table))}</p>")


# -- the run report ----------------------------------------------------------------------
def verdict_table(verdict: Verdict) -> str:
    """The verdict: each number with its 95% interval (or why there is none), the rule and
    the sample count."""
    if verdict.length_axis is None:
        return (f"<p><b>Verdict:</b> {NO_LENGTH_AXIS} (this experiment does not vary the "
                f"input length); {escape(verdict.metric)} over all cells "
                f"{escape(estimate_text(verdict.overall))}, n={verdict.n} scored samples.</p>")
    if verdict.refusal():
        return (f"<p><b>Verdict:</b> {escape(verdict.why(EFFECTIVE_LENGTH))} "
                f"(n={verdict.n}).</p>")
    lengths = verdict.lengths
    bar = ">=" if verdict.higher_is_better else "<="
    chance = "" if verdict.chance is None else f"; chance {verdict.chance:g}"
    rows = [["base score", escape(f"mean at the shortest {len(verdict.base_lengths)} length(s): "
                              + ", ".join(value_text(v) for v in verdict.base_lengths)
                              + chance),
             escape(estimate_text(verdict.base))],
            ["effective length (relative)",
             escape(f"{bar} {verdict.relative:g} x base" if verdict.higher_is_better
                else f"<= {2 - verdict.relative:g} x base"),
             escape(verdict.why(EFFECTIVE_LENGTH) or verdict.number_text(EFFECTIVE_LENGTH))],
            ["effective length (absolute)",
             escape(f"{bar} {verdict.absolute:g}") if verdict.absolute is not None else "—",
             escape(verdict.why(ABSOLUTE_EFFECTIVE_LENGTH)
                    or verdict.number_text(ABSOLUTE_EFFECTIVE_LENGTH))],
            ["length AUC", "area under mean vs log(length) / log-length span",
             escape(verdict.why(LENGTH_AUC) or verdict.number_text(LENGTH_AUC))]]
    note = (f"<p class='muted'>n={sum(verdict.counts)} scored samples over {len(lengths)} "
            f"lengths ({escape(', '.join(value_text(v) for v in lengths))}); 95% intervals "
            "from a stratified bootstrap (samples resampled within each length). "
            + "".join(f"{escape(line[0].upper() + line[1:])}. " for line in verdict.left_out())
            + ("'>=' means every tested length passed: the model may hold up beyond it."
               if verdict.effective_length_censored else "") + "</p>")
    return "<h3>Verdict</h3>" + html_table(["number", "rule", "value [95% interval]"], rows) + note


def curve_section(frame: pd.DataFrame, experiment: Experiment) -> str:
    """The degradation curve as a table and, over a second grid axis, a matrix of means."""
    x, y = curve_axes(frame, experiment)
    if x is None:
        return ""
    metric = short(experiment.metric)
    points = curve(frame, experiment, x)
    blocks = any(p.blocked for p in points)  # the provider's blocks, and the rate with them
    rows = [[escape(value_text(p.value)), number(p.mean),
             "—" if p.mean is None else f"[{number(p.low)}, {number(p.high)}]", p.n, p.unscored,
             *([p.blocked, interval_text(p.with_blocked)] if blocks else [])]
            for p in points]
    parts = [f"<h3>{escape(metric)} by {escape(short(x))}</h3>",
             html_table([short(x), f"{metric} (mean)", "95% interval", "n scored", "not scored",
                         *(["blocked", WITH_BLOCKED] if blocks else [])],
                        rows, numeric=set(range(1, 7 if blocks else 5)))]
    if y is not None:
        ys, xs, cells = matrix(frame, experiment, x, y)
        body = [[escape(value_text(yv)), *(f"{number(cells[(yv, xv)][0])} (n={cells[(yv, xv)][1]})"
                                       if (yv, xv) in cells else "—" for xv in xs)]
                for yv in ys]
        parts += [f"<h3>{escape(metric)} by {escape(short(y))} and {escape(short(x))}</h3>",
                  html_table([f"{short(y)} \\ {short(x)}", *(value_text(v) for v in xs)], body,
                         numeric=set(range(1, len(xs) + 1))),
                  "<p class='muted'>mean (scored samples); each cell's interval is in the "
                  "table of every grid cell below and in cells.md</p>"]
    return "".join(parts)


def build_report(run_id: str, info: dict, frame: pd.DataFrame,
                 experiments: dict[str, Experiment], plots: dict[str, list[Path]], *,
                 run_row: dict | None = None, gate_lines: Sequence[tuple[str, bool]] = (),
                 verdicts: dict[str, Verdict] | None = None,
                 settings: VerdictSettings = VerdictSettings(),
                 findings: dict[str, dict] | None = None,
                 summaries: dict[str, list[dict]] | None = None) -> str:
    """The run's page; ``verdicts`` and ``summaries`` (each experiment's grid cells) where the
    caller has them already, else computed here."""
    run_row = run_row or {}
    findings = findings or {}
    if verdicts is None:
        verdicts = compute_verdicts(frame, experiments, settings)
    references = {name: published.references(part, experiments[name])
                  for name, part in experiment_frames(frame) if name in experiments}
    body = [run_line(run_id, info, frame),
            overview_section(frame, experiments, verdicts, references, info)]
    if gate_lines:
        body.append("<h2>Gate</h2>" + "".join(
            f'<p class="{"bad" if bad else ""}">{escape(line)}</p>' for line, bad in gate_lines))
    parts = dict(experiment_frames(frame))
    for name in (n for n in experiment_order(info, frame, verdicts) if n in parts):
        part, experiment = parts[name], experiments.get(name)
        if experiment is None:
            body.append(f"<h2 id='{anchor(name)}'>{escape(name)}</h2><p class='muted'>"
                        f"{len(part)} records; this experiment is not declared here, so it is "
                        "not summarized.</p>")
            continue
        body.append(f"<h2 id='{anchor(name)}'>{escape(name)}: {escape(experiment.title)}</h2>")
        if name in verdicts:
            body.append(verdict_table(verdicts[name]))
        body.extend(f"<p>{escape(line)}</p>" for line in findings.get(name, {}).get("lines", ()))
        body.append(published_section(references[name], f"this run ({run_id})",
                                      anchor(name)))
        body.append(curve_section(part, experiment))
        files = [Path(p) for p in plots.get(name, [])]
        images = [p for p in files if p.suffix.lower() == ".png"]
        if images:  # two a row: the page stays short, a click opens none (no script)
            body.append("<div class='plots'>" + "".join(
                image_tag(path, f"{name}: {path.stem}") for path in images) + "</div>")
        else:
            body.append("<p class='muted'>no plots</p>")
        tables = [p for p in files if p.suffix.lower() != ".png"]
        if tables:  # a renderer's CSV or Markdown: linked beside the report, not embedded
            body.append("<p>also written: " + ", ".join(
                f'<a href="plots/{escape(name)}/{escape(p.name)}">{escape(p.name)}</a>'
                for p in tables)
                + "</p>")
        # the detail behind the numbers, folded: the page is read from its first screen
        cells = summaries[name] if summaries is not None else summarize(part, experiment)
        body.append(f"<details><summary><b>Every grid cell</b> ({len(cells)}) and the samples "
                    "behind each, worst first</summary>" + summary_table(experiment, cells)
                    + samples_section(part, experiment) + "</details>")
    if frame.empty:
        body.append("<p class='muted'>no sample records in this run</p>")
    body.append(identity_section(run_id, info, frame, started=run_row.get("started_at", ""),
                                 finished=run_row.get("finished_at", ""),
                                 exit_status=run_row.get("exit_status")))
    return page(f"contextrot run {run_id}", "".join(body))


# -- the comparison page -----------------------------------------------------------------
def build_comparison(runs: Sequence[RunData], figures: dict[str, list[Path]],
                     deltas: dict[str, list[CellDelta]]) -> str:
    rows = [[escape(r.run_id), escape(r.identity["model"]), escape(r.identity["endpoint"] or "—"),
             escape(r.identity["judge"]), escape(r.identity["scale"] or "—"), len(r.frame)]
            for r in runs]
    body = ["<h2>Runs</h2>", html_table(["run", "model", "endpoint host", "judge", "scale",
                                     "samples"], rows, numeric={5})]
    for name, paths in sorted(figures.items()):
        body.append(f"<h2>{escape(name)}</h2>")
        body.extend(image_tag(p, f"{name}: {Path(p).stem}") for p in paths
                    if Path(p).suffix.lower() == ".png")
    for run_id, found in deltas.items():
        body.append(f"<h2>{escape(run_id)} minus {escape(runs[0].run_id)}: paired differences</h2>")
        body.append(f"<pre>{escape(format_deltas(found)) if found else 'no paired samples'}</pre>")
    return page("contextrot comparison: " + " vs ".join(r.run_id for r in runs), "".join(body))
