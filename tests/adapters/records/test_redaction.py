"""Secrets kept out of records: headers, environment variables and URLs."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from perfstats.adapters.records.redaction import REDACTED, redact

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)

class TestRedaction:
    def test_headers_env_and_urls(self) -> None:
        config = {
            "headers": {"Authorization": "Bearer s3cr3t", "X-Api-Key": "k", "Accept": "*/*"},
            "env": {"AWS_SECRET_ACCESS_KEY": "abc", "GITHUB_TOKEN": "t", "PATH": "/bin"},
            "url": "https://user:pw@host/f?sig=zz&n=1",
            "key": "/home/me/.ssh/id_ed25519",
        }
        text = json.dumps(redact(config))
        for secret in ("s3cr3t", '"k"', "abc", '"t"', "pw@", "zz"):
            assert secret not in text
        out = redact(config)
        assert out["headers"]["Accept"] == "*/*" and out["env"]["PATH"] == "/bin"
        assert out["headers"]["Authorization"] == REDACTED
        assert out["key"] == "/home/me/.ssh/id_ed25519"
