"""Agent accumulation: context rot inside a tool-calling loop, by accumulated length.

The task is stated once; tool results pile up turn after turn until the model must act on
what it read many turns ago. A seeded invoice ledger is read through four tools (list_pages,
read_page, get_record, submit); the pages are fitted so that the conversation that read them
all reaches the target length. Two modes: ``trajectory`` (the reading history scripted,
submit forced: one request) and ``live`` (the model runs the loop), and in live mode the
mitigations agents use (clear, drop, trim, compact, and a provider's own: Anthropic's
tool-result and thinking clearing and compaction) as conditions on the same ledgers, each
paired with ``full`` (a native one with its client-side twin too). Spec:
../shared/specs/agent-accumulation.md.

Reads top to bottom: grid.py (modes, conditions, lengths, settings), ledger.py (the
environment and its fitting), tools.py (the four tools and their results), stimulus.py (the
task, the trajectory, the conditions), episode.py (one request, or the live loop and how it
ends), scoring.py (exact, id_f1, submitted; the paired findings), plots.py,
test_agent_accumulation.py (the glue).
"""

from reporting.experiments import Experiment

from . import grid

EXPERIMENT = Experiment(
    name="agent_accumulation",
    title="finding records across a tool-calling loop's accumulated results, by length",
    cell=("params.mode", "params.condition", "params.needles", "params.length"),
    metric="scores.exact",
    metric_kind="rate",
    # An exact id set and sum: a guess never makes it.
    chance=0.0,
    length="params.length",  # the accumulated length the ledger is fitted to, run's unit
    # The verdict reads the measurement, condition full (both modes, each weighed equally
    # at a length); the mitigations are paired with it in the findings.
    control=("params.condition", grid.mitigated),  # (a function: pickled by name)
    stratum="params.mode",
    render=f"{__name__}.plots:render",
    findings=f"{__name__}.scoring:findings",
    target="details.gold_ids",
    on_embedded=("skipped: the embedded model calls no tools; --model an endpoint that "
                 "calls tools runs it"),
)


def add_options(group) -> None:
    add = group.addoption
    add("--agent-lengths", default=None, metavar="LENGTHS",
        help="agent accumulation: lengths the read-every-page conversation reaches, e.g. "
             "8k,32k,128k (k = 1,024 tokens, 4k to 1m; default 8k,16k at --scale test, "
             "8k..128k at full)")
    add("--agent-samples", type=int, default=None, metavar="N",
        help=f"agent accumulation: ledgers per length and needle count (default "
             f"{grid.SAMPLES['test']} at --scale test, {grid.SAMPLES['full']} at full)")
    add("--agent-modes", default=None, metavar="MODES",
        help="agent accumulation: trajectory (the reading scripted, submit forced: one "
             "request) and/or live (the model runs the loop); default trajectory,live")
    add("--agent-conditions", default=None, metavar="CONDITIONS",
        help=f"agent accumulation, live mode: {grid.CONDITION_HELP}; default "
             f"{grid.CONDITIONS['test']} at --scale test, {grid.CONDITIONS['full']} at full")
    add("--agent-needles", default=None, metavar="K[,K]",
        help="agent accumulation: records that answer the task (default 2 at --scale test; "
             "2,4,8 at full)")
    add("--agent-pages", type=int, default=None, metavar="P",
        help=f"agent accumulation: pages of the ledger (default {grid.PAGES})")
    add("--agent-max-steps", type=int, default=None, metavar="N",
        help=f"agent accumulation, live mode: requests per episode at most (default "
             f"{grid.STEPS_PER_PAGE} x pages + {grid.EXTRA_STEPS}: room to re-read every page)")
    add("--agent-seed", type=int, default=0,
        help="agent accumulation: seed of the ledgers (default 0)")
