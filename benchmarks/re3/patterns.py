"""The configuration builder: the 14 patterns of A and B, and how a pattern is assembled.

Assembly follows RE2 (Xu et al.): the repeats are joined by a re-reading cue, by default
"\\n\\nRead the question again: " (RE2's code also puts a stray space before the line break; we
do not). The cue is an option (``--re3-separator``): the presets are RE2's cue, the verbose
cue of Leviathan et al. ("Let me repeat that: ") and plain concatenation.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Configuration:
    config_id: str
    pattern: str
    description: str

    @property
    def uses_b(self) -> bool:
        return "B" in self.pattern


CONFIGURATIONS = tuple(Configuration(*row) for row in [
    ("C01", "A", "baseline single pass"),
    ("C02", "B", "re-tokenized only"),
    ("C03", "AA", "RE2 standard"),
    ("C04", "AB", "original + variant"),
    ("C05", "BA", "variant + original"),
    ("C06", "BB", "double variant"),
    ("C07", "AAA", "triple original"),
    ("C08", "AAB", "double original + variant"),
    ("C09", "ABA", "symmetric sandwich"),
    ("C10", "ABB", "original + double variant"),
    ("C11", "BAA", "variant + double original"),
    ("C12", "BAB", "alternating, variant-first"),
    ("C13", "BBA", "double variant + original"),
    ("C14", "BBB", "triple variant"),
])
BY_ID = {c.config_id: c for c in CONFIGURATIONS}
BASELINE, RE2 = "C01", "C03"  # the two references every summary compares against

SEPARATOR_PRESETS = {
    "re2": "\n\nRead the question again: ",
    "verbose": " Let me repeat that: ",
    "none": "",
}
DEFAULT_SEPARATOR = "re2"


def assemble(pattern: str, prompt_a: str, prompt_b: str, separator: str) -> str:
    """``ABA`` -> A + separator + B + separator + A."""
    if not pattern or set(pattern) - {"A", "B"}:
        raise ValueError(f"a pattern is a non-empty string of A and B, not {pattern!r}")
    parts = {"A": prompt_a, "B": prompt_b}
    return separator.join(parts[letter] for letter in pattern)


def parse_separator(value: str | None) -> str:
    """A preset name, or a literal cue in which ``\\n`` and ``\\t`` stand for line break and tab."""
    if value is None:
        return SEPARATOR_PRESETS[DEFAULT_SEPARATOR]
    if value in SEPARATOR_PRESETS:
        return SEPARATOR_PRESETS[value]
    return value.replace("\\n", "\n").replace("\\t", "\t")
