"""Review mends of training/: bad exploit options are refused before any training starts,
and the rllib section is checked by the shared config-section builder."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.cli import main
from training.config import config_from_dict


@pytest.mark.parametrize(("option", "message"), [
    (["--games", "0"], "argument --games: must be a positive integer"),
    (["--workers", "0"], "argument --workers: must be a positive integer"),
    (["--json", "{tmp}/missing/out.json"], "does not exist"),
])
def test_exploit_refuses_bad_options_before_training(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
        option: list[str], message: str) -> None:
    import training.exploit

    def no_training(*args: object, **kwargs: object) -> None:
        raise AssertionError("exploit() ran despite a bad option")

    monkeypatch.setattr(training.exploit, "exploit", no_training)
    args = [o.replace("{tmp}", str(tmp_path)) for o in option]
    assert main(["exploit", str(tmp_path / "x.zip"), "--steps", "10", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("section", "message"), [
    (5, "config section 'rllib' must be a mapping"),
    ({"num_runners": 2}, "unknown key(s) 'num_runners' in 'rllib'"),
    ({"num_env_runners": -1}, "rllib.num_env_runners must be an integer >= 0"),
])
def test_rllib_section_errors(section: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        config_from_dict({"game": "paladin", "run_dir": "x", "backend": "rllib",
                          "rllib": section})


def test_rllib_section_defaults() -> None:
    from training.rllib.settings import rllib_settings

    cfg = config_from_dict({"game": "paladin", "run_dir": "x", "backend": "rllib"})
    assert rllib_settings(cfg).num_env_runners == 2
