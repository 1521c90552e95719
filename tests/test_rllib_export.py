"""RLlib checkpoints without Ray: an RLlib learner's state exported to the project format loads
through the numpy actor in eval, play, resolve_policy and the leaderboard, and none of them
imports Ray. These run in the main venv (no Ray) and in ``.venv-rllib`` (``make test-rllib``
selects the ``rllib``-marked one that proves Ray stays unimported where it is installed)."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from roundtable.players import checkpoint
from roundtable.players.policies import parse_spec
from roundtable.training.evaluation.leaderboard import leaderboard_table
from roundtable.training.learner.config import config_from_dict
from roundtable.training.rllib import export
from roundtable.ui.terminal import play

ROOT = Path(__file__).resolve().parent.parent
HIDDEN = [16, 8]


def module_state(game: str, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A state dict with the keys and shapes of RLlib's ActionMaskingTorchRLModule (separate
    actor and critic encoders, linear heads), as ``learner_group.get_weights`` returns it."""
    obs_size, num_actions, _ = checkpoint.game_sizes(game)
    sizes = [obs_size + num_actions, *HIDDEN]
    state: dict[str, np.ndarray] = {}
    for encoder in ("actor_encoder", "critic_encoder"):
        for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
            prefix = f"encoder.{encoder}.net.mlp.{2 * i}"
            state[f"{prefix}.weight"] = rng.normal(0, 0.3, (n_out, n_in)).astype(np.float32)
            state[f"{prefix}.bias"] = rng.normal(0, 0.1, n_out).astype(np.float32)
    for head, n_out in (("pi", num_actions), ("vf", 1)):
        state[f"{head}.log_std_clip_param_const"] = np.array([20.0], np.float32)
        state[f"{head}.net.mlp.0.weight"] = rng.normal(0, 0.3, (n_out, HIDDEN[-1])).astype(
            np.float32)
        state[f"{head}.net.mlp.0.bias"] = rng.normal(0, 0.1, n_out).astype(np.float32)
    return state


def expected_logits(state: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The actor's forward pass, written out: tanh hidden layers, then the policy head."""
    h = x
    for i in range(len(HIDDEN)):
        p = f"encoder.actor_encoder.net.mlp.{2 * i}"
        h = np.tanh(h @ state[f"{p}.weight"].T + state[f"{p}.bias"])
    return h @ state["pi.net.mlp.0.weight"].T + state["pi.net.mlp.0.bias"]


def save_rllib_checkpoint(folder: Path, game: str = "paladin") -> tuple[Path, dict]:
    from roundtable.training.rllib.train import policy_card

    cfg = config_from_dict({"game": game, "run_dir": str(folder / "run"), "backend": "rllib",
                            "policy": {"net_arch": HIDDEN}})
    state = module_state(game, np.random.default_rng(0))
    card = checkpoint.make_card(game, policy_card(cfg), cfg.to_dict(),
                                {"steps": 1234, "wall_time_s": 5.0, "total_steps": 1234},
                                {"seed": 0, "results": {"random": {"4": {
                                    "games": 100, "win_rate": 0.5, "ci95": [0.4, 0.6],
                                    "bar": 0.5, "passes": False}}}})
    return export.save(state, folder / game / game, card), state


@pytest.fixture(scope="module")
def rllib_ckpt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    return save_rllib_checkpoint(tmp_path_factory.mktemp("rllib_ckpt"))


def test_export_writes_the_project_format_and_the_actor_matches(rllib_ckpt) -> None:
    path, state = rllib_ckpt
    actor, card = checkpoint.load_actor(path, "paladin")  # card, hash and weights_only checks
    assert card["policy"]["backend"] == "rllib" and card["policy"]["algorithm"] == "PPO (RLlib)"
    x = np.random.default_rng(1).random((5, actor.input_size), dtype=np.float32)
    assert np.allclose(actor.logits(x), expected_logits(state, x), atol=1e-5)
    with zipfile.ZipFile(path) as archive:
        assert set(archive.namelist()) == {"policy.pth", export.MODULE_FILE}
    restored, _ = export.load_module_state(path, "paladin")  # what --init starts from
    assert set(restored) == set(state)
    assert all(np.array_equal(restored[k], state[k]) for k in state)


def test_export_rejects_a_state_without_an_actor() -> None:
    with pytest.raises(ValueError, match="MLP actor encoder"):
        export.sb3_actor_state({"vf.net.mlp.0.weight": np.zeros((1, 4))})


def test_rllib_checkpoint_plays_and_ranks(rllib_ckpt, tmp_path: Path) -> None:
    path, _ = rllib_ckpt
    spec = parse_spec(str(path), "paladin")
    assert spec.kind == "checkpoint" and spec.actor is not None
    out = io.StringIO()
    answers = iter(lambda: "1", None)  # always the first legal move
    assert play("paladin", [str(path), "random"], seed=3, input_fn=lambda _: next(answers),
                out=out) == 0
    assert "Final result:" in out.getvalue()
    table = leaderboard_table(path.parent.parent)
    assert f"`{path.as_posix()}`" in table and "0.500 [0.400, 0.600]" in table


@pytest.mark.rllib
def test_eval_and_play_never_import_ray(rllib_ckpt) -> None:
    path, _ = rllib_ckpt
    script = (
        "import sys\n"
        "from roundtable.cli import main\n"
        f"assert main(['eval', 'paladin', '--players', {str(path)!r}, 'random', '--games', '4',"
        " '--table-sizes', '3', '--workers', '1']) == 0\n"
        "from roundtable.players.policies import resolve_policy\n"
        "import roundtable.ui.terminal, roundtable.training.evaluation.leaderboard\n"
        f"resolve_policy({str(path)!r}, 'paladin')\n"
        "loaded = sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.'))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_rllib_config_checks_without_ray() -> None:
    base = {"game": "paladin", "run_dir": "unused", "backend": "rllib"}
    for extra, message in (({"ppo": {"n_steps": 128}}, "no RLlib counterpart"),
                           ({"rllib": {"num_runners": 2}}, "unknown key"),
                           ({"rllib": {"num_env_runners": -1}}, "num_env_runners"),
                           ({"env": {"reward": "win"}}, "rank reward"),
                           ({"league": {"pfsp": 2.0}}, "league.pfsp")):
        with pytest.raises(ValueError, match=message):
            config_from_dict({**base, **extra})
    with pytest.raises(ValueError, match="needs backend: rllib"):
        config_from_dict({"game": "paladin", "run_dir": "unused",
                          "rllib": {"num_env_runners": 2}})
    with pytest.raises(ValueError, match="backend must be one of"):
        config_from_dict({**base, "backend": "tf"})
    assert json.dumps(config_from_dict(base).to_dict())  # the card's config is plain JSON


def test_iteration_times_undo_rllibs_run_long_moving_average() -> None:
    from roundtable.training.rllib.train import TIMER_EMA, iteration_times

    own = [30.0, 5.0, 6.5, 4.0]  # a slow first iteration (actors starting), then steady ones
    previous: dict[str, float] = {}
    for i, x in enumerate(own):
        average = x if i == 0 else (1 - TIMER_EMA) * previous["sampling"] + TIMER_EMA * x
        times = iteration_times(previous, {"sampling": average})
        assert times["sampling"] == pytest.approx(x)
        previous = {"sampling": average}
