import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import settings

from .data_dir import USER_DATA_VARIABLE, hermetic_data_dir, user_data_dir

pytest_plugins = ["pytester"]

# CI explores a fixed set of examples (the same on every run, so a red build is reproducible);
# a developer's run keeps exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    """The session reads a data directory of its own (tests/data_dir.py,
    ``hermetic_data_dir``): the user's, less the optional and the wrong-digest registered
    files, so no test reads a file it did not ship or build. Made once, by the process that
    starts the session (xdist's workers and every subprocess inherit it)."""
    if os.environ.get(USER_DATA_VARIABLE) or hasattr(config, "workerinput") or \
            not os.environ.get("CONTEXTROT_DATA_DIR"):  # (none given: none read)
        return
    user = user_data_dir()
    folder = Path(tempfile.mkdtemp(prefix="contextrot-tests-data-"))
    hermetic_data_dir(folder / "data", user.resolve())
    os.environ[USER_DATA_VARIABLE] = str(user.resolve())
    os.environ["CONTEXTROT_DATA_DIR"] = str(folder / "data")
    if not os.environ.get("NLTK_DATA"):
        os.environ["NLTK_DATA"] = str(folder / "data" / "nltk_data")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
