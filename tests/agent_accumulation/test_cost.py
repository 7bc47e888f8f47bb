"""What --plan says a live episode costs, and that the verdict reads full only."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.agent_accumulation import EXPERIMENT, cost, grid
from reporting.analysis.verdicts import without_control


def episode(condition: str, length: int = 131072, pages: int = 10):
    return cost.live_episode(length, pages, grid.parse_conditions(condition)[0], 400, 12, 2048)


def test_a_full_episode_sends_about_l_times_t_over_2_nearly_all_cacheable():
    planned = episode("full")
    assert planned.requests == 12  # list_pages, ten reads, submit
    assert 0.8 * 131072 * 12 / 2 <= planned.input_tokens <= 131072 * 12 / 2
    assert planned.cacheable_tokens >= 0.8 * planned.input_tokens
    assert 0.99 * 131072 <= planned.largest_prompt <= 131072
    assert planned.output_tokens == 12 * 2048 and planned.max_tokens == 2048


@pytest.mark.parametrize("pages", [5, 10, 20])
def test_the_cost_grows_with_the_steps(pages):
    planned = episode("full", pages=pages)
    assert planned.requests == pages + 2
    assert planned.input_tokens == pytest.approx(131072 * (pages + 2) / 2, rel=0.2)


def test_the_conditions_send_less_and_clearing_busts_the_cache():
    full, cleared = episode("full"), episode("clear:2")
    dropped, compacted = episode("drop:0.5"), episode("compact:32k")
    assert cleared.largest_prompt <= 400 + 3 * 131072 / 10  # two pages, and a few tokens
    assert cleared.cacheable_tokens < 0.1 * cleared.input_tokens  # its prefix changes
    assert dropped.input_tokens < full.input_tokens and dropped.largest_prompt < 0.7 * 131072
    assert compacted.requests > 12  # its summaries' requests
    assert compacted.largest_prompt <= 32768 + 131072 / 10


def test_the_verdict_leaves_the_mitigations_out():
    frame = pd.DataFrame({"experiment": EXPERIMENT.name,
                          "params.condition": ["full", "clear:2", "drop:0.5", "full"]})
    assert list(without_control(frame, EXPERIMENT)["params.condition"]) == ["full", "full"]
