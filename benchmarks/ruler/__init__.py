"""RULER (NVIDIA): 13 synthetic tasks at 4k to 128k tokens, and the effective length.

Spec: ../shared/specs/ruler.md. One experiment with a task axis, not one per task: RULER's
numbers are per-length means over its tasks and the effective length is read from them, so
the tasks share one length axis, one verdict and one table. Reads top to bottom: grid.py
(the tasks, lengths, samples), words.py and essay.py (word lists, the essay haystack),
stimulus.py (each family's prompt at a size), fitting.py (the size that fits the length,
counted in the run's tokens), qa.py (SQuAD and HotpotQA), scoring.py (RULER's string
matches), results.py (RULER's per-length scores, wAvg, effective length), plots.py,
test_ruler.py (the glue).

The headline, ``scores.score``, is a sample's string-match score in [0, 1] (RULER prints 100
x a task's mean). The verdict's curve is RULER's: at each length the mean of the task means
(the tasks are its stratum), unrounded; results.py gives RULER's own numbers beside it, from
task scores rounded to 2 decimals as RULER rounds them.
"""

from reporting.experiments import Experiment

EXPERIMENT = Experiment(
    name="ruler",
    title="RULER: retrieval, multi-hop tracing, aggregation and QA at growing lengths",
    cell=("params.task", "params.length"),
    metric="scores.score",
    metric_kind="mean",
    length="params.length",  # the target: prompt tokens + tokens_to_generate, run's unit
    render=f"{__name__}.plots:render",
    target="details.outputs",  # the reference answers: an inspect sample's target
    findings=f"{__name__}.results:findings",
    chance=0.0,  # open answers: guessing a 7-digit number or a UUID scores nothing
    absolute=0.856,  # RULER's bar: Llama-2-7B-chat's 4k score, 85.6
    published=f"{__name__}.published:TABLES",  # reference rows, never gated
    stratum="params.task",  # a length's score is the mean of its task scores, as RULER's
    on_embedded=("a grid sized to this model: a needle alone, then among up to 17 alike, "
                 "216 to 512 tokens (--model: the usual grid)"),
)


def add_options(group) -> None:
    group.addoption("--ruler-tasks", default=None, metavar="TASKS",
                    help="RULER tasks: all, synthetic (the 11 without data) or names, "
                         "comma-separated (default: all 13 at --scale full; niah_single_1, "
                         "vt, cwe at --scale test; niah_multikey_2 at --scale test on "
                         "the embedded model, no --model)")
    group.addoption("--ruler-lengths", default=None, metavar="LENGTHS",
                    help="RULER target lengths, e.g. 4k,8k,128k or 1m (k = 1,024 tokens; "
                         "default: 4k to 128k at --scale full, 1k,1.5k,2k at --scale test; "
                         "216,240,288,384,512 at --scale test on the embedded model)")
    group.addoption("--ruler-samples", type=int, default=None, metavar="N",
                    help="RULER samples per task and length (default: 500 at --scale full, "
                         "1 at --scale test, 10 on the embedded model)")
    group.addoption("--ruler-fit", choices=("ruler", "per-sample"), default="ruler",
                    help="how prompts are fitted to each length: 'ruler' (default), RULER's "
                         "own procedure (one size per task and length by a binary search on "
                         "fresh samples, a whole increment less for a sample that "
                         "overflows: prompts fill about 0.92-0.96 of L); 'per-sample': each "
                         "sample to within 0.1%% of L")
    group.addoption("--ruler-answer-prefix",
                    choices=("auto", "user", "prefill", "prefill-vllm"), default="auto",
                    help="RULER's answer prefix: 'auto' (default) sends it as RULER sends it "
                         "to that kind of model: a prefill to an open-model server that says "
                         "what it is in GET /models (vLLM and SGLang: 'prefill-vllm'; "
                         "llama.cpp's server: 'prefill'), else at the end of the user message "
                         "('user', RULER's form for hosted APIs); 'user'; 'prefill': as a "
                         "final assistant message the model continues (llama.cpp's server, "
                         "Anthropic-style APIs); 'prefill-vllm': the same with vLLM's and "
                         "SGLang's continue_final_message")
