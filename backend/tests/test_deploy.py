"""docker-compose.yml and the Dockerfile are well-formed (checked by docker where it exists)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_compose_file_has_the_production_settings():
    text = (REPO / "docker-compose.yml").read_text()
    for needle in (
        "dockerfile: backend/Dockerfile",
        "DIDAX_SANDBOX: full",
        "shares:/data",
        "DIDAX_DB_PATH: /data/shares.sqlite3",
    ):
        assert needle in text
    dockerfile = (REPO / "backend" / "Dockerfile").read_text()
    assert '"--host", "0.0.0.0"' in dockerfile and "bubblewrap" in dockerfile


def _has_compose() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.mark.skipif(not _has_compose(), reason="no docker compose client on this machine")
def test_docker_compose_config():
    done = subprocess.run(
        ["docker", "compose", "config", "-q"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
