"""The embedded model's prompt and generation rates at each thread count, taken in turn
(A B A B) so that a changing load touches each alike; medians at the end.

    python scripts/embedded_threads.py ROUNDS THREADS   # e.g. 3 1,2 (docs/performance.md)
"""
import sys, time, statistics
from llama_cpp import Llama
from fixtures.embedded import model as embedded
rounds = int(sys.argv[1]); order = [int(t) for t in sys.argv[2].split(",")]
text = " ".join(f"Line {i}: the grass is green and the sky is blue." for i in range(80))  # ~1k tokens
models = {t: Llama(str(embedded.model_path()), n_ctx=2048, n_threads=t, n_threads_batch=t,
                   verbose=False, seed=0) for t in order}
found = {t: {"pp": [], "tg": []} for t in order}
for r in range(rounds):
    for t in order:
        llm = models[t]
        llm.reset()
        tokens = llm.tokenize(text.encode())
        t0 = time.perf_counter(); llm.eval(tokens); pp = len(tokens) / (time.perf_counter() - t0)
        t0 = time.perf_counter(); n = 0
        for tok in llm.generate([], temp=0.0, reset=False):
            n += 1
            if n == 48: break
        tg = n / (time.perf_counter() - t0)
        found[t]["pp"].append(pp); found[t]["tg"].append(tg)
        print(f"round {r} threads {t}: prompt {pp:.0f} tok/s ({len(tokens)} tokens), generation {tg:.1f} tok/s", flush=True)
for t in order:
    print(f"threads {t}: median prompt {statistics.median(found[t]['pp']):.0f} tok/s, median generation {statistics.median(found[t]['tg']):.1f} tok/s")
