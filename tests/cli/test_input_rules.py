"""The CLI refuses what the library refuses, with the same words and a non-zero exit."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from memlane.cli import cli


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["fact", "set", "U-TRAIL ", "city", "Reykjavik"], "subject: must not start or end"),
        (["forget", "U-TRAIL "], "subject: must not start or end"),
        (["fact", "set", "U\x01", "city", "Reykjavik"], "subject: must not contain control"),
        (["fact", "get", "U" * 513, "city"], "subject: longer than 512"),
        (
            ["fact", "set", "U-1", "city", "x", "--valid-from", "0001-01-01T00:00+14:00"],
            "out of range",
        ),
        (
            [
                "--timezone",
                "Asia/Shanghai",
                "fact",
                "get",
                "U-1",
                "city",
                "--valid-at",
                "0001-01-01",
            ],
            "out of range",
        ),
        (["purge", "--subject", " U-LEAD"], "subject: must not start or end"),
    ],
)
def test_bad_input_exits_non_zero_with_the_library_message(tmp_path, monkeypatch, args, says):
    monkeypatch.setenv("MEMLANE_URL", str(tmp_path / "cli.db"))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert says in result.output
    assert "Traceback" not in result.output
