"""The measures of scripts/bench_harness.py's main-job section: the prefix tree that bounds
what any order can evaluate, and the embedded server's own count of what it evaluated."""

import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from bench_harness import prefix_tree, server_timings  # noqa: E402

# Two requests as llama-cpp-python's server (verbose) logs them: the second found 300 of its
# 321 prompt tokens in the cache and evaluated 21.
LOG = """\
Llama._create_completion: cache miss
llama_perf_context_print:        load time =       1.18 ms
llama_perf_context_print: prompt eval time =     626.86 ms /   124 tokens (    5.06 ms per token,   197.81 tokens per second)
llama_perf_context_print:        eval time =    2243.28 ms /   103 runs   (   21.78 ms per token,    45.91 tokens per second)
llama_perf_context_print:       total time =    2946.22 ms /   227 tokens
INFO:     127.0.0.1:39666 - "POST /v1/chat/completions HTTP/1.1" 200 OK
Llama._create_completion: cache hit
llama_perf_context_print:        load time =       1.18 ms
llama_perf_context_print: prompt eval time =     165.17 ms /    21 tokens (    7.87 ms per token,   127.14 tokens per second)
llama_perf_context_print:        eval time =     411.89 ms /    18 runs   (   22.88 ms per token,    43.70 tokens per second)
llama_perf_context_print:       total time =    1473.29 ms /    39 tokens
"""


def test_server_timings_sum_the_evaluated_prompt_tokens_not_the_decoded_ones():
    timings = server_timings(LOG)
    assert timings["requests"] == 2
    assert timings["evaluated"] == 124 + 21
    assert timings["decoded"] == 103 + 18
    assert abs(timings["prefill_s"] - (0.62686 + 0.16517)) < 1e-9
    assert abs(timings["decode_s"] - (2.24328 + 0.41189)) < 1e-9


def test_server_timings_of_a_quiet_log_are_zero():
    assert server_timings("INFO:     Started server process [1]\n")["evaluated"] == 0


@given(st.lists(st.lists(st.integers(0, 3), max_size=8), max_size=12))
def test_prefix_tree_counts_each_distinct_prefix_once(prompts):
    distinct = {tuple(prompt[:end]) for prompt in prompts for end in range(1, len(prompt) + 1)}
    assert prefix_tree(prompts) == len(distinct)
