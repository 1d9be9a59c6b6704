#!/usr/bin/env bash
# Regenerate the lock files from pyproject.toml after changing a dependency (or to take
# newer releases): every package pinned with the hashes of all its published files, for
# every platform Python 3.11+ runs on, so ./run, ./test and the image install exactly these.
#   requirements.lock      the bot (./run, deploy/Dockerfile)
#   requirements-dev.lock  the bot and the test tools (./test, .ci/run)
# Needs uv (pip install uv). Extra arguments go to both compiles, e.g. --upgrade.
set -euo pipefail
cd "$(dirname "$0")/.."
compile() {
    uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
        --custom-compile-command scripts/lock.sh --quiet "$@"
}
compile "${@}" -o requirements.lock
# the dev lock keeps the runtime lock's versions: ./run after ./test runs what ./test tested
compile "${@}" --extra dev -c requirements.lock -o requirements-dev.lock
