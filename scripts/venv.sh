# Sourced by ./run and ./test: create .venv and install the project when missing or stale.
# Usage: source scripts/venv.sh [dev]
# The dependencies come from a lock file, every file checked against its hash
# (requirements.lock for ./run, requirements-dev.lock for ./test; scripts/lock.sh makes
# them), then the project itself, editable and without dependencies. The stamp records which
# lock and which pyproject.toml were installed: a change to either installs again. One
# install serves both: "dev" includes what ./run needs, so ./run after ./test installs
# nothing; ./test after ./run adds the dev tools once.
_want=""
if [ "${1:-}" = dev ]; then _want=dev; fi  # ./run sources this with its own arguments
_stamp=".venv/.installed"
_have="$(head -n 1 "$_stamp" 2>/dev/null || echo none)"
if [ "$_have" = dev ]; then _want=dev; fi  # never drop the dev tools once installed
_lock="requirements${_want:+-$_want}.lock"
# what is to be installed: the kind, then the checksums of the lock and of pyproject.toml
_expect="$(printf '%s\n' "$_want"; cksum < "$_lock"; cksum < pyproject.toml)"
if [ "$(cat "$_stamp" 2>/dev/null)" != "$_expect" ]; then
    if [ "$_have" = none ]; then
        echo "Installing dependencies into .venv (first run, about a minute)…" >&2
    elif [ "$_have" != "$_want" ]; then
        echo "Installing the test tools into .venv (once)…" >&2
    else
        echo "Updating .venv: $_lock or pyproject.toml changed…" >&2
    fi
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv
    fi
    # --no-compile: pip would byte-compile every module of every package (some 20 s of a
    # fresh clone's ./test); Python compiles what is imported, once, on first use
    .venv/bin/python -m pip install --quiet --no-compile --require-hashes -r "$_lock"
    # setuptools announces every editable install in a boxed warning that looks like an
    # error; it is information only, so that one message is filtered (nothing else is)
    PYTHONWARNINGS="ignore:Editable installation" \
        .venv/bin/python -m pip install --quiet --no-deps -e .
    echo "$_expect" > "$_stamp"
fi
unset _want _stamp _have _lock _expect
