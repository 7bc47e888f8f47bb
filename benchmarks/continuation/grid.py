"""The grid: context tiers x rounds, and the run's settings read from the command line.

Tiers are powers of two from 1,024 tokens up to the model's context. pytest parametrizes at
collection, before any worker knows the model, so the ceiling there is ``--max-context`` when
given, else the embedded model's 8,192 (no ``--model``), else 131,072 for a remote model whose
context is unknown yet; at run time a tier that does not fit the model's real context is
skipped with the reason (``record.skip_unless_fits``).
"""

from __future__ import annotations

import dataclasses

from fixtures.embedded.model import CONTEXT_LENGTH as EMBEDDED_CONTEXT
from fixtures.pytest_face.parametrize import SampleParams, tokens_id

from .readability import DEFAULT_SET
from .text import DEFAULT_TEXT

FIRST_TIER = 1024
REMOTE_CEILING = 131_072  # collection-time ceiling for a remote model of unknown context
MAX_DIVISIONS = 256  # beyond this, integer tiers would repeat
SMOKE = (FIRST_TIER, 0)  # (context, round)

# The older Context-Tester defaults (its README's; the spec follows them), except at test
# scale: max tokens, rounds and the largest tier kept small, so the three tiers 1k, 2k and 4k
# run in under a minute on the embedded model (two CPU cores read about 200 prompt tokens a
# second; an 8k tier alone took over a minute). These tiers are the same samples as at full
# scale: the continuation point still follows the model's context.
DEFAULTS = {"rounds": {"full": 3, "test": 1}, "max_tokens": {"full": 512, "test": 128},
            "largest_tier": {"full": None, "test": 4096}}
EMBEDDED_LARGEST_TIER = 2048  # at test scale on the embedded model (no --model)


@dataclasses.dataclass(frozen=True)
class ContinuationSample(SampleParams):
    text: str  # the document's short name
    context: int  # the tier: the context window to fill, in o200k tokens
    round: int
    # The headline readability set: in the params, so runs read differently never pair.
    metric_set: str = DEFAULT_SET

    @property
    def prefix_group(self) -> tuple:
        """A tier's rounds send the same prompt (fixtures/engine/prefix.py runs them back to
        back)."""
        return self.text, self.context, self.metric_set

    prefix_share = 1.0

    @property
    def id(self) -> str:
        return f"{tier_id(self.context)}-r{self.round:02d}"  # "r01" is not in "r10"


def tier_id(context: int) -> str:
    """``ctx1k`` for 1,024, ``ctx1.5k`` for 1,536 (k = 1,024 as on the plots); else the exact
    count with its own unit, ``ctx1028t`` (a bare ``ctx1028`` is found in ``ctx10280``)."""
    if context % 512 == 0:
        return tokens_id("ctx", context * 1000 // 1024)
    return f"ctx{context}t"


def tier_label(context: int) -> str:
    return f"{context / 1024:g}K" if context % 128 == 0 else str(context)


def tiers(max_context: int, start_context: int = FIRST_TIER, divisions: int = 1) -> list[int]:
    """Powers of two from 1,024 up to ``max_context``, ``divisions - 1`` evenly spaced points
    between consecutive ones, then only those at or above ``start_context``."""
    check_divisions(divisions)
    powers = []
    tier = FIRST_TIER
    while tier <= max_context:
        powers.append(tier)
        tier *= 2
    found = []
    for low, high in zip(powers, powers[1:]):
        step = (high - low) / divisions
        found.extend(int(low + step * j) for j in range(divisions))
    found.extend(powers[-1:])
    return [t for t in found if t >= start_context]


def check_divisions(divisions: int) -> None:
    if divisions < 1 or divisions & (divisions - 1) or divisions > MAX_DIVISIONS:
        raise ValueError(f"--continuation-divisions {divisions}: use 1 or a power of two up "
                         f"to {MAX_DIVISIONS} (2 adds one midpoint between tiers)")


# -- settings ------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Settings:
    text: str
    rounds: int
    divisions: int
    start_context: int
    ceiling: int  # the largest context parametrized at collection
    largest_tier: int | None  # test scale: no tier above this
    max_tokens: int
    temperature: float
    top_k: int
    top_p: float
    min_p: float
    repeat_penalty: float
    seed: int
    continuation_point: int | None  # o200k tokens into the text; None: 1.1 x the ceiling
    token_allowance: float  # another tokenizer may need this many times o200k's count
    metric_set: str = DEFAULT_SET  # the headline readability set (readability.METRIC_SETS)

    def tiers(self) -> list[int]:
        return [tier for tier in tiers(self.ceiling, self.start_context, self.divisions)
                if self.largest_tier is None or tier <= self.largest_tier]

    def sampling(self) -> dict:
        """The sampling parameters sent with every request (the seed is set per round)."""
        return {"top_k": self.top_k, "top_p": self.top_p, "min_p": self.min_p,
                # llama.cpp names the penalty repeat_penalty, vLLM and TGI repetition_penalty
                "repeat_penalty": self.repeat_penalty,
                "repetition_penalty": self.repeat_penalty}


def settings(config) -> Settings:
    """Read and check the options; a bad value raises ValueError naming the fix."""
    option = config.getoption
    scale = option("scale")
    ceiling = option("max_context")
    if ceiling is None:
        ceiling = EMBEDDED_CONTEXT if option("model") is None else REMOTE_CEILING
    found = Settings(
        text=option("continuation_text") or DEFAULT_TEXT,
        rounds=_or_default(option("continuation_rounds"), DEFAULTS["rounds"][scale]),
        divisions=option("continuation_divisions"),
        start_context=option("continuation_start_context"),
        ceiling=ceiling,
        # the embedded model's main job stops at 2k: its room went to RULER's curve
        largest_tier=EMBEDDED_LARGEST_TIER if scale == "test" and option("model") is None
        else DEFAULTS["largest_tier"][scale],
        max_tokens=_or_default(option("continuation_max_tokens"),
                               DEFAULTS["max_tokens"][scale]),
        temperature=option("continuation_temp"),
        top_k=option("continuation_top_k"),
        top_p=option("continuation_top_p"),
        min_p=option("continuation_min_p"),
        repeat_penalty=option("continuation_rep_pen"),
        seed=option("continuation_seed"),
        continuation_point=option("continuation_point"),
        token_allowance=option("continuation_token_allowance"),
        metric_set=option("continuation_metric_set"),
    )
    check(found)
    return found


def _or_default(value, default):
    return default if value is None else value


def check(s: Settings) -> None:
    problems = [
        (s.rounds < 1, f"--continuation-rounds {s.rounds}: use 1 or more (3 recommended)"),
        (s.max_tokens < 16, f"--continuation-max-tokens {s.max_tokens}: use 16 or more"),
        (s.temperature < 0, f"--continuation-temp {s.temperature}: use 0 or more"),
        (s.top_k < 0, f"--continuation-top-k {s.top_k}: use 0 (off) or more"),
        (not 0 < s.top_p <= 1, f"--continuation-top-p {s.top_p}: use a value in (0, 1]"),
        (not 0 <= s.min_p <= 1, f"--continuation-min-p {s.min_p}: use a value in [0, 1]"),
        (s.repeat_penalty <= 0, f"--continuation-rep-pen {s.repeat_penalty}: use a value "
                                "above 0 (1 = off)"),
        (s.seed < 0, f"--continuation-seed {s.seed}: use 0 or more"),
        (s.token_allowance < 1, f"--continuation-token-allowance {s.token_allowance}: use "
                                "1 or more (1.1 leaves 10% for another tokenizer)"),
        (s.continuation_point is not None and s.continuation_point < FIRST_TIER,
         f"--continuation-point {s.continuation_point}: use {FIRST_TIER} tokens or more"),
        (s.ceiling < FIRST_TIER, f"--max-context {s.ceiling}: the continuation experiment's "
                                 f"smallest tier is {FIRST_TIER} tokens"),
    ]
    for bad, message in problems:
        if bad:
            raise ValueError(message)
    if not s.tiers():
        largest = min(s.ceiling, s.largest_tier or s.ceiling)
        raise ValueError(f"--continuation-start-context {s.start_context}: no tier between it "
                         f"and the largest context {largest}; lower it"
                         + (" (or run --scale full)" if largest < s.ceiling else ""))


def build(s: Settings, text_name: str) -> list[ContinuationSample]:
    """Tiers ascending, rounds inner (a tier's rounds run back to back: prompt caches help)."""
    return [ContinuationSample(text_name, context, r, s.metric_set)
            for context in s.tiers() for r in range(s.rounds)]
