# Sourced by ./run and ./test: create .venv and install the project when missing or stale.
# Usage: source scripts/venv.sh [dev]
_extra=""
[ "${1:-}" = "dev" ] && _extra="[dev]"
_stamp=".venv/.installed${_extra:+-dev}"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
if [ ! -f "$_stamp" ] || [ pyproject.toml -nt "$_stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".${_extra}"
    touch "$_stamp"
fi
