# Sourced by ./run and ./test: create .venv and install the project when missing or stale.
# Usage: source scripts/venv.sh [dev]
# One install serves both: the marker records what was installed ("dev" includes what ./run
# needs), so ./run after ./test installs nothing; ./test after ./run adds the dev extra once.
_want=""
if [ "${1:-}" = dev ]; then _want=dev; fi  # ./run sources this with its own arguments
_stamp=".venv/.installed"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
_have="$(cat "$_stamp" 2>/dev/null || echo none)"
if [ "$_have" = none ] || [ pyproject.toml -nt "$_stamp" ] || { [ "$_want" = dev ] && [ "$_have" != dev ]; }; then
    if [ "$_have" = dev ]; then _want=dev; fi  # never drop the dev tools once installed
    .venv/bin/python -m pip install --quiet --upgrade pip
    # setuptools announces every editable install in a boxed warning that looks like an
    # error; it is information only, so that one message is filtered (nothing else is)
    PYTHONWARNINGS="ignore:Editable installation" \
        .venv/bin/python -m pip install --quiet -e ".${_want:+[$_want]}"
    echo "$_want" > "$_stamp"
fi
unset _want _stamp _have
