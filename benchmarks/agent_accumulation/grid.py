"""The grid: modes x conditions x accumulated lengths x needle counts x ledgers, and the
run's settings.

Ids read ``live-clear02-ctx32k-nd2-s003``: the mode (``traj`` or ``live``), the condition
(``full``, ``clear02``, ``drop050``, ``trim050``, ``compact16k``: fixed widths or a unit at
the end), the length (``fitting.length_id``), the needle count and the ledger's number, so
``-k`` selects exactly. Every condition of a length, needle count and number reads the same
ledger: that is what pairs a condition with ``full``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Callable

from benchmarks.texts.fitting import K, M, length_id, parse_lengths
from fixtures.pytest_face.parametrize import SampleParams

MODES = ("trajectory", "live")
MODE_IDS = {"trajectory": "traj", "live": "live"}
LENGTHS = {"test": (8 * K, 16 * K), "full": (8 * K, 16 * K, 32 * K, 64 * K, 128 * K)}
MIN_LENGTH, MAX_LENGTH = 4 * K, M
SAMPLES = {"test": 2, "full": 10}
NEEDLES = {"test": (2,), "full": (2, 4, 8)}
# Four mitigations that send different requests at every length: ``trim:F`` is not among
# them, because with one call a turn (what a careful agent makes) it keeps exactly the turns
# ``drop:F`` keeps (26/26 ledgers byte for byte); they differ only where turns hold parallel
# calls. ``compact:0.5`` compacts at half of each sample's length, so it fires at every length.
CONDITIONS = {"test": "full,clear:2", "full": "full,clear:2,drop:0.5,compact:0.5"}
PAGES = 10  # the spec's default P
MAX_PAGES = 200
# The default step cap is 2P + 4: list_pages, P reads, P re-reads (a careful agent checks
# every page again), submit, and two more
STEPS_PER_PAGE, EXTRA_STEPS = 2, 4
# Output tokens per request: a call, or a reply with notes beside it (a reasoning model's
# thinking budget is added by the run's settings, fixtures/providers/generation.py).
MAX_TOKENS = 2048
# Anthropic's context management (the Messages API, beta): each edit's beta header is the
# adapter's (fixtures/providers/anthropic_messages.py); this is its smallest compaction
# trigger
ANTHROPIC_MIN_COMPACTION = 50_000
# the provider-native conditions' kinds and the provider each needs
NATIVE_PROVIDERS = {"anthropic-clear": "anthropic", "anthropic-thinking": "anthropic",
                    "anthropic-compact": "anthropic", "openai-compact": "openai-responses"}


@dataclasses.dataclass(frozen=True)
class Condition:
    """What the harness does to a live history before each request (spec section 4), or,
    for a provider-native condition, what it asks the endpoint to do to it."""

    kind: str  # full, clear, drop, trim, compact; anthropic-clear, -thinking, -compact
    value: float = 0  # K (results kept), F (a fraction), T (tokens); thinking: 0 is "all"

    @property
    def name(self) -> str:
        """``full``, ``clear:2``, ``drop:0.5``, ``compact:16384``, ``compact:0.5``,
        ``anthropic-thinking:all``: the record's ``params.condition``, which
        ``parse_conditions`` reads back as this condition (a threshold in whole tokens: ``:g``
        wrote 1m as ``1.04858e+06``, which it refuses)."""
        if self.kind == "full":
            return self.kind
        if self.kind == "anthropic-thinking" and not self.value:
            return f"{self.kind}:all"
        if self.kind in ("compact", "anthropic-compact") and self.value > 1:
            return f"{self.kind}:{int(self.value)}"
        return f"{self.kind}:{self.value:g}"

    @property
    def id(self) -> str:
        """Fixed widths, a unit at the end; a native condition's names its provider first
        (``antclearing02``), so that no id holds another's."""
        if self.kind == "full":
            return "full"
        if self.kind in ("clear", "anthropic-clear"):
            return ("clear" if self.kind == "clear" else "antclearing") + \
                f"{int(self.value):02d}"
        if self.kind == "anthropic-thinking":
            return "antthinking" + (f"{int(self.value):02d}" if self.value else "all")
        if self.kind == "anthropic-compact":
            return "antcompaction" + length_id(int(self.value)).removeprefix("ctx")
        if self.kind == "openai-compact":
            return "oaicompaction" + length_id(int(self.value)).removeprefix("ctx")
        if self.kind == "compact" and self.value > 1:
            return "compact" + length_id(int(self.value)).removeprefix("ctx")
        return f"{self.kind}{round(self.value * 100):03d}"

    @property
    def provider(self) -> str | None:
        """The provider (``--provider``) whose API does this; None: the harness does it, on
        any provider."""
        return NATIVE_PROVIDERS.get(self.kind)

    @property
    def twin(self) -> str | None:
        """The condition this one is paired with besides ``full``: a native condition's
        client-side version (``anthropic-clear:2`` and ``clear:2``), and thinking cleared
        with thinking kept (``anthropic-thinking:all``)."""
        if self.kind == "anthropic-clear":
            return Condition("clear", self.value).name
        if self.kind in ("anthropic-compact", "openai-compact"):
            return Condition("compact", self.value).name
        if self.kind == "anthropic-thinking" and self.value:
            return Condition("anthropic-thinking").name
        return None

    def at(self, length: int) -> "Condition":
        """The condition for a sample of ``length`` tokens: ``compact:F`` (a fraction) as
        the threshold in tokens it is there."""
        if self.kind == "compact" and self.value <= 1:
            return Condition("compact", max(1, math.floor(self.value * length)))
        return self

    def request(self) -> dict:
        """The request fields a native condition adds (the API's own shape); {} for the
        harness's own conditions."""
        if self.kind == "anthropic-clear":  # triggered once there is a result to clear
            edit = {"type": "clear_tool_uses_20250919",
                    "trigger": {"type": "tool_uses", "value": int(self.value) + 1},
                    "keep": {"type": "tool_uses", "value": int(self.value)}}
        elif self.kind == "anthropic-thinking":
            edit = {"type": "clear_thinking_20251015",
                    "keep": {"type": "thinking_turns", "value": int(self.value)}
                    if self.value else "all"}
        elif self.kind == "anthropic-compact":
            edit = {"type": "compact_20260112",
                    "trigger": {"type": "input_tokens", "value": int(self.value)}}
        elif self.kind == "openai-compact":  # the Responses API's server-side compaction
            return {"context_management": [{"type": "compaction",
                                            "compact_threshold": int(self.value)}]}
        else:
            return {}
        return {"context_management": {"edits": [edit]}}


FULL = Condition("full")


def mitigated(condition: str) -> bool:
    """A record's condition is a mitigation, not the measurement (``full``)."""
    return condition != FULL.name
CONDITION = re.compile(r"(full)|(clear):(\d+)|(drop|trim):(0?\.\d+|1(?:\.0*)?)|"
                       r"(compact):(0?\.\d+|\S+)|(anthropic-clear):(\d+)|"
                       r"(anthropic-thinking):(\d+|all)|(anthropic-compact|openai-compact):(\S+)")
CONDITION_HELP = ("full, clear:K (keep the last K tool results, 1-99), drop:F or trim:F (F a "
                  "fraction of 0.01 to 1 in hundredths), compact:T (T tokens, e.g. 32k, or a "
                  "fraction of each length, e.g. 0.5); with --provider anthropic its own "
                  "context management: anthropic-clear:K (tool-result clearing, keep K), "
                  "anthropic-thinking:N or :all (thinking of the last N turns kept, or all; "
                  "needs --thinking on), anthropic-compact:T (server compaction at T tokens, "
                  "at least 50k); with --provider openai-responses openai-compact:T (the "
                  "Responses API's server-side compaction at T tokens)")


def parse_conditions(value: str) -> tuple[Condition, ...]:
    found = []
    for part in (p.strip() for p in value.split(",") if p.strip()):
        match = CONDITION.fullmatch(part.lower())
        condition = _condition(match) if match else None
        if condition is None:
            raise ValueError(f"--agent-conditions {value!r}: {part!r} is not a condition; "
                             f"write {CONDITION_HELP}, e.g. full,clear:2,drop:0.5")
        found.append(condition)
    if not found:
        raise ValueError(f"--agent-conditions {value!r}: give at least one, e.g. full,clear:2")
    return tuple(dict.fromkeys(found))


def _condition(match: re.Match) -> Condition | None:
    (full, clear, kept, cut, fraction, compact, tokens, native_clear, native_kept,
     thinking, turns, native_compact, native_tokens) = match.groups()
    if full:
        return FULL
    if clear or native_clear:
        kept = int(kept or native_kept)
        return Condition(clear or native_clear, kept) if 1 <= kept <= 99 else None
    if thinking:
        return Condition(thinking, 0 if turns == "all" else int(turns)) \
            if turns == "all" or 1 <= int(turns) <= 99 else None
    if cut or (compact and tokens.startswith((".", "0."))):
        share = _hundredths(fraction or tokens)
        return Condition(cut or compact, share) if share is not None else None
    try:
        (threshold,) = parse_lengths(tokens or native_tokens, "--agent-conditions", 1024,
                                     "compact:32k")
    except ValueError:
        return None
    if native_compact == "anthropic-compact" and threshold < ANTHROPIC_MIN_COMPACTION:
        return None  # (the API's minimum trigger)
    return Condition(compact or native_compact, threshold)


def _hundredths(text: str) -> float | None:
    share = float(text)
    hundredths = share * 100
    if not 0 < share <= 1 or abs(hundredths - round(hundredths)) > 1e-9:
        return None
    return round(hundredths) / 100


@dataclasses.dataclass(frozen=True)
class AgentSample(SampleParams):
    mode: str  # trajectory or live
    condition: str  # Condition.name; trajectory: always full
    length: int  # the accumulated length the ledger is fitted to, in the run's unit
    needles: int  # k: the records that answer the task
    index: int  # the ledger's number in its cell
    pages: int
    max_steps: int
    seed: int  # --agent-seed

    @property
    def id(self) -> str:
        return (f"{MODE_IDS[self.mode]}-{self.condition_of().id}-{length_id(self.length)}-"
                f"nd{self.needles}-s{self.index:03d}")

    def condition_of(self) -> Condition:
        return parse_conditions(self.condition)[0]

    @property
    def applied_condition(self) -> Condition:
        """The condition as this sample's episode applies it (a fraction resolved)."""
        return self.condition_of().at(self.length)

    @property
    def ledger_seed(self) -> str:
        """The ledger's seed: the same for every mode and condition (a str seeds the same
        everywhere)."""
        return (f"agent_accumulation/{self.seed}/{length_id(self.length)}/nd{self.needles}/"
                f"p{self.pages}/s{self.index}")

    @property
    def prefix_group(self) -> tuple:
        """Every sample of one ledger starts with the same task and pages (fixtures/engine/prefix.py
        runs them back to back)."""
        return self.ledger_seed,

    @property
    def prefix_share(self) -> float:
        return 1.0 if self.mode == "trajectory" else 0.01  # a live episode: the task


@dataclasses.dataclass(frozen=True)
class Settings:
    modes: tuple[str, ...]
    conditions: tuple[Condition, ...]
    lengths: tuple[int, ...]
    needles: tuple[int, ...]
    samples: int
    pages: int
    max_steps: int
    seed: int


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad value raises ValueError naming the
    option and the fix (the experiment becomes one [unavailable] case)."""
    scale = "full" if option("scale") == "full" else "test"
    modes = _modes(option("agent_modes"))
    conditions = parse_conditions(option("agent_conditions") or CONDITIONS[scale])
    raw = option("agent_lengths")
    lengths = parse_lengths(raw, "--agent-lengths", MIN_LENGTH, "8k,32k,128k") if raw \
        else LENGTHS[scale]
    if lengths[-1] > MAX_LENGTH:
        raise ValueError(f"--agent-lengths {raw!r}: at most 1m (1,048,576 tokens)")
    needles = _needles(option("agent_needles"), scale)
    samples = option("agent_samples")
    samples = SAMPLES[scale] if samples is None else samples
    if samples < 1:
        raise ValueError(f"--agent-samples {samples}: give 1 or more ledgers per cell")
    pages = option("agent_pages")
    pages = PAGES if pages is None else pages
    if not 1 <= pages <= MAX_PAGES:
        raise ValueError(f"--agent-pages {pages}: give 1 to {MAX_PAGES} pages")
    steps = option("agent_max_steps")
    steps = default_steps(pages) if steps is None else steps
    if steps < 2:
        raise ValueError(f"--agent-max-steps {steps}: an episode needs at least 2 requests "
                         f"(default {STEPS_PER_PAGE}P + {EXTRA_STEPS})")
    return Settings(modes, conditions, lengths, needles, samples, pages, steps,
                    option("agent_seed"))


def default_steps(pages: int) -> int:
    return STEPS_PER_PAGE * pages + EXTRA_STEPS


def _modes(value: str | None) -> tuple[str, ...]:
    if not value:
        return MODES
    chosen = {part.strip().lower() for part in value.split(",") if part.strip()}
    if not chosen or not chosen <= set(MODES):
        raise ValueError(f"--agent-modes {value!r}: choose from trajectory,live")
    return tuple(m for m in MODES if m in chosen)


def _needles(value: str | None, scale: str) -> tuple[int, ...]:
    if not value:
        return NEEDLES[scale]
    try:
        found = sorted({int(part) for part in value.split(",") if part.strip()})
    except ValueError:
        found = []
    if not found or not all(1 <= k <= 32 for k in found):
        raise ValueError(f"--agent-needles {value!r}: give needle counts from 1 to 32, "
                         "e.g. 2,4,8")
    return tuple(found)


def build(s: Settings) -> list[AgentSample]:
    """Length, needles, ledger, then mode and condition: a ledger's samples run together."""
    samples = []
    for length in s.lengths:
        for needles in s.needles:
            for index in range(s.samples):
                for mode in s.modes:
                    for condition in (s.conditions if mode == "live" else (FULL,)):
                        samples.append(AgentSample(mode, condition.name, length, needles,
                                                   index, s.pages, s.max_steps, s.seed))
    return samples


def smoke_rule(samples: list[AgentSample]) -> Callable[[AgentSample], bool]:
    """One cheap sample: a trajectory (one request) at the smallest length, else the
    smallest live one."""
    first = min(samples, default=None, key=lambda s: (s.mode != "trajectory", s.length,
                                                      s.needles, s.index, s.condition != "full"))
    return lambda sample: sample == first
