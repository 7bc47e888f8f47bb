"""MRCR: OpenAI's multi-round co-reference benchmark over long conversations.

A long chat of writing requests in which one request ("write a poem about horses") occurs
2, 4 or 8 times; the last turn asks for the i-th of those answers with a random string
prepended, graded by the original's SequenceMatcher ratio. Spec: ../shared/specs/mrcr.md.

Two sources of samples in the original's row schema: rows built offline from public-domain
texts (deterministic from a seed), and the original's rows (openai/mrcr) where its files
are in the data directory. Reads top to bottom: grid.py (sources x needles x bins, the
settings), topics.py and passages.py (the pool of writings), generate.py (one row built
offline), original.py (the original's rows), stimulus.py (a sample's row and its messages),
scoring.py (the grader, which needle was copied, Context Arena's AUC), plots.py,
test_mrcr.py (the glue).
"""

from reporting.experiments import Experiment

from . import grid

EXPERIMENT = Experiment(
    name="mrcr",
    title="reproducing the i-th of 2, 4 or 8 identical requests' answers in a long chat",
    cell=("params.source", "params.needles", "params.bin_high"),
    metric="scores.ratio",
    metric_kind="mean",
    length="params.bin_high",  # the bin's upper bound, o200k tokens (contents + answer)
    render=f"{__name__}.plots:render",
    output_budget="--mrcr-max-tokens",  # named when samples hit the output limit
    findings=f"{__name__}.scoring:findings",  # Context Arena's AUC@128k and AUC@1M
    # The string followed by another assistant turn of the conversation (a guess that knows
    # the format but not the passage) scores about 0.02 on these texts (measured in
    # tests/mrcr/test_scoring.py: autojunk leaves unrelated prose little to match); a reply
    # without the string scores 0.
    chance=0.02,
    published=f"{__name__}.published:TABLES",  # reference rows, never gated
    # OpenAI's per-bin, Google's 128K cumulative and 1M pointwise, each with its own rows
    aggregations=f"{__name__}.published:AGGREGATIONS",
    on_embedded=("the machinery: long chats of repeated requests; a 135M model "
                 "reproducing none (a zero) is expected"),
)


def add_options(group) -> None:
    add = group.addoption
    add("--mrcr-source", choices=grid.SOURCE_CHOICES, default="auto",
        help="MRCR samples: 'generated' (built offline from public-domain texts), 'original' "
             "(openai/mrcr's rows, from the data directory), 'both', or 'auto' (default: the "
             "original's rows where its files are present, else generated)")
    add("--mrcr-needles", action="append", default=None, metavar="N[,N]",
        help="MRCR needle counts: 2, 4, 8 (default all three; 2 at --scale test)")
    add("--mrcr-max-bin", default=None, metavar="BIN",
        help="MRCR's largest bin at --scale full: 8k, 16k, ..., 512k or 1m (default "
             f"{grid.DEFAULT_MAX_BIN}; bins the context cannot hold are left out)")
    add("--mrcr-samples", type=int, default=None, metavar="N",
        help="MRCR samples per source, needle count and bin (default 100, as the original; "
             "1 at --scale test)")
    add("--mrcr-seed", type=int, default=0, help="MRCR generator seed (default 0)")
    add("--mrcr-merge-user-messages", action="store_true",
        help="MRCR: join the preamble and the first request (two consecutive user messages, "
             "as in the original) for endpoints that reject them")
    add("--mrcr-max-tokens", default=None, metavar="TOKENS|answer|none",
        help="MRCR output cap: a number of tokens, 'answer' (twice the answer's tokens plus "
             "16, per sample) or 'none' (no max_tokens sent). Default: none at --scale full, "
             "as the original sends; answer at --scale test")
    add("--mrcr-temperature", default=None, metavar="T|none",
        help="MRCR sampling temperature: a number, or 'none' (not sent). Default: not sent "
             "at --scale full, as the original sends no sampling parameter; 0 at --scale test")
    add("--mrcr-original-dir", default=None, metavar="DIR",
        help="MRCR: read openai/mrcr's {2,4,8}needle/*.parquet from DIR, unverified "
             "(default: the data directory's openai_mrcr/, sha256-checked)")
