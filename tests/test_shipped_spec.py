"""``checkpoint`` — the game's shipped network — is a policy spec in every command and API that
takes one, found in the package data whatever the working folder (a path still works)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roundtable.cli import main
from roundtable.players import checkpoint as ckpt
from roundtable.players.policies import parse_spec, shipped_checkpoint

GAMES = ("paladin", "white_knight", "quests")


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with no checkpoints/ in it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("game", GAMES)
def test_checkpoint_names_the_shipped_network_from_any_folder(game: str, elsewhere: Path) -> None:
    spec = parse_spec("checkpoint", game)
    assert spec.kind == "checkpoint" and spec.spec == "checkpoint"
    by_path = parse_spec(str(shipped_checkpoint(game)), game)
    assert spec.actor.digest == by_path.actor.digest
    assert shipped_checkpoint(game).is_relative_to(Path(ckpt.__file__).parent.parent)
    # inside search specs: the rollout, the cut rollout's critic, the ISMCTS network
    assert parse_spec("pimc:2:checkpoint", game).rollout.kind == "checkpoint"
    assert parse_spec("pimc:2/3:checkpoint", game).critic is not None
    assert parse_spec("ismcts:2:checkpoint", game).rollout.actor.digest == by_path.actor.digest


def test_checkpoint_with_no_game_says_which_is_missing() -> None:
    with pytest.raises(ckpt.CheckpointError, match="no game was given"):
        ckpt.find_checkpoint("checkpoint")
    assert ckpt.find_checkpoint("checkpoint", "quests")[0].name == "quests.zip"


def test_a_file_named_checkpoint_is_reached_as_a_path(elsewhere: Path) -> None:
    (elsewhere / "checkpoint").mkdir()
    with pytest.raises(ValueError, match="must hold exactly one checkpoint"):
        parse_spec("./checkpoint", "paladin")
    assert parse_spec("checkpoint", "paladin").kind == "checkpoint"


def test_eval_takes_checkpoint(elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["eval", "paladin", "--players", "checkpoint", "random", "--games", "3",
               "--table-sizes", "3", "--workers", "1", "--no-progress", "--json", "out.json"])
    assert rc == 0, capsys.readouterr().err
    result = json.loads((elsewhere / "out.json").read_text())
    assert result["players"][0]["spec"] == "checkpoint"


def test_train_init_takes_checkpoint() -> None:
    card = json.loads((shipped_checkpoint("paladin") / "paladin.json").read_text())
    policy = card["policy"]
    zip_path, _ = ckpt.check_trainable("checkpoint", "paladin", policy["net_arch"],
                                       policy["activation"], policy["include_mask"],
                                       policy.get("features") or ())
    assert zip_path == shipped_checkpoint("paladin") / "paladin.zip"


def test_distill_init_takes_checkpoint(elsewhere: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["distill", "paladin", "--teacher", "heuristic", "--games", "1", "--init",
               "checkpoint", "--table-sizes", "3", "--epochs", "1", "--out", "distilled"])
    assert rc == 0, capsys.readouterr().err
    assert (elsewhere / "distilled" / "paladin_distilled.zip").is_file()


def test_exploit_takes_checkpoint_with_its_game(elsewhere: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["exploit", "checkpoint", "--steps", "64", "--players", "3", "--games", "3",
               "--no-progress"])
    assert rc == 2 and "no game was given" in capsys.readouterr().err
    rc = main(["exploit", "checkpoint", "--game", "paladin", "--steps", "64", "--players", "3",
               "--games", "3", "--no-progress", "--json", "exploit.json"])
    assert rc == 0, capsys.readouterr().err
    assert json.loads((elsewhere / "exploit.json").read_text())["games"] >= 3
