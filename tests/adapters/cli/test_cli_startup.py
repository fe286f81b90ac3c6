"""What the ``perfstats`` command loads before it knows what it will do."""

from __future__ import annotations

import json
import subprocess
import sys

# Each costs a second or more to import here; a command that needs one
# imports it when it runs, not when the parser is built.
DEFERRED = ["scipy.stats", "matplotlib", "boto3", "distributed", "sklearn", "statsmodels"]


def test_building_the_parser_loads_none_of_the_heavy_libraries() -> None:
    probe = (
        "import json, sys\n"
        "from perfstats.adapters.cli.main import build_parser\n"
        "parser = build_parser()\n"
        "parser.format_help()\n"
        "print(json.dumps(sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(DEFERRED)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == []
