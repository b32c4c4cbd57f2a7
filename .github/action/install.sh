#!/usr/bin/env bash
# Install eventproof from this action's own checkout into a private virtual environment, so the
# job's Python (and a system Python that refuses pip installs) is left untouched.
#
# Environment: GITHUB_ACTION_PATH (the action's checkout), RUNNER_TEMP, GITHUB_OUTPUT,
# INPUT_PYTHON (the interpreter to build the environment from, default python3),
# INPUT_HYPOTHESIS_VERSION (optional: pin Hypothesis, e.g. 6.170.17).
# Output: python=<the environment's interpreter>, which run.py is started with.
set -euo pipefail

python="${INPUT_PYTHON:-python3}"
action_path="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set: run this as a GitHub Action step}"
venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/eventproof-venv"

if ! command -v "$python" >/dev/null 2>&1; then
  echo "::error title=eventproof::input python: '$python' is not on PATH; install Python 3.11 or newer (actions/setup-python) or name another interpreter"
  exit 2
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  found="$("$python" -c 'import sys; print(sys.version.split()[0])')"
  echo "::error title=eventproof::input python: '$python' is Python $found; eventproof needs 3.11 or newer (set python-version, or use actions/setup-python first)"
  exit 2
fi

packages=("$action_path")
if [ -n "${INPUT_HYPOTHESIS_VERSION:-}" ]; then
  packages+=("hypothesis==${INPUT_HYPOTHESIS_VERSION}")
fi
# With a pip that can install into another interpreter (pip 22.3+, --python), the environment
# is made without a pip of its own, which saves the seconds venv spends installing one.
if "$python" -m pip --python "$(command -v "$python")" --version >/dev/null 2>&1; then
  "$python" -m venv --without-pip "$venv"
  own_pip=false
else
  "$python" -m venv "$venv"
  own_pip=true
fi
if [ -x "$venv/bin/python" ]; then bin="$venv/bin"; else bin="$venv/Scripts"; fi
if "$own_pip"; then pip=("$bin/python" -m pip); else pip=("$python" -m pip --python "$bin/python"); fi
"${pip[@]}" install --quiet --disable-pip-version-check "${packages[@]}"
"$bin/eventproof" --version
echo "python=$bin/python" >> "${GITHUB_OUTPUT:-/dev/null}"
