"""The sample record: what one benchmark sample leaves behind.

A record is the only thing that crosses from the tests to the store and the renderers. It
travels from an xdist worker to the controller as one JSON string (execnet only carries
builtins; a richer value would silently drop the test), so everything here is plain data.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import math
from typing import Any

# "blocked": the provider answered with a block instead of an answer (a refusal, a safety or
# recitation filter, a blocked prompt, a malformed function call: the record's ``reason``
# names it, ``details["block"]`` is its code); neither a wrong answer nor an error, never
# scored, counted beside the rate
# not_needed: --settle found the sample's length settled without it (never a failure)
NOT_NEEDED = "not_needed"
OUTCOMES = ("ok", "skipped", "overflow", "blocked", "refused", "error", NOT_NEEDED)
REPORT_ATTRIBUTE = "contextrot_record"  # the teardown report's attribute carrying the JSON
SCHEMA_VERSION = 1

# Long prompts (a 900k-token haystack is 3.6 MB) are stored as head and tail; the stimulus
# hash still covers the whole text, so identity never depends on the excerpt.
MESSAGE_EXCERPT_CHARS = 20_000


def stimulus_hash(payload: Any) -> str:
    """sha256 of a canonical JSON rendering: equal stimuli hash equal on any machine (a lone
    surrogate hashed as its code unit, where UTF-8 has none)."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def encodable(value: Any) -> Any:
    """``value`` with each character UTF-8 cannot encode (a lone surrogate, ``\\ud83d``: half
    an emoji, as a JavaScript encoder writes a string cut inside a pair) written as its
    escape, the six characters ``\\ud83d``, in every string of it (keys too): what a file,
    the store, a report or an xdist message can hold (a copy; equal where there is none)."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(encodable(item) for item in value)
    if isinstance(value, dict):
        return {encodable(key): encodable(item) for key, item in value.items()}
    return value


def excerpt(text: str, limit: int = MESSAGE_EXCERPT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters elided ...]\n{text[-half:]}"


@dataclasses.dataclass
class SampleRecord:
    experiment: str
    sample_id: str
    nodeid: str = ""
    run_id: str = ""
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    stimulus_hash: str = ""
    messages: list[dict[str, str]] = dataclasses.field(default_factory=list)
    target_tokens: int | None = None  # the prompt's count in the run's unit (token_unit)
    max_tokens: int | None = None
    model: dict[str, Any] = dataclasses.field(default_factory=dict)  # identity + sampling
    output: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None  # as served (usage), summed over calls
    completion_tokens: int | None = None
    latency_s: float = 0.0
    model_calls: int = 0  # requests that reached the endpoint
    cached_calls: int = 0  # requests served from the response cache
    scores: dict[str, Any] = dataclasses.field(default_factory=dict)
    details: dict[str, Any] = dataclasses.field(default_factory=dict)  # experiment-specific
    outcome: str = "ok"
    reason: str = ""
    worker: str = ""
    finished_at: str = ""
    schema: int = SCHEMA_VERSION
    # The unit lengths were built and counted in (fixtures/tokens/tokenizer.py: "o200k_base", the
    # specs' unit, or a model's own), the prompt's o200k count beside it, and the length the
    # stimulus was built to (None where the length axis is not tokens).
    token_unit: str = "o200k_base"
    o200k_tokens: int | None = None
    target_length: int | None = None
    # What the endpoint did beside the answer, summed over a sample's calls: the tokens it
    # spent thinking (its usage's reasoning_tokens, else counted), the thinking itself (kept
    # apart from ``output``, which scorers read), the prompt tokens its prefix cache served.
    reasoning_tokens: int | None = None
    thinking: str | None = None
    cached_tokens: int | None = None
    # A reply cut by its budget: the output limit was reached (finish_reason "length"), or the
    # thinking never closed / used the whole budget, leaving no answer (scored as empty).
    hit_output_limit: bool = False
    thinking_ran_out: bool = False
    # What its requests' usage costs at list prices (the model's and the judge's, each at its
    # prompt's tier; fixtures/engine/prices.py), and of that what this run sent (the rest was
    # replayed from the response cache); None where no price is known for a request
    cost_usd: float | None = None
    spent_usd: float | None = None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {self.outcome!r}; expected one of {OUTCOMES}")

    def stamp(self) -> None:
        self.finished_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

    def to_json(self) -> str:
        return json.dumps(encodable(_finite(dataclasses.asdict(self))), ensure_ascii=False,
                          allow_nan=False, default=_plain)

    @classmethod
    def from_json(cls, text: str) -> "SampleRecord":
        data = json.loads(text)
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def _finite(value: Any) -> Any:
    """NaN and infinity are not JSON: a metric that is undefined is stored as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return _finite(value.item())
    return value


def _plain(value: Any) -> Any:
    """Make numpy scalars and other simple values JSON-safe; refuse anything else loudly."""
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    raise TypeError(f"record values must be plain data, got {type(value).__name__}")
