"""The data registry: every declared file is found, verified, or refused with the fix."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.data import registry as data

from ..data_dir import users_own_data_dir

ROOT = Path(__file__).resolve().parents[2]

needs_data = pytest.mark.skipif(not os.environ.get(data.DATA_DIR_VARIABLE),
                                reason=f"{data.DATA_DIR_VARIABLE} is not set")


def test_every_entry_names_its_source_and_license():
    # + openai/mrcr's six, NoLiMa's 11, LongMemEval's two, GraphWalks' two, AA-LCR's two
    assert len(data.REGISTRY) == 15 + 114 + 6 + 11 + 2 + 2 + 2
    for entry in data.REGISTRY.values():
        # NoLiMa's files are fetched by the user and have no published hash; nor has Chroma's
        # LongMemEval parquet nor openai/graphwalks' (optional, read unverified)
        assert (len(entry.sha256) == 64 or entry.user_fetched
                or entry.name == "longmemeval/cleaned-longmemeval-s.parquet"
                or entry.name.startswith("openai_graphwalks/"))
        assert entry.url and entry.license
        assert entry.derived or entry.url.startswith("https://")


@needs_data
def test_every_registered_file_is_present_and_verified(monkeypatch):
    """The user's own data directory (not the session's hermetic copy): every file the
    shared data holds is there; a registered file there with another digest (a partial
    download, another revision) is not a failure of the suite, which never reads it: the
    test skips, naming each."""
    user = users_own_data_dir()
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(user))
    other = [name for name, entry in sorted(data.REGISTRY.items()) if entry.sha256 and
             (user / name).is_file() and data.file_sha256(user / name) != entry.sha256]
    for name, entry in data.REGISTRY.items():
        if name not in other and (not entry.optional or (user / name).exists()):
            assert data.data_file(name).is_file()
    assert {n for n, e in data.REGISTRY.items() if e.optional} == {
        "squad/dev-v2.0.json", "hotpotqa/hotpot_dev_distractor_v1.json",
        *(f"openai_mrcr/{n}needle/{n}needle_{i}.parquet" for n in (2, 4, 8) for i in (0, 1)),
        "longmemeval/cleaned-longmemeval-s.parquet", "longmemeval/longmemeval_s_cleaned.json",
        "openai_graphwalks/graphwalks_128k_and_shorter.parquet",
        "openai_graphwalks/graphwalks_256k_to_1mil.parquet",
        *(n for n, e in data.REGISTRY.items() if e.user_fetched)}
    assert {n.split("/")[0] for n, e in data.REGISTRY.items() if e.user_fetched} == {
        "nolima", "aa_lcr"}
    if other:
        pytest.skip(f"{user}: not the registered files, which the tests do not read "
                    f"(replace each with its source's): {', '.join(other)}")


def test_a_user_fetched_file_is_never_downloaded_and_names_its_source_and_licence(
        tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path))
    data.data_file.cache_clear()
    with pytest.raises(data.DataUnavailable, match="fetch it yourself from https://huggingface"
                                                   r"\.co/datasets/amodaresi/NoLiMa/.*Adobe "
                                                   "Research License"):
        data.data_file("nolima/needlesets/needle_set.json")
    (tmp_path / "nolima" / "needlesets").mkdir(parents=True)
    (tmp_path / "nolima" / "needlesets" / "needle_set.json").write_text("[]")
    data.data_file.cache_clear()
    assert data.data_file("nolima/needlesets/needle_set.json").read_text() == "[]"
    data.data_file.cache_clear()


def test_a_file_with_the_wrong_hash_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path))
    (tmp_path / "gsm8k").mkdir()
    (tmp_path / "gsm8k" / "LICENSE").write_text("not the license")
    data.data_file.cache_clear()
    with pytest.raises(data.DataUnavailable, match="sha256 .* expected .* replace it"):
        data.data_file("gsm8k/LICENSE")
    data.data_file.cache_clear()


def test_a_missing_derived_file_says_where_it_comes_from(tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path))
    data.data_file.cache_clear()
    with pytest.raises(data.DataUnavailable, match="derived from .*gutenberg"):
        data.data_file("gutenberg/pride-and-prejudice.txt")
    data.data_file.cache_clear()


def test_a_file_without_a_known_digest_is_read_unverified(tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path))
    name = "longmemeval/cleaned-longmemeval-s.parquet"
    (tmp_path / "longmemeval").mkdir()
    (tmp_path / name).write_bytes(b"any bytes")
    data.data_file.cache_clear()
    assert data.data_file(name) == tmp_path / name
    data.data_file.cache_clear()


def test_an_unreachable_source_gives_one_clear_error(tmp_path):
    entry = data.DataFile("x/file.txt", "0" * 64, "http://127.0.0.1:9/file.txt", "MIT")
    with pytest.raises(data.DataUnavailable, match="could not be downloaded .* set "
                                                   "CONTEXTROT_DATA_DIR"):
        data._download(entry, tmp_path / "x" / "file.txt")


def test_unknown_names_are_refused():
    with pytest.raises(data.DataUnavailable, match="not in the data registry"):
        data.data_file("nope.txt")


def test_nltk_loads_without_scipy_which_still_imports_afterwards():
    code = ("import sys; from fixtures.data.registry import import_nltk; import_nltk(); "
            "from nltk.tokenize.punkt import PunktSentenceTokenizer; "
            "print('scipy' in sys.modules); import scipy.stats; print('scipy' in sys.modules)")
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    assert found.stdout.split() == ["False", "True"]


def test_a_download_that_fails_leaves_no_empty_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, str(tmp_path / "data"))
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # refused at once, even online
    monkeypatch.setenv("NO_PROXY", "")
    data.data_file.cache_clear()
    with pytest.raises(data.DataUnavailable, match="could not be downloaded"):
        data.data_file("squad/dev-v2.0.json")
    assert not (tmp_path / "data").exists()
    data.data_file.cache_clear()


def test_a_relative_data_dir_is_read_once_where_the_run_started(tmp_path, monkeypatch):
    """The README's ``CONTEXTROT_DATA_DIR=../shared/data``: made absolute at the start, so a
    process started in another folder (a test's pytest in a temporary folder) inherits a path
    naming the same data."""
    started_in = tmp_path / "clone"
    monkeypatch.setenv(data.DATA_DIR_VARIABLE, "../shared/data")
    monkeypatch.setenv("NLTK_DATA", os.pathsep.join(["../shared/data/nltk_data", "/abs/nltk"]))
    data.pin_data_dirs(started_in)
    assert os.environ[data.DATA_DIR_VARIABLE] == str(tmp_path / "shared" / "data")
    assert os.environ["NLTK_DATA"].split(os.pathsep) == [
        str(tmp_path / "shared" / "data" / "nltk_data"), "/abs/nltk"]
    data.pin_data_dirs(tmp_path / "elsewhere")  # once absolute, it stays
    assert os.environ[data.DATA_DIR_VARIABLE] == str(tmp_path / "shared" / "data")


def test_no_data_dir_variable_stays_unset(tmp_path, monkeypatch):
    monkeypatch.delenv(data.DATA_DIR_VARIABLE, raising=False)
    monkeypatch.delenv("NLTK_DATA", raising=False)
    data.pin_data_dirs(tmp_path)
    assert data.DATA_DIR_VARIABLE not in os.environ and "NLTK_DATA" not in os.environ


def test_a_bad_data_file_is_one_line_naming_it_and_is_read_once(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text('{"data": [')
    reads = []

    def read(file):
        reads.append(file)
        return json.loads(file.read_text())["data"]

    for _ in range(3):
        with pytest.raises(data.DataUnavailable) as caught:
            data.read_checked(path, read, "replace it with the registered file")
        assert str(caught.value) == f"{path}: not JSON (Expecting value, line 1); replace " \
                                    "it with the registered file"
    assert reads == [path]  # remembered: one read per process, not one per sample
    other = tmp_path / "other.json"
    other.write_text('{"rows": []}')
    with pytest.raises(data.DataUnavailable, match=r"other.json: no field 'data'; fix"):
        data.read_checked(other, read, "fix")
