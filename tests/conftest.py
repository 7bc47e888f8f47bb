import os

from hypothesis import settings

pytest_plugins = ["pytester"]

# CI explores a fixed set of examples (the same on every run, so a red build is reproducible);
# a developer's run keeps exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
