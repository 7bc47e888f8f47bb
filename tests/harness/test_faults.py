"""Every row of the README's "What each fault does" table, met as a user meets it.

Each case runs ``pytest benchmarks`` (or ``python -m reporting``) as a subprocess from the
project's root, against the scripted OpenAI-compatible server on 127.0.0.1 with the fault
injected, on a fresh results folder, and checks what the table promises: the exit status,
the one line naming the problem and the fix, and no traceback anywhere in the output.
A run selects one repeated-words sample (``ONE``) unless the row needs more. Every run has
an API key in ``$OPENAI_API_KEY`` and shows all it can (``-l --tb=long --junitxml``; some
rows DEBUG logging too): the key must appear nowhere, in the output or in any file written.

Read-only folders and a full disk are real: the run is started in a mount namespace of its
own (``unshare --mount``) where its folder is bind-mounted read-only, or is a small tmpfs
that the test fills up mid-run; a user who is not root gets ``chmod`` instead, as that binds
them. Without either (no CAP_SYS_ADMIN as root) those cases are skipped, saying why.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.doubles.scripted_server import DROP, JSON_ENCODERS, Fault, ScriptedServer

from ..data_dir import own_data_dir
from ..subprocess_pytest import child_env as subprocess_env
from ..subprocess_pytest import pytest_command, without_module

ROOT = Path(__file__).resolve().parents[2]
ONE = ["-m", "repeated_words", "-k", "n25w-pos0000"]  # one sample of 25 words
NIAH = ["-m", "niah", "-k", "ctx0.5k"]  # two NIAH samples: its test meets a fault first
SERVER_UNIT = ["--tokenizer", "server", *NIAH]
RUN_S = 180  # a subprocess that has not ended by then has hung
SECRET = "s3cret-in-the-url"
# every run's $OPENAI_API_KEY: a character of each class a JSON encoder may escape ("/": PHP,
# "&": Go, "-": a \u-escaping encoder), so a server's escaped echo of it is a real test
KEY = "sk-contextrot/test&key-never-shown-8d1f0c"
# Every row runs with these: a traceback would show its frames' locals, and JUnit keeps it
SHOW_ALL = ["-l", "--tb=long", "--junitxml", "{tmp}/junit.xml"]
TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|^INTERNALERROR>|^E {3,}(?!.*\[ *\d+%\]$)\S|"
    r"^_ _ _ _ _ _|"
    r"^\S+\.py:\d+: (?!KeyboardInterrupt$)\w+", re.MULTILINE)
EMPTY_ANSWER = {"id": "x", "object": "chat.completion", "created": 0, "model": "scripted",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": ""}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 0, "total_tokens": 5}}


# -- running pytest as a user does ---------------------------------------------------------
def child_env(**extra: str | None) -> dict[str, str]:
    """The subprocesses' environment, the shared data folder by default."""
    data = os.environ.get("CONTEXTROT_DATA_DIR") or str(ROOT.parent / "shared" / "data")
    nltk = os.environ.get("NLTK_DATA") or str(Path(data) / "nltk_data")
    return subprocess_env(**{"CONTEXTROT_DATA_DIR": data, "NLTK_DATA": nltk, **extra})


def reporting_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "reporting", *args]


@dataclasses.dataclass
class Ran:
    status: int
    output: str  # stdout and stderr

    def assert_clean(self, status: int, line: str) -> None:
        """The exit status, the named line, and no traceback."""
        assert self.status == status, self.output[-3000:]
        assert not TRACEBACK.search(self.output), self.output[-6000:]
        assert re.search(line, self.output, re.MULTILINE), self.output[-3000:]


def run(command: list[str], env: dict[str, str] | None = None) -> Ran:
    done = subprocess.run(command, cwd=ROOT, env=env or child_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=RUN_S)
    return Ran(done.returncode, done.stdout)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server():
    with ScriptedServer("copy") as running:
        yield running


# -- the table -----------------------------------------------------------------------------
@dataclasses.dataclass
class Row:
    """One fault: how to cause it, and what the run must answer."""

    args: list[str]
    status: int
    line: str  # a regular expression the output must match
    fault: Callable[[ScriptedServer], None] = lambda server: None
    env: dict[str, str | None] = dataclasses.field(default_factory=dict)
    model: bool = True  # point --model/--base-url at the scripted server
    prepare: Callable[[Path], object] | None = None  # makes files in the test's folder
    check: Callable[[Path], None] | None = None  # more on the results folder
    xdist: bool = False  # also run it with -n 16 (as many workers as cores)
    debug: bool = False  # also run it with DEBUG logging (httpx's, openai's) shown and kept
    # the run shows what the server says (an error body, a refusal, an answer): also run it
    # against a server that quotes the key it received in every body it sends
    server_text: bool = False
    # data files the run meets broken (a path below the data directory: its bytes): written
    # in a data directory of the test's own, {tmp}/data, that reads the user's for the rest
    data: dict[str, bytes] = dataclasses.field(default_factory=dict)

    def command(self, server: ScriptedServer, tmp: Path, *more: str) -> list[str]:
        args = [fill_in(a, server, tmp) for a in [*self.args, *SHOW_ALL]]
        endpoint = ["--model", "scripted", "--base-url", server.base_url] if self.model else []
        return pytest_command(*endpoint, "--results-dir", str(tmp / "results"), *args, *more)

    def environment(self, server: ScriptedServer, tmp: Path) -> dict[str, str]:
        env = {"OPENAI_API_KEY": KEY, **self.env}
        if self.data:
            env["CONTEXTROT_DATA_DIR"] = "{tmp}/data"
        return child_env(**{k: v and fill_in(v, server, tmp) for k, v in env.items()})


CLOSED = closed_port()  # nothing listens there (nothing else binds a port it was given)


def fill_in(text: str, server: ScriptedServer, tmp: Path) -> str:
    """A row's argument with the test's folder, a closed port and the server put in."""
    return text.replace("{tmp}", str(tmp)).replace("{closed}", str(CLOSED)) \
        .replace("{server}", server.base_url.removeprefix("http://"))


def fill(server: ScriptedServer, *faults: Fault, always: Fault | None = None) -> None:
    server.faults.extend(faults)
    server.chat_fault = always


def one_record(check: Callable[[dict], bool]) -> Callable[[Path], None]:
    def checked(tmp: Path) -> None:
        with sqlite3.connect(tmp / "results" / "contextrot.sqlite") as db:
            (text,), = db.execute("SELECT record FROM samples").fetchall()
        assert check(json.loads(text)), text
    return checked


def junk(name: str) -> Callable[[Path], None]:
    return lambda tmp: ((tmp / "results").mkdir(), (tmp / "results" / name).write_bytes(
        b"garbage, not SQLite" * 100))


def counting(fault: Fault, *, when: Callable[[int, dict], bool] = lambda n, body: True):
    """A row's fault: the counting endpoint answers ``fault`` to the requests ``when`` picks."""
    return lambda server: setattr(server, "tokenize_fault",
                                  lambda n, body: fault if when(n, body) else None)


def long_text(n: int, body: dict) -> bool:
    """A haystack's count (mid-run), not one of the unit's own probes at the start."""
    return len(body.get("prompt") or "") > 1000


def parquet_files(names: list[str], table: Callable[[], object] | None,
                  junk: bytes = b"") -> Callable[[Path], None]:
    """Files ``{tmp}/NAME``: ``table()`` written as parquet, or ``junk`` bytes (b"": an
    empty file)."""
    def write(tmp: Path) -> None:
        import pyarrow.parquet as pq

        for name in names:
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if table is None:
                path.write_bytes(junk)
            else:
                pq.write_table(table(), path)
    return write


def mrcr_files(table: Callable[[], object] | None, junk: bytes = b"") -> Callable[[Path], None]:
    """openai/mrcr's two 2-needle files in ``{tmp}/mrcr``."""
    return parquet_files([f"mrcr/2needle/2needle_{shard}.parquet" for shard in (0, 1)],
                         table, junk)


def mrcr_table(**columns):
    """One row with the original's columns (less those given as None)."""
    import pyarrow as pa

    row = {"prompt": '[{"role": "user", "content": "hi"}]', "answer": "x",
           "random_string_to_prepend": "ab", "n_needles": 2, "desired_msg_index": 1,
           "total_messages": 1, "n_chars": 2, **columns}
    return lambda: pa.Table.from_pylist([{k: v for k, v in row.items() if v is not None}])


def nolima_folder(change: Callable[[Path], object] = lambda folder: None
                  ) -> Callable[[Path], None]:
    """``{tmp}/nolima``: a small folder in NoLiMa's layout (made-up content), then changed."""
    def make(tmp: Path) -> None:
        from ..nolima.helpers import write_folder

        change(write_folder(tmp / "nolima"))
    return make


def nolima_set(text: str) -> Callable[[Path], object]:
    return lambda folder: (folder / "needlesets" / "needle_set.json").write_text(text)


NOLIMA = ["-m", "nolima", "--scale", "full", "--nolima-lengths", "250", "--nolima-dir",
          "{tmp}/nolima"]
NOLIMA_FIX = r"; replace it with NoLiMa's file \(https://huggingface\.co/datasets/amodaresi/NoLiMa/"
NOLIMA_ROWS = {  # a bad NoLiMa folder: one line naming the file and the fix
    "nolima-folder-missing": (None, r"^nolima: --nolima-dir .*/nolima: no such folder; give the "
                                    r"folder holding NoLiMa's needlesets/"),
    "nolima-folder-empty": (lambda folder: shutil.rmtree(folder) or folder.mkdir(),
                            r"^nolima: .*/nolima/needlesets/needle_set\.json: missing; fetch it "
                            r"from https://huggingface\.co/datasets/amodaresi/NoLiMa/"),
    "nolima-set-empty-file": (nolima_set(""), r"^nolima: .*/needle_set\.json: not JSON "
                                              rf"\(Expecting value, line 1\){NOLIMA_FIX}"),
    "nolima-set-corrupt-json": (nolima_set('[{"id": "0101", '),
                                r"^nolima: .*/needle_set\.json: not JSON \(Expecting "
                                rf"property name .*{NOLIMA_FIX}"),
    "nolima-set-wrong-fields": (nolima_set('[{"id": "0101", "needle": "{CHAR} x", "tests": {}, '
                                           '"system_prompt": ""}]'),
                                r"^nolima: .*/needle_set\.json: entry 0 has no field "
                                rf"'questions'{NOLIMA_FIX}"),
    "nolima-haystacks-empty": (lambda folder: [p.unlink() for p in
                                               (folder / "haystack" / "rand_shuffle").iterdir()],
                               r"^nolima: .*/haystack/rand_shuffle: no \.txt haystacks; fetch "
                               r"NoLiMa's haystack/rand_shuffle/rand_book_\{1\.\.5\}\.txt"),
}


def graphwalks_file(table: Callable[[], object] | None,
                    junk: bytes = b"") -> Callable[[Path], None]:
    """openai/graphwalks' first file in ``{tmp}/graphwalks``."""
    return parquet_files(["graphwalks/graphwalks_128k_and_shorter.parquet"], table, junk)


def graphwalks_table(rows: int = 1, **columns):
    """``rows`` rows with the original's columns (less those given as None)."""
    import pyarrow as pa

    row = {"prompt": "x", "answer_nodes": ["a"], "prompt_chars": 1, "problem_type": "bfs",
           "date_added": "04-12-2025", **columns}
    kept = {k: v for k, v in row.items() if v is not None}
    return lambda: pa.Table.from_pylist([kept] * rows, schema=pa.table(
        {k: [v] for k, v in kept.items()}).schema)


def baseline_run(*args: str, behaviour: str = "plain") -> Callable[[Path], None]:
    """A run ``base`` in ``{tmp}/results``, made with ``args`` against a server of its own."""
    def make(tmp: Path) -> None:
        with ScriptedServer("copy", behaviour=behaviour) as own:
            run(pytest_command("--model", "scripted", "--base-url", own.base_url,
                               "--results-dir", str(tmp / "results"), "--run-id", "base",
                               *ONE, *args)).assert_clean(0, "1 passed")
    return make


NOT_OPENAI = "is --base-url an OpenAI-compatible API root"
JUDGED = [*NIAH, "--judge-model", "judge"]  # NIAH, judged by the model "judge"


def judge_fault(server: ScriptedServer, fault: Fault) -> None:
    """``fault`` answers every request to the judge; the model's are answered as usual."""
    fill(server, always=fault)
    server.faults_for = lambda request: request.get("model") == "judge"
COUNTING_FIX = "fix the endpoint's counting, give the model's tokenizer.json"
MRCR_ORIGINAL = ["-m", "mrcr", "--mrcr-source", "original", "--mrcr-original-dir", "{tmp}/mrcr"]
MRCR_FIX = r"; replace it with openai/mrcr's file"
LONGMEMEVAL_FILE = ["-m", "longmemeval", "--judge-model", "scripted", "--longmemeval-file"]
LONGMEMEVAL_FIX = r"; give Chroma's LongMemEval rows"
GRAPHWALKS_ORIGINAL = ["-m", "graphwalks", "--graphwalks-source", "original",
                       "--graphwalks-original-dir", "{tmp}/graphwalks"]
GRAPHWALKS_FIX = r"; replace it with openai/graphwalks' file"
ROWS: dict[str, Row] = {
    # an option value wrong whatever runs: one ERROR line, exit 4, before anything is sent
    "max-context-0": Row(["--max-context", "0", *ONE], 4, "^ERROR: --max-context 0: give a"),
    "max-connections-negative": Row(["--max-connections", "-3", *ONE], 4,
                                    "^ERROR: --max-connections -3"),
    "request-timeout-negative": Row(["--request-timeout", "-1", *ONE], 4,
                                    "^ERROR: --request-timeout -1"),
    "max-retries-negative": Row(["--max-retries", "-1", *ONE], 4, "^ERROR: --max-retries -1"),
    "price-negative": Row(["--price-in", "-1", *ONE], 4, "^ERROR: --price-in -1"),
    "shard-past-the-end": Row(["--shard", "3/2", *ONE], 4, "^ERROR: --shard '3/2': write K/N"),
    "run-id-not-a-folder-name": Row(["--run-id", "a/b", *ONE], 4, "^ERROR: --run-id 'a/b'"),
    "base-url-not-a-url": Row(["--model", "m", "--base-url", "not a url", *ONE], 4,
                              "^ERROR: --base-url 'not a url' is not an http", model=False),
    "base-url-query-string": Row(
        ["--model", "m", "--base-url", f"http://{{server}}?token={SECRET}", *ONE], 4,
        r"^ERROR: --base-url http://127\.0\.0\.1:\d+/v1\?\.\.\.: a query string", model=False),
    "judge-base-url-query-string": Row(
        ["--judge-model", "j", "--judge-base-url", f"http://{{server}}?key={SECRET}", *ONE],
        4, r"^ERROR: --judge-base-url http://127\.0\.0\.1:\d+/v1\?\.\.\.: a query string"),
    "no-key-no-base-url": Row(["--model", "gpt-x", *ONE], 4,
                              r"^ERROR: --model gpt-x goes to the public OpenAI API", model=False,
                              env={"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}),
    # the results folder cannot hold the run
    "results-dir-is-a-file": Row(["--results-dir", "{tmp}/file", *ONE], 4,
                                 "^ERROR: --results-dir .*/file is a file",
                                 prepare=lambda tmp: (tmp / "file").write_text("a file")),
    "store-not-sqlite": Row(ONE, 4, "^ERROR: .*contextrot.sqlite is not a usable SQLite file",
                            prepare=junk("contextrot.sqlite")),
    "cache-not-sqlite": Row(ONE, 4,
                            "^ERROR: .*response-cache.sqlite is not a usable SQLite file",
                            prepare=junk("response-cache.sqlite")),
    # an experiment cannot build its grid: its [unavailable] case fails, the others run
    "max-context-below-a-tier": Row(
        ["--max-context", "800", "-m", "continuation or repeated_words", "-k",
         "unavailable or n25w-pos0000"], 1,
        r"^continuation: --max-context 800: the continuation experiment's smallest tier"),
    "word-pair-three-words": Row(["--word-pair", "a/b/c", "-k", "n25w"], 1,
                                 r"^repeated_words: --word-pair 'a/b/c': write COMMON/MODIFIED"),
    "word-pair-no-common": Row(["--word-pair", "/x", "-k", "n25w"], 1,
                               r"^repeated_words: --word-pair '/x'"),
    "word-pair-no-modified": Row(["--word-pair", "apple/", "-m", "repeated_words", "-k",
                                  "n25w and not n250w"], 1,
                                 r"^repeated_words: --word-pair 'apple/'"),
    "continuation-text-a-folder": Row(["--continuation-text", "{tmp}", "-k", "ctx1k-r00"], 1,
                                      r"^continuation: --continuation-text .*: a folder, "
                                      "not a document"),
    "data-missing": Row(["-m", "re3 or repeated_words", "-k", "unavailable or n25w-pos0000"],
                        1, r"^re3: gsm8k/test.jsonl is missing from .*CONTEXTROT_DATA_DIR",
                        env={"CONTEXTROT_DATA_DIR": "{tmp}/no-data",
                             "HTTPS_PROXY": "http://127.0.0.1:{closed}",  # offline, at once
                             "NO_PROXY": "127.0.0.1"}),
    # the endpoint: stops the run with one line (2), or fails one sample with one line (1)
    "refused-key": Row(ONE, 2, r"refused the request \(401\): check the API key",
                       fault=lambda server: setattr(server, "api_key", SECRET), xdist=True,
                       server_text=True),
    "closed-port": Row(["--base-url", "http://127.0.0.1:{closed}/v1", *ONE], 2,
                       r"cannot reach http://127\.0\.0\.1:\d+/v1 .*: start the server"),
    "closed-port-no-retry": Row(["--base-url", "http://127.0.0.1:{closed}/v1",
                                 "--max-retries", "0", *ONE], 2,
                                r"cannot reach http://127\.0\.0\.1:\d+/v1"),
    "chat-route-404": Row(ONE, 2, r"answered 404 to POST /chat/completions .*--base-url",
                          fault=lambda server: fill(server, always=Fault(404)),
                          server_text=True),
    "chat-answers-html": Row(ONE, 2, f"not a chat completion: the body starts .*{NOT_OPENAI}",
                             fault=lambda server: fill(server, always=Fault(
                                 200, body="<html><body>Welcome to nginx</body></html>")),
                             xdist=True, server_text=True),
    # a 200 whose body is not JSON, or not UTF-8, under a JSON Content-Type: the same line
    "chat-answers-not-json": Row(ONE, 2, r"not a chat completion: the body is not JSON "
                                 rf"\(Expecting value\): {NOT_OPENAI}",
                                 fault=lambda server: fill(server, always=Fault(
                                     200, body=b'{"choices": [')), xdist=True),
    "chat-answers-not-utf8": Row(ONE, 2, r"not a chat completion: the body is not UTF-8 "
                                 rf"\(invalid start byte at byte 13\): {NOT_OPENAI}",
                                 fault=lambda server: fill(server, always=Fault(
                                     200, body=b'{"choices": "\xff\xfe"}')), xdist=True),
    "chat-answers-no-choices": Row(ONE, 2, f"200 with no choices: {NOT_OPENAI}",
                                   fault=lambda server: fill(server, always=Fault(
                                       200, body={"object": "chat.completion",
                                                  "choices": []}))),
    "rate-limited": Row(ONE, 0, "samples: 1 received of 1 expected",
                        fault=lambda server: fill(server, *[Fault(
                            429, headers={"Retry-After": "0"})] * 3)),
    # 429s that no wait mends stop the run at their first answer; one that keeps coming ends
    # the sample within --rate-limit-wait
    "spend-cap-429": Row(ONE, 2, r"Interrupted: contextrot: http://127\.0\.0\.1:\d+/v1 "
                         r"answered 429 \(You exceeded your current quota, please check your "
                         r"plan and billing details\.\): a spend cap or a quota used up; no wait "
                         r"mends it: .*then run the same command again",
                         fault=lambda server: fill(server, always=Fault(429, {"error": {
                             "message": "You exceeded your current quota, please check your "
                                        "plan and billing details.",
                             "type": "insufficient_quota", "code": "insufficient_quota"}})),
                         xdist=True, server_text=True),
    "retry-after-12-h": Row(ONE, 2, r"answered 429 \(injected fault 429\) and asks to wait "
                            r"12 h, longer than --rate-limit-wait 300 s: the run stops",
                            fault=lambda server: fill(server, always=Fault(
                                429, headers={"Retry-After": "43200"}))),
    "rate-limited-forever": Row(
        ["--rate-limit-wait", "2", *ONE], 1,
        r"answered 429 \(injected fault 429\) for [23] s with no answer between: the sample "
        r"ends \(gave up after \d+ requests; --rate-limit-wait 2 s\)",
        fault=lambda server: fill(server, always=Fault(429))),
    "rate-limit-wait-0": Row(["--rate-limit-wait", "0", *ONE], 4,
                             "^ERROR: --rate-limit-wait 0: give a positive number"),
    # a provider's block: an outcome of its own, counted, never a failure
    "content-filter-is-a-block": Row(
        ONE, 0, r"1 of 1 samples blocked by the provider \(finish_reason content_filter 1\)",
        fault=lambda server: fill(server, Fault(200, {**EMPTY_ANSWER, "choices": [
            {"index": 0, "finish_reason": "content_filter",
             "message": {"role": "assistant", "content": None}}]})),
        check=one_record(lambda r: r["outcome"] == "blocked"), server_text=True),
    "unavailable-503": Row(ONE, 0, "samples: 1 received of 1 expected",
                           fault=lambda server: fill(server, *[Fault(
                               503, headers={"Retry-After": "0"})] * 2)),
    "server-error-retries-exhausted": Row(
        ["--max-retries", "1", *ONE], 1,
        r"500 injected fault 500 \(gave up after 2 requests; --max-retries 1\)",
        fault=lambda server: fill(server, always=Fault(500)), xdist=True, server_text=True),
    "timeout": Row(["--request-timeout", "0.3", "--max-retries", "0", *ONE], 1,
                   r"the request timed out \(--request-timeout\) \(gave up after 1 request",
                   fault=lambda server: setattr(server, "latency_s", 2.0)),
    "dropped-connection": Row(["--max-retries", "1", *ONE], 1, r"gave up after 2 requests",
                              fault=lambda server: fill(server, always=Fault(DROP))),
    "overflow-is-data": Row(ONE, 0, "samples: 1 received of 1 expected",
                            fault=lambda server: (setattr(server, "context_length", 30),
                                                  setattr(server, "advertise_context", False)),
                            check=one_record(lambda r: r["outcome"] == "overflow"),
                            server_text=True),
    "empty-answer-is-data": Row(ONE, 0, "samples: 1 received of 1 expected",
                                fault=lambda server: fill(server, Fault(200, EMPTY_ANSWER)),
                                check=one_record(lambda r: r["outcome"] != "error"
                                                 and r["output"] == "")),
    "bad-request": Row(ONE, 1, r"^http://127\.0\.0\.1:\d+/v1/chat/completions answered 400 "
                       r"\(unknown field 'top_k'\): the request was refused$",
                       fault=lambda server: fill(server, always=Fault(
                           400, body={"error": {"message": "unknown field 'top_k'"}})),
                       xdist=True, server_text=True),
    "credentials-in-the-url": Row(
        ["--base-url", f"http://alice:{SECRET}@{{server}}", "--max-retries", "0",
         "--log-cli-level", "DEBUG", "-l", *ONE], 1, "gave up after 1 request",
        fault=lambda server: fill(server, always=Fault(500)), server_text=True),
    # what a server says, shown or kept by the run: an answer, a judge's reply, refusals of a
    # value the experiment chose (learnt, recorded) and of one the user chose (fatal)
    "answered": Row(ONE, 0, "samples: 1 received of 1 expected", xdist=True,
                    server_text=True),
    "judged": Row([*NIAH, "--judge-model", "scripted"], 0, "samples: 4 received of 4 expected",
                  server_text=True),
    "experiment-temperature-refused": Row(
        ONE, 0, "samples: 1 received of 1 expected",
        fault=lambda server: setattr(server, "behaviour", "openai-reasoning"),
        check=one_record(lambda r: r["model"]["adapted"]["dropped"] == ["temperature"]),
        server_text=True),
    "user-temperature-refused": Row(
        ["--temperature", "0.2", *ONE], 2,
        r"refuses --temperature 0\.2 \(Unsupported value: 'temperature' does not support 0\.2"
        r".*\): leave --temperature out for this model",
        fault=lambda server: setattr(server, "behaviour", "openai-reasoning"),
        xdist=True, server_text=True),
    # a fault every request would meet, met first by NIAH (its judge fixture included)
    "niah-refused-key": Row(NIAH, 2, r"refused the request \(401\): check the API key",
                            fault=lambda server: setattr(server, "api_key", SECRET),
                            xdist=True, debug=True),
    "niah-closed-port": Row(["--base-url", "http://127.0.0.1:{closed}/v1", *NIAH], 2,
                            r"cannot reach http://127\.0\.0\.1:\d+/v1 .*: start the server"),
    # the judge's faults name the judge's options (--judge-base-url, --judge-api-key-env,
    # --judge-model), whether or not the model's endpoint is the same
    "judge-closed-port": Row([*JUDGED, "--judge-base-url", "http://127.0.0.1:{closed}/v1"], 2,
                             r"cannot reach http://127\.0\.0\.1:\d+/v1 .*: start the server, or "
                             r"fix --judge-base-url", xdist=True),
    "judge-refused-key": Row([*JUDGED, "--judge-api-key-env", "JUDGE_KEY"], 2,
                             r"refused the request \(401\): check the API key variable "
                             r"\(--judge-api-key-env\) and --judge-model",
                             fault=lambda server: setattr(server, "api_key", KEY),
                             env={"JUDGE_KEY": "judge-key-the-server-refuses"}, xdist=True),
    "judge-route-404": Row(JUDGED, 2, r"answered 404 to POST /chat/completions .*: is "
                           r"--judge-base-url an OpenAI-compatible API root .*serve "
                           r"--judge-model 'judge'\?",
                           fault=lambda server: judge_fault(server, Fault(404)),
                           server_text=True, xdist=True),
    "judge-answers-not-json": Row(JUDGED, 2, r"not a chat completion: the body is not JSON "
                                  r"\(Expecting value\): is --judge-base-url an",
                                  fault=lambda server: judge_fault(server, Fault(
                                      200, body=b"<html>a judge's proxy</html>")),
                                  xdist=True),
    "judge-answers-not-utf8": Row(JUDGED, 2, r"not a chat completion: the body is not UTF-8 "
                                  r"\(invalid continuation byte at byte \d+\): is "
                                  r"--judge-base-url an", xdist=True,
                                  fault=lambda server: judge_fault(server, Fault(
                                      200, body=b'{"choices": "caf\xe9 au lait"}'))),
    "niah-builtin-random-cannot-count": Row(
        ["--model", "builtin:random", *SERVER_UNIT], 2,
        "--tokenizer server counts through an endpoint; builtin:random has none: use o200k",
        model=False, xdist=True),
    "niah-truncated-hf-tokenizer": Row(
        ["--tokenizer", "hf:{tmp}/tokenizer.json", *NIAH], 2,
        r"--tokenizer hf:.*tokenizer.json: cannot read it as a tokenizer.json",
        prepare=lambda tmp: (tmp / "tokenizer.json").write_text('{"version": "1.0", "mod')),
    # --tokenizer server: the counting endpoint's faults, each named by its real cause
    "tokenize-missing": Row(SERVER_UNIT, 2, r"--tokenizer server: http://127\.0\.0\.1:\d+ "
                            r"cannot count tokens \(no /tokenize or /extras/tokenize",
                            fault=counting(Fault(404)), xdist=True),
    # a --plan that counts through the endpoint stops on the same faults, with the run's status
    "tokenize-missing-plan": Row([*SERVER_UNIT, "--plan"], 2, r"--tokenizer server: "
                                 r"http://127\.0\.0\.1:\d+ cannot count tokens \(no /tokenize",
                                 fault=counting(Fault(404))),
    "tokenize-closed-port-plan": Row(
        ["--base-url", "http://127.0.0.1:{closed}/v1", *SERVER_UNIT, "--plan"], 2,
        r"--tokenizer server: cannot reach http://127\.0\.0\.1:\d+ .*: start the server"),
    "tokenize-500": Row(SERVER_UNIT, 2, r"--tokenizer server: http://127\.0\.0\.1:\d+/tokenize "
                        rf"answered 500 \(injected fault 500\); {COUNTING_FIX}",
                        fault=counting(Fault(500)), xdist=True, server_text=True),
    "tokenize-html": Row(SERVER_UNIT, 2, r"/tokenize answered without a token list "
                         r"\('<html>", fault=counting(Fault(200, "<html>nginx</html>")),
                         server_text=True),
    "tokenize-tokens-a-string": Row(SERVER_UNIT, 2, r"/tokenize answered without a token list "
                                    r"\(\{'tokens': '1 2 3'\}\)",
                                    fault=counting(Fault(200, {"tokens": "1 2 3"})),
                                    server_text=True),
    "tokenize-closed-port": Row(["--base-url", "http://127.0.0.1:{closed}/v1", *SERVER_UNIT], 2,
                                r"--tokenizer server: cannot reach http://127\.0\.0\.1:\d+ "
                                r"\(.*\): start the server, or fix --base-url"),
    "tokenize-refused-key": Row(SERVER_UNIT, 2, r"refused the (request|key) \(401\)",
                                fault=lambda server: setattr(server, "api_key", SECRET),
                                debug=True),
    "tokenize-fails-after-the-probe": Row(
        SERVER_UNIT, 2, rf"/tokenize answered 500 \(injected fault 500\); {COUNTING_FIX}",
        fault=counting(Fault(500), when=lambda n, body: n > 1)),
    "tokenize-fails-mid-run": Row(
        SERVER_UNIT, 2, rf"/tokenize answered 503 \(injected fault 503\); {COUNTING_FIX}",
        fault=counting(Fault(503, headers={"Retry-After": "0"}), when=long_text),
        xdist=True, debug=True),
    "tokenize-tokens-without-id": Row(
        SERVER_UNIT, 2, "answered a tokenize request with tokens that are neither ids nor "
        "objects with an integer 'id'",
        fault=counting(Fault(200, {"tokens": [{"text": "a"}]}))),
    "tokenize-counts-zero": Row(
        SERVER_UNIT, 2, rf"counts 0 tokens for a \d+-character text; {COUNTING_FIX}",
        fault=counting(Fault(200, {"count": 0, "tokens": []}))),
    "tokenize-negative-context": Row(
        SERVER_UNIT, 2, "says the model's context is -1 tokens",
        fault=lambda server: setattr(server, "tokenize_fault", lambda n, body: Fault(
            200, {"tokens": [ord(c) for c in body.get("prompt") or ""],
                  "max_model_len": -1}))),
    # a registered source's data file that is there but bad: one line naming it, per run
    "mrcr-parquet-corrupt": Row(MRCR_ORIGINAL, 1, r"2needle_0\.parquet: Parquet magic bytes "
                                rf"not found.*{MRCR_FIX}",
                                prepare=mrcr_files(None, b"not parquet" * 50), xdist=True),
    "mrcr-parquet-corrupt-plan": Row([*MRCR_ORIGINAL, "--plan"], 1,
                                     rf"2needle_0\.parquet: Parquet magic bytes.*{MRCR_FIX}",
                                     prepare=mrcr_files(None, b"not parquet" * 50)),
    "mrcr-parquet-missing-columns": Row(
        MRCR_ORIGINAL, 1, r"2needle_0\.parquet: not an openai/mrcr file \(no n_chars column\)",
        prepare=mrcr_files(mrcr_table(n_chars=None))),
    "mrcr-parquet-missing-columns-plan": Row(
        [*MRCR_ORIGINAL, "--plan"], 1, r"2needle_0\.parquet: not an openai/mrcr file",
        prepare=mrcr_files(mrcr_table(n_chars=None))),
    "mrcr-prompts-not-json": Row(
        MRCR_ORIGINAL, 1, r"2needle_0\.parquet: its prompts are not JSON conversations",
        prepare=mrcr_files(mrcr_table(prompt="Hello, not JSON"))),
    "mrcr-prompts-not-json-plan": Row(
        [*MRCR_ORIGINAL, "--plan"], 1, r"2needle_0\.parquet: its prompts are not JSON",
        prepare=mrcr_files(mrcr_table(prompt="Hello, not JSON"))),
    # openai/graphwalks' rows (--graphwalks-original-dir): missing, empty, corrupt, wrong
    # columns, no rows; one line naming the file and the fix, with and without --plan
    **{f"graphwalks-{name}{'-plan' if plan else ''}": Row(
        [*GRAPHWALKS_ORIGINAL, *(["--plan"] if plan else [])], 1, line, prepare=prepare)
       for name, line, prepare in [
           ("original-dir-missing", r"--graphwalks-original-dir .*graphwalks: "
            r"graphwalks_128k_and_shorter\.parquet missing; give the folder holding", None),
           ("parquet-empty", rf"graphwalks_128k_and_shorter\.parquet: .*{GRAPHWALKS_FIX}",
            graphwalks_file(None)),
           ("parquet-corrupt", rf"graphwalks_128k_and_shorter\.parquet: Parquet magic bytes "
            rf"not found.*{GRAPHWALKS_FIX}", graphwalks_file(None, b"not parquet" * 50)),
           ("parquet-missing-columns", r"graphwalks_128k_and_shorter\.parquet: not an "
            rf"openai/graphwalks file \(no answer_nodes column\){GRAPHWALKS_FIX}",
            graphwalks_file(graphwalks_table(answer_nodes=None))),
           ("parquet-no-rows", rf"graphwalks_128k_and_shorter\.parquet: no rows{GRAPHWALKS_FIX}",
            graphwalks_file(graphwalks_table(rows=0)))]
       for plan in (False, True)},
    "ruler-qa-file-not-the-registered-one": Row(
        ["-m", "ruler", "--ruler-tasks", "qa_1", "--ruler-lengths", "4k"], 1,
        r"squad/dev-v2\.0\.json has sha256 .*: replace it with the registered file",
        data={"squad/dev-v2.0.json": b'{"data": ['}),
    "ruler-qa-file-not-the-registered-one-plan": Row(
        ["-m", "ruler", "--ruler-tasks", "qa_1", "--ruler-lengths", "4k", "--plan"], 1,
        r"squad/dev-v2\.0\.json has sha256 .*: replace it with the registered file",
        data={"squad/dev-v2.0.json": b'{"data": ['}),
    **{f"{name}{'-plan' if plan else ''}": Row(
        [*NOLIMA, *(["--plan"] if plan else [])], 1, line,
        prepare=None if change is None else nolima_folder(change))
       for name, (change, line) in NOLIMA_ROWS.items() for plan in (False, True)},
    # a LongMemEval file given on the command line that is missing or bad: one line naming
    # the file and the fix, with and without --plan
    **{f"longmemeval-file-{name}{'-plan' if plan else ''}": Row(
        [*LONGMEMEVAL_FILE, f"{{tmp}}/{file}", *(["--plan"] if plan else [])], 1,
        rf"^longmemeval: (--longmemeval-file )?.*{re.escape(file)}: (.*: )?{line}.*"
        rf"{LONGMEMEVAL_FIX}",
        prepare=None if content is None else
        (lambda tmp, file=file, content=content: (tmp / file).write_bytes(content)))
       for name, file, content, line in [
           ("missing", "nope.parquet", None, "no such file"),
           ("empty", "rows.csv", b"", "No columns to parse from file"),
           ("corrupt", "rows.parquet", b"not parquet" * 50, "Parquet magic bytes not found"),
           ("wrong-columns", "rows.csv", b"text,answer\nq,a\n",
            r"not LongMemEval rows \(no question, focused_input/full_input")]
       for plan in (False, True)},
    # an experiment's option: the same line and exit status with and without --plan
    **{f"{name}{'-plan' if plan else ''}": Row([*args, *(["--plan"] if plan else [])], 1, line)
       for name, args, line in [
           ("ruler-lengths-0", ["-m", "ruler", "--ruler-lengths", "0"],
            r"^ruler: --ruler-lengths '0': '0' is not a length"),
           ("mrcr-max-bin-5k", ["-m", "mrcr", "--mrcr-max-bin", "5k"],
            r"^mrcr: --mrcr-max-bin 5k: one of 8k"),
           ("mrcr-samples-0", ["-m", "mrcr", "--mrcr-samples", "0"],
            r"^mrcr: --mrcr-samples 0: give 1 or more"),
           ("mrcr-samples-negative", ["-m", "mrcr", "--mrcr-samples", "-2"],
            r"^mrcr: --mrcr-samples -2: give 1 or more"),
           ("ruler-samples-0", ["-m", "ruler", "--ruler-samples", "0"],
            r"^ruler: --ruler-samples 0: give at least 1"),
           ("graphwalks-samples-0", ["-m", "graphwalks", "--graphwalks-samples", "0"],
            r"^graphwalks: --graphwalks-samples 0: give 1 or more"),
           ("graphwalks-lengths-100", ["-m", "graphwalks", "--graphwalks-lengths", "100"],
            r"^graphwalks: --graphwalks-lengths '100': '100' is not a length of at least 512"),
           ("graphwalks-max-tokens-0", ["-m", "graphwalks", "--graphwalks-max-tokens", "0"],
            r"^graphwalks: --graphwalks-max-tokens 0: give a positive number")]
       for plan in (False, True)},
    # a number that is none (NaN) or no bound (Infinity): every float option and -M value,
    # with and without --plan, one line naming it
    **{f"{name}{'-plan' if plan else ''}": Row([*args, *ONE, *(["--plan"] if plan else [])],
                                               4, line, xdist=True)
       for name, args, line in [
           ("price-in-nan", ["--price-in", "nan"], r"^ERROR: --price-in nan: give a finite"),
           ("price-out-inf", ["--price-out", "inf"], r"^ERROR: --price-out inf: give a finite"),
           ("price-cached-in-nan", ["--price-cached-in", "NaN"],
            r"^ERROR: --price-cached-in nan: give a finite"),
           ("temperature-nan", ["--temperature", "nan"],
            r"^ERROR: --temperature nan: give a finite"),
           ("top-p-minus-infinity", ["--top-p=-Infinity"],
            r"^ERROR: --top-p -inf: give a finite"),
           ("request-timeout-inf", ["--request-timeout", "inf"],
            r"^ERROR: --request-timeout inf: give a finite"),
           ("experiment-option-nan", ["--continuation-temp", "nan"],
            r"^ERROR: --continuation-temp nan: give a finite"),
           ("verdict-absolute-nan", ["--verdict-absolute", "niah=nan"],
            r"^ERROR: --verdict-absolute 'niah=nan': give a finite"),
           ("model-arg-nan", ["-M", "temperature=NaN"],
            r"^ERROR: -M temperature=NaN: give finite numbers"),
           ("model-arg-infinity", ["-M", "temperature=Infinity"],
            r"^ERROR: -M temperature=Infinity: give finite numbers"),
           ("model-arg-nested-overflow", ["-M", 'extra_body={"min_p": 1e999}'],
            r"^ERROR: -M extra_body=\{\"min_p\": 1e999\}: give finite numbers"),
           # an output budget's field: the options that set it are named
           ("model-arg-max-tokens", ["-M", "max_tokens=5"],
            r"^ERROR: -M max_tokens: the suite sets the token limit: each experiment's answer "
            r"budget plus the thinking budget \(--reasoning-tokens, --thinking, "
            r"--reasoning-effort\), checked against --model-max-output-tokens; "
            r"--token-limit-param names the field$"),
           ("model-arg-max-completion-tokens", ["-M", "max_completion_tokens=5"],
            r"^ERROR: -M max_completion_tokens: the suite sets the token limit.*"
            r"--reasoning-tokens.*--model-max-output-tokens")]
       for plan in (False, True)},
    # the whole token limit a request would carry (the thinking budget's included), checked
    # against --model-max-output-tokens and the context, one check for every experiment
    **{f"{name}{'-plan' if plan else ''}": Row(
        [*args, *(["--plan"] if plan else ["-rs"])], 0, plan_line if plan else line,
        check=None if plan else one_record(lambda r: r["outcome"] == "skipped"),
        xdist=True)
       for name, args, line, plan_line in [
           ("thinking-past-the-output-limit",
            ["--thinking", "on", "--model-max-output-tokens", "1000", *ONE],
            r"^SKIPPED .*needs 250\d\d output tokens \(\d+ for the answer \+ 25000 for "
            r"thinking\), more than the model's output limit 1000 \(--model-max-output-tokens\)",
            r"^repeated_words +1 +1 +0 +0 +0$"),
           ("niah-thinking-past-the-output-limit",
            ["-m", "niah", "-k", "ctx0.5k and seq and dx0", "--reasoning-tokens", "40000"],
            r"^SKIPPED .*needs 40\d+ output tokens \(\d+ for the answer \+ 40000 for "
            r"thinking\), more than the model's output limit 32768",
            r"^niah +1 +1 +0 +0 +0$"),
           ("thinking-past-the-context",
            ["--reasoning-tokens", "8000", "--max-context", "8100", *ONE],
            r"^SKIPPED .*needs \d+ prompt \+ 80\d\d output tokens \(\d+ for the answer \+ "
            r"8000 for thinking\), more than the model's 8100-token context",
            r"^repeated_words +1 +1 +0 +0 +0$")]
       for plan in (False, True)},
    "model-max-output-tokens-0": Row(["--model-max-output-tokens", "0", *ONE], 4,
                                     r"^ERROR: --model-max-output-tokens 0: give a positive"),
    # the gate compares what the requests carried, not which option made them: a baseline
    # that learnt max_completion_tokens from the endpoint, a run that asked for it
    "gate-same-requests-from-another-option": Row(
        ["--token-limit-param", "max_completion_tokens", "--baseline", "{tmp}/results/base",
         "--fail-on", "repeated_words:-5%", *ONE], 0, r"^gate: passed",
        fault=lambda server: setattr(server, "behaviour", "openai-reasoning"),
        prepare=baseline_run(behaviour="openai-reasoning"), xdist=True),
    "gate-requests-differ": Row(
        ["--temperature", "0.5", "--baseline", "{tmp}/results/base", "--fail-on",
         "repeated_words:-5%", *ONE], 8,
        r"gate: REFUSED \(exit 8\): the requests differ \(repeated_words\): baseline base sent "
        r"temperature: 0\.0, this run temperature: 0\.5; gate against a baseline whose "
        r"requests carried the same, or pass --allow-different-settings",
        prepare=baseline_run(), xdist=True),
    "gate-token-limit-differs": Row(
        ["--reasoning-tokens", "7", "--baseline", "{tmp}/results/base", "--fail-on",
         "repeated_words:-5%", *ONE], 8,
        r"the requests differ \(repeated_words\): baseline base sent token limit: "
        r"max_completion_tokens = answer, this run token limit: max_completion_tokens = "
        r"answer \+ 7",
        fault=lambda server: setattr(server, "behaviour", "openai-reasoning"),
        prepare=baseline_run(behaviour="openai-reasoning")),
    # the gate's baseline
    "baseline-a-folder": Row(["--baseline", "{tmp}", "--fail-on", "repeated_words:-5%", *ONE],
                             4, r"^ERROR: --baseline .* is a folder; give a run's summary.json"),
    "baseline-not-json": Row(["--baseline", "{tmp}/bad.json", "--fail-on",
                              "repeated_words:-5%", *ONE], 4,
                             r"^ERROR: --baseline .*bad.json: not JSON",
                             prepare=lambda tmp: (tmp / "bad.json").write_text('{"samples": [')),
    "baseline-empty": Row(["--baseline", "{tmp}/empty.jsonl", "--fail-on",
                           "repeated_words:-5%", *ONE], 8,
                          r"gate: REFUSED \(exit 8\): baseline .*empty.jsonl holds no samples",
                          prepare=lambda tmp: (tmp / "empty.jsonl").write_bytes(b"")),
    # the run as inspect_ai logs, without the [inspect] extra: refused before anything runs
    "inspect-log-dir-without-inspect-ai": Row(
        ["--inspect-log-dir", "{tmp}/logs", *ONE], 4,
        r"^ERROR: --inspect-log-dir: inspect logs are written with inspect_ai, which is not "
        r"installed: pip install -e '\.\[inspect\]'", env={"PYTHONPATH": "{tmp}/no-inspect"},
        prepare=lambda tmp: without_module(tmp / "no-inspect", "inspect_ai")),
    "inspect-log-dir-is-a-file": Row(["--inspect-log-dir", "{tmp}/file/logs", *ONE], 4,
                                     "^ERROR: --inspect-log-dir .*/file/logs: .*/file is a "
                                     "file, not a folder",
                                     prepare=lambda tmp: (tmp / "file").write_text("a file")),
}
DEBUG_LOG = ("--log-level", "DEBUG", "--log-cli-level", "DEBUG", "-o", "junit_logging=all")
CASES = [pytest.param(name, (), False, id=name) for name in ROWS] + \
    [pytest.param(name, ("-n", "16"), False, id=f"{name}-n16") for name, row in ROWS.items()
     if row.xdist] + \
    [pytest.param(name, DEBUG_LOG, False, id=f"{name}-debug-log") for name, row in ROWS.items()
     if row.debug] + \
    [pytest.param(name, (), True, id=f"{name}-echoed-key") for name, row in ROWS.items()
     if row.server_text] + \
    [pytest.param(name, ("-n", "16"), True, id=f"{name}-echoed-key-n16")
     for name, row in ROWS.items() if row.server_text and row.xdist] + \
    [pytest.param(name, (), encoder, id=f"{name}-echoed-key-{encoder}")  # the key escaped
     for name, row in ROWS.items() if row.server_text for encoder in JSON_ENCODERS] + \
    [pytest.param(name, ("-n", "16"), "unicode", id=f"{name}-echoed-key-unicode-n16")
     for name, row in ROWS.items() if row.server_text and row.xdist]
INSPECT = importlib.util.find_spec("inspect_ai") is not None  # [inspect]: its logs too
WRITTEN = (".json", ".jsonl", ".html", ".md", ".csv", ".log", ".xml", ".sqlite", ".sqlite-wal")


@pytest.mark.parametrize(("name", "more", "echo"), CASES)
def test_each_fault_is_one_line_with_its_exit_status(name, more, echo, server, tmp_path):
    """``echo``: the server quotes the key it received at the start of every body it sends
    (a gateway's error, an answer, a page), its JSON written by json.dumps (True) or by an
    encoder that escapes a class of the key's characters (JSON_ENCODERS' name): the run's
    line changes, its status does not, and the key is masked everywhere, its inspect logs
    included."""
    row = ROWS[name]
    row.fault(server)
    server.echo_key = bool(echo)
    server.json_encoder = echo if isinstance(echo, str) else None
    if echo and row.status != 4 and INSPECT:
        more = (*more, "--inspect-log-dir", str(tmp_path / "inspect"))
    if row.prepare is not None:
        row.prepare(tmp_path)
    if row.data:
        own_data_dir(tmp_path / "data", files=row.data, user=Path(child_env()[
            "CONTEXTROT_DATA_DIR"]))
    ran = run(row.command(server, tmp_path, *more), row.environment(server, tmp_path))
    ran.assert_clean(row.status, row.line if not echo else "")
    if row.check is not None:
        row.check(tmp_path)
    written = [p.read_bytes().decode(errors="replace") for p in tmp_path.rglob("*")
               if p.relative_to(tmp_path).parts[0] != "data"  # (the shared data, linked)
               and p.is_file() and p.suffix in WRITTEN] + \
        [inspect_log_text(log) for log in tmp_path.rglob("*.eval")]
    # (a usage error, exit 4, ends pytest before it writes one)
    assert (tmp_path / "junit.xml").is_file() or row.status == 4
    assert [text.count(KEY) + text.count(SECRET) for text in [ran.output, *written]] == \
        [0] * (1 + len(written))
    assert server.echoed or not echo  # it did quote the key (a canary that can fail)


def digests(folder: Path) -> dict[str, str]:
    """Every file below ``folder``, links followed, by its sha256."""
    import hashlib

    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


DATA_ROWS = [name for name, row in ROWS.items() if row.data]


def test_the_rows_that_break_data_leave_the_users_data_byte_identical(server, tmp_path,
                                                                       monkeypatch):
    """A user's data directory holding files of their own at every path a row breaks (a
    SQuAD folder of their own, fetched): after every such row has run against it, each of its
    files is as it was."""
    user = own_data_dir(tmp_path / "user-data", user=Path(child_env()["CONTEXTROT_DATA_DIR"]),
                        files={path: f"the user's own {path}\n".encode() * 100
                               for name in DATA_ROWS for path in ROWS[name].data})
    before = digests(user)
    monkeypatch.setenv("CONTEXTROT_DATA_DIR", str(user))
    for name in DATA_ROWS:
        (tmp_path / name).mkdir()
        test_each_fault_is_one_line_with_its_exit_status(name, (), False, server,
                                                         tmp_path / name)
    assert DATA_ROWS and digests(user) == before


def inspect_log_text(path: Path) -> str:
    """An inspect log (a compressed zip) as inspect_ai reads it, samples included, as JSON."""
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path)).model_dump_json()


# -- Ctrl-C --------------------------------------------------------------------------------
class Watched:
    """A run whose output is read as it comes, so a signal can be sent at a chosen point."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None):
        self.process = subprocess.Popen(command, cwd=ROOT, env=env or child_env(),
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, start_new_session=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, ready: Callable[[], bool], timeout: float = RUN_S) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            assert self.process.poll() is None, "".join(self.lines)[-3000:]
            assert time.monotonic() < deadline, "".join(self.lines)[-3000:]
            time.sleep(0.01)

    def interrupt(self) -> None:
        """Ctrl-C at a terminal: SIGINT to the whole process group."""
        os.killpg(self.process.pid, signal.SIGINT)

    def finish(self) -> Ran:
        try:
            status = self.process.wait(RUN_S)
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
        self._reader.join(10)
        return Ran(status, "".join(self.lines))


def records_in(results: Path) -> int:
    found = list(results.glob("*/samples.jsonl"))
    return len(found[0].read_text().splitlines()) if found else 0


SAMPLES = 15  # repeated words at test scale
INTERRUPTS = {  # when Ctrl-C comes, and how many records the run must have kept by then
    "before-the-first-record": (lambda out, results: "contextrot: run " in out, 0),
    "mid-run": (lambda out, results: records_in(results) >= 3, 3),
    "while-the-files-are-written": (lambda out, results: records_in(results) >= SAMPLES,
                                    SAMPLES),
}


@pytest.mark.parametrize(("point", "workers"), [
    pytest.param(point, workers, id=f"{point}-{'n2' if workers else 'serial'}")
    for point in [*INTERRUPTS, "twice"] for workers in [(), ("-n", "2")]
    if not (workers and point == "before-the-first-record")])  # (no worker has a record yet)
def test_ctrl_c_at_any_point_exits_2_with_the_files_of_what_was_recorded(point, workers,
                                                                          tmp_path):
    results = tmp_path / "results"
    with ScriptedServer("copy", latency_s=0.15) as server:
        run_ = Watched(pytest_command("-m", "repeated_words", "--model", "scripted",
                                      "--base-url", server.base_url, "--max-connections", "1",
                                      "--results-dir", str(results), "--run-id", "stopped",
                                      *workers))
        ready, kept = INTERRUPTS.get(point, INTERRUPTS["mid-run"])
        run_.wait_for(lambda: ready("".join(run_.lines), results))
        run_.interrupt()
        if point == "twice":
            time.sleep(0.2)
            run_.interrupt()
        ran = run_.finish()
    summary = json.loads((results / "stopped" / "summary.json").read_text())
    assert ran.status == 2, ran.output[-3000:]
    assert not TRACEBACK.search(ran.output), ran.output[-6000:]
    assert summary["received"] >= kept and summary["expected"] == SAMPLES
    assert (results / "stopped" / "report.html").is_file()
    with sqlite3.connect(results / "contextrot.sqlite") as db:
        stored, = db.execute("SELECT count(*) FROM samples").fetchone()
    assert stored == summary["received"] == records_in(results)
    if summary["received"] < SAMPLES:
        assert f"contextrot: {SAMPLES - summary['received']} samples were not run (the run " \
               "stopped); run the same command again" in ran.output


@pytest.mark.parametrize(("signum", "workers"), [
    pytest.param(signum, workers, id=f"{signum.name.lower()}-{'n2' if workers else 'serial'}")
    for signum in (signal.SIGINT, signal.SIGTERM) for workers in [(), ("-n", "2")]])
def test_a_signal_to_the_controller_alone_stops_its_workers_and_the_rerun_resumes(
        signum, workers, tmp_path):
    """What ``kill`` or a CI runner's cancel sends reaches the xdist controller only, not its
    workers as a terminal's Ctrl-C does: the run still stops within seconds (it once printed
    "the run stops" and ran every worker's queue to its end), and the same command again
    runs what is left."""
    results = tmp_path / "results"
    with ScriptedServer("copy", latency_s=0.5) as server:
        command = pytest_command("-m", "repeated_words", "--model", "scripted", "--base-url",
                                 server.base_url, "--max-connections", "1", "--results-dir",
                                 str(results), "--run-id", "stopped", *workers)
        run_ = Watched(command)
        run_.wait_for(lambda: records_in(results) >= 2)
        asked = len(server.requests)
        run_.process.send_signal(signum)  # the controller's pid alone
        ran = run_.finish()
        asked_after = len(server.requests) - asked
        summary = json.loads((results / "stopped" / "summary.json").read_text())
        assert ran.status == 2, ran.output[-3000:]
        assert not TRACEBACK.search(ran.output), ran.output[-6000:]
        name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        # (serial, the note goes to the test's captured stderr)
        assert f"contextrot: {name}: the run stops" in ran.output or not workers
        # no sample is asked once the signal came (the two workers' requests in flight then
        # may still be sent: one waits for the connection)
        assert asked_after <= 2 and summary["received"] <= asked + 2 < SAMPLES, \
            (asked, asked_after, summary["received"])
        again = run(command)
    again.assert_clean(0, f"samples: {SAMPLES} received of {SAMPLES} expected")
    assert records_in(results) == SAMPLES


# -- a worker killed mid-run ---------------------------------------------------------------
def xdist_workers(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children
            if b"sys.stdin.readline" in Path(f"/proc/{c}/cmdline").read_bytes()]


@pytest.mark.skipif(not Path(f"/proc/self/task/{os.getpid()}/children").exists(),
                    reason="finds xdist's workers in /proc (Linux)")
def test_a_worker_killed_mid_run_names_the_sample_that_sent_no_record(tmp_path):
    results = tmp_path / "results"
    with ScriptedServer("copy", latency_s=0.15) as server:
        run_ = Watched(pytest_command("-m", "repeated_words", "-n", "2", "--model", "scripted",
                                      "--base-url", server.base_url, "--max-connections", "2",
                                      "--results-dir", str(results)))
        run_.wait_for(lambda: records_in(results) >= 2)
        os.kill(xdist_workers(run_.process.pid)[0], signal.SIGKILL)
        ran = run_.finish()
    ran.assert_clean(1, r"contextrot: \d+ expected samples sent no record \(a crashed "
                        r"worker\?\): benchmarks/repeated_words")


# -- read-only folders and a full disk -----------------------------------------------------
def _can_unshare() -> bool:
    if not shutil.which("unshare") or not shutil.which("mount"):
        return False
    try:
        return subprocess.run(["unshare", "--mount", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


UNSHARE = os.geteuid() == 0 and _can_unshare()
read_only_possible = pytest.mark.skipif(
    os.geteuid() == 0 and not UNSHARE,
    reason="as root, a read-only folder needs a mount namespace (unshare --mount)")


def read_only(folder: Path, command: list[str]) -> list[str]:
    """``command``, run where ``folder`` is read-only: a read-only bind mount in a mount
    namespace of its own (root), or ``chmod`` (anyone else, whom it binds)."""
    if os.geteuid() != 0:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        return command
    return ["unshare", "--mount", "sh", "-c",
            'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
            str(folder), *command]


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A results folder holding one good run, ``good``, and no lock file beside its store
    (made once per process: every test here only reads it)."""
    results = tmp_path_factory.mktemp("stored")
    with ScriptedServer("copy") as server:
        run(pytest_command("--model", "scripted", "--base-url", server.base_url,
                           "--results-dir", str(results), "--run-id", "good", *ONE)
            ).assert_clean(0, "1 passed")
    for lock in results.glob("*.lock"):
        lock.unlink()
    return results


@read_only_possible
def test_a_read_only_results_folder_is_one_line_not_a_broken_store(stored, server):
    ran = run(read_only(stored, pytest_command("--model", "scripted", "--base-url",
                                                server.base_url, "--results-dir", str(stored),
                                                *ONE)))
    ran.assert_clean(4, rf"^ERROR: --results-dir {stored} is read-only; give a folder you can "
                        r"write \(runs stored in a read-only folder can still be read")
    assert "not a usable SQLite" not in ran.output and not list(stored.glob("*.lock"))


@read_only_possible
def test_a_new_results_folder_under_a_read_only_one_is_one_line(server, tmp_path):
    parent = tmp_path / "parent"
    parent.mkdir()
    ran = run(read_only(parent, pytest_command("--model", "scripted", "--base-url",
                                                server.base_url, "--results-dir",
                                                str(parent / "new"), *ONE)))
    ran.assert_clean(4, rf"^ERROR: --results-dir {parent}/new cannot be made: {parent} is "
                        "read-only")


READERS = {  # python -m reporting on a read-only store: reading works, writing is one line
    "runs": (["runs"], 0, r"^good  started .* samples 1  experiments repeated_words"),
    "report-elsewhere": (["report", "good", "--out", "{out}"], 0, r"^{out}/report.html$"),
    "export-elsewhere": (["export", "good", "--format", "csv", "--out", "{out}/good.csv"], 0,
                         r"^{out}/good.csv$"),
    "leaderboard-elsewhere": (["leaderboard", "--out", "{out}"], 0, r"^written: {out}/"),
    "gate": (["gate", "good", "--baseline", "good", "--fail-on", "repeated_words:-5%"], 0,
             r"^gate: passed"),
    "report-into-it": (["report", "good"], 2,
                       r"^error: cannot write .*good/summary.json \(the folder is read-only\); "
                       r"its stored runs can still be read: pass --out DIR"),
    "export-into-it": (["export", "good", "--format", "jsonl"], 2,
                       r"^error: cannot write .*export.jsonl \(the folder is read-only\)"),
}


@read_only_possible
@pytest.mark.parametrize("name", READERS)
def test_a_read_only_store_is_read_and_writing_to_it_is_one_line(name, stored, tmp_path):
    args, status, line = READERS[name]
    out = tmp_path / "elsewhere"
    args = [a.replace("{out}", str(out)) for a in args]
    ran = run(read_only(stored, reporting_command(*args, "--results-dir", str(stored))))
    ran.assert_clean(status, line.replace("{out}", re.escape(str(out))))
    assert not list(stored.glob("*.lock"))


@read_only_possible
@pytest.mark.skipif(not INSPECT, reason="inspect logs need the [inspect] extra")
@pytest.mark.parametrize("made", [True, False], ids=["read-only", "under-a-read-only-one"])
def test_a_read_only_inspect_log_dir_is_named_as_the_folder_it_is(made, server, tmp_path):
    """Not "the results dir is read-only": the results folder is fine."""
    parent = tmp_path / "parent"
    logs = parent / "logs" if not made else parent
    parent.mkdir()
    ran = run(read_only(parent, pytest_command(
        "--model", "scripted", "--base-url", server.base_url, "--results-dir",
        str(tmp_path / "results"), "--inspect-log-dir", str(logs), *ONE)))
    where = "is read-only" if made else f"cannot be made: {parent} is read-only"
    ran.assert_clean(4, rf"^ERROR: --inspect-log-dir {logs} {where}; give a folder you can "
                        "write$")


@pytest.fixture
def damaged(stored, tmp_path) -> Path:
    """A copy of ``stored`` where one record of ``good`` and the whole entry of a run
    ``broken`` (no records) are not JSON, as a crash, a disk or a hand may leave them."""
    results = tmp_path / "damaged"
    shutil.copytree(stored, results)
    with sqlite3.connect(results / "contextrot.sqlite") as db:
        db.execute("INSERT INTO samples SELECT run_id, sample_id || '-copy', experiment, "
                   "stimulus_hash, outcome, '{\"experiment\": \"repeated_w' FROM samples")
        db.execute("INSERT INTO runs(run_id, started_at, info) VALUES ('broken', "
                   "'2999-01-01T00:00:00+00:00', 'not JSON {')")
    return results


UNREADABLE = r"^warning: .*contextrot\.sqlite: run 'good', sample .*-copy: its record is " \
             r"not readable \(JSONDecodeError: Unterminated string.*\); left out"
BAD_STORE = {  # python -m reporting on a store with unreadable entries: named, the rest read
    "runs": (["runs"], 0, r"^good  started .* samples 1  experiments repeated_words"),
    "runs-names-the-run": (["runs"], 0, r"^warning: .*: run 'broken': its entry \(the run's "
                                        r"options\) is not readable \(JSONDecodeError"),
    "runs-names-the-record": (["runs"], 0, UNREADABLE),
    "report": (["report", "good", "--out", "{out}"], 0, UNREADABLE),
    "export-csv": (["export", "good", "--format", "csv", "--out", "{out}/good.csv"], 0,
                   UNREADABLE),
    "export-jsonl": (["export", "good", "--format", "jsonl", "--out", "{out}/good.jsonl"], 0,
                     r"^{out}/good\.jsonl$"),
    "export-summary": (["export", "good", "--format", "summary", "--out", "{out}/s.json"], 0,
                       UNREADABLE),
    "leaderboard": (["leaderboard", "--out", "{out}"], 0, r"^written: {out}/"),
    "gate": (["gate", "good", "--baseline", "good", "--fail-on", "repeated_words:-5%"], 0,
             r"^gate: passed"),
    "compare": (["compare", "good", "broken", "--out", "{out}"], 0, r"^plots and page: "),
    # a run with no records to export, and an --out whose folder cannot be made
    "export-a-run-without-records": (["export", "broken", "--format", "csv", "--out",
                                      "{out}/x.csv"], 2,
                                     r"^error: run 'broken' in .* has no records to export"),
    "export-out-under-a-file": (["export", "good", "--format", "csv", "--out",
                                 "{file}/sub/x.csv"], 2,
                                r"^error: --out .*/file/sub: the folder cannot be made: "
                                r".*/file is a file, not a folder; give a folder you can write"),
    "export-out-cannot-be-made": (["export", "good", "--format", "csv", "--out",
                                   "/proc/contextrot-none/x.csv"], 2,
                                  r"^error: --out /proc/contextrot-none: the folder cannot be "
                                  r"made: .*; give a folder you can write"),
    "report-out-cannot-be-made": (["report", "good", "--out", "/proc/contextrot-none"], 2,
                                  r"^error: --out /proc/contextrot-none: the folder cannot be "
                                  r"made"),
}


@pytest.mark.parametrize("name", BAD_STORE)
def test_an_unreadable_entry_in_the_store_is_named_and_the_rest_is_read(name, damaged,
                                                                        tmp_path):
    args, status, line = BAD_STORE[name]
    out = tmp_path / "elsewhere"
    (tmp_path / "file").write_text("a file")
    fill_out = {"{out}": str(out), "{file}": str(tmp_path / "file")}
    for mark, value in fill_out.items():
        args = [a.replace(mark, value) for a in args]
    ran = run(reporting_command(*args, "--results-dir", str(damaged)))
    ran.assert_clean(status, line.replace("{out}", re.escape(str(out))))


@pytest.mark.skipif(not UNSHARE, reason="a small disk of its own needs a mount namespace "
                                        "(root with unshare --mount)")
def test_a_full_disk_mid_run_stops_it_with_one_line(tmp_path):
    """The results folder is a 4 MB tmpfs of the run's own; once records arrive, the test
    fills it (through the run's /proc/PID/root, the only way into its mounts)."""
    results = tmp_path / "results"
    results.mkdir()
    with ScriptedServer("copy", latency_s=0.1) as server:
        command = pytest_command("-m", "repeated_words", "--model", "scripted", "--base-url",
                                 server.base_url, "--max-connections", "1", "--results-dir",
                                 str(results))
        run_ = Watched(["unshare", "--mount", "sh", "-c",
                        'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"', str(results),
                        *command])
        inside = Path(f"/proc/{run_.process.pid}/root") / results.relative_to("/")
        run_.wait_for(lambda: records_in(inside) >= 2)
        with (inside / "filler").open("wb") as filler:
            with pytest.raises(OSError, match="No space left"):
                while True:
                    filler.write(b"\0" * 65536)
                    filler.flush()
        ran = run_.finish()
    ran.assert_clean(2, r"contextrot: cannot write the (results store in|response cache) "
                        rf"{results}.* \(the disk is full\): free space or give another "
                        r"--results-dir, then run the same command again")
