"""Sending the sampling options, and reporting those an endpoint refuses.

Every option is sent, the seed included (seed 0 too; the original never sent it). Round ``r``
uses seed ``--continuation-seed + r`` so rounds differ yet replay exactly. Non-standard
options (top_k, min_p, the repetition penalty) travel in the request body. When an endpoint
answers 400 naming one of them (OpenAI: "Unrecognized request argument supplied: top_k"),
that option is dropped, the request is sent again, the drop is recorded on every later
sample of the process and warned about once. An endpoint that ignores an option without
saying so cannot be told from one reply; the records keep what was sent.
"""

from __future__ import annotations

import re
import warnings

# Options that may be dropped when refused; temperature and max_tokens never are.
OPTIONAL = ("top_k", "top_p", "min_p", "repeat_penalty", "repetition_penalty", "seed")
_refused: dict[str, str] = {}  # option -> the endpoint's message, for this process


def refused_options(message: str, sent: set[str]) -> list[str]:
    """The sent optional parameters that an error message names (whole words only)."""
    return [name for name in OPTIONAL if name in sent
            and re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", message)]


async def ask(record, model, *, temperature: float, sampling: dict, seed: int,
              replicate: int):
    """``record.ask`` with every option; refused options are dropped, recorded and warned."""
    params = {k: v for k, v in {**sampling, "seed": seed}.items() if k not in _refused}
    while True:
        try:
            completion = await record.ask(model, temperature=temperature,
                                          replicate=replicate, **params)
            break
        except Exception as error:
            names = refused_options(str(error), set(params)) if bad_request(error) else []
            if not names:
                raise
            for name in names:
                params.pop(name)
                _refuse(name, str(error))
    unsupported = {k: v for k, v in _refused.items() if k in sampling or k == "seed"}
    if unsupported:
        record.detail(unsupported_params=sorted(unsupported))
    return completion


def bad_request(error: Exception) -> bool:
    """The endpoint's 400 (OpenAI's own error, or another provider's refusal). openai is
    imported here, where the client has loaded it: at module level it would load everywhere,
    and --plan, which sends nothing, would pay its second."""
    import openai

    from fixtures.providers.base import RequestRefused

    return isinstance(error, (openai.BadRequestError, RequestRefused))


def _refuse(name: str, message: str) -> None:
    if name not in _refused:
        _refused[name] = message
        warnings.warn(f"continuation: the endpoint refused {name!r}, which is no longer sent "
                      f"({message[:200]})", stacklevel=3)


def forget() -> None:
    """Clear what this process learnt (tests)."""
    _refused.clear()
