"""Training: a smoke run on a tiny budget, the run directory rules, and config validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from roundtable.cli import main
from roundtable.players.checkpoint import load_actor
from roundtable.players.policies import parse_spec
from roundtable.training.evaluation.curves import read_csv
from roundtable.training.learner.config import config_from_dict, load_config
from roundtable.training.learner.selfplay import SNAPSHOTS
from roundtable.training.learner.train import train
from tests.training_support import tiny_config

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    cfg = tiny_config(tmp_path_factory.mktemp("train") / "run")
    return train(cfg, progress=False)


def test_smoke_run_writes_everything(run) -> None:
    d = run.run_dir
    assert run.steps >= 512
    for name in ("config.yaml", "best.zip", "best.json", "final.zip", "final.json",
                 "curve.csv", "curve.png"):
        assert (d / name).exists(), name
    assert list((d / "tb").rglob("events.out.tfevents.*"))
    assert yaml.safe_load((d / "config.yaml").read_text())["total_steps"] == 512


def test_smoke_run_curve_and_cards(run) -> None:
    points = read_csv(run.curve_csv)
    steps = sorted({p.step for p in points})
    assert steps[0] == 256 and steps[-1] == run.steps  # periodic, plus one at the end
    assert {(p.baseline, p.table_size) for p in points} == {("random", 3), ("heuristic", 3)}
    for p in points:
        assert 0 <= p.ci_lo <= p.win_rate <= p.ci_hi <= 1 and p.games == 12
    actor, card = load_actor(run.best, "paladin")
    assert card["training"]["steps"] in steps and card["policy"]["net_arch"] == [32, 32]
    results = card["evaluation"]["results"]
    assert set(results) == {"random", "heuristic"} and "3" in results["heuristic"]
    # best names the rule that chose it (the default: the worst line), with the score that
    # line gave, which the card's own evaluation repeats
    assert card["training"]["selected_by"].startswith("worst of [random, heuristic] at 3 players")
    worst = min(line["win_rate"] * int(n) for by_size in results.values()
                for n, line in by_size.items())
    assert card["training"]["selection_score"] == pytest.approx(worst, abs=1e-4)
    final = json.loads(run.final.with_suffix(".json").read_text())
    assert final["training"]["steps"] == run.steps and final["training"]["snapshots"] >= 1
    assert "selected_by" not in final["training"]  # the last evaluation, not a selected one
    assert actor.input_size == 756 + 124


def test_refuses_to_overwrite_a_run_directory(run) -> None:
    cfg = tiny_config(run.run_dir)
    with pytest.raises(FileExistsError, match=r"already exists.*--overwrite"):
        train(cfg, progress=False)


def test_cli_train_with_overwrite_and_init(run, tmp_path: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    cfg = tiny_config(tmp_path / "cli_run", total_steps=256, eval={"every": 1000, "games": 6,
                                                                   "table_sizes": [4]})
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    (tmp_path / "cli_run").mkdir()  # an earlier run (--overwrite replaces nothing else)
    (tmp_path / "cli_run" / "config.yaml").write_text("old")
    (tmp_path / "cli_run" / "curve.csv").write_text("old")
    assert main(["train", "--config", str(path), "--no-progress"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["train", "--config", str(path), "--no-progress", "--overwrite",
                 "--init", str(run.best)]) == 0
    out = capsys.readouterr().out
    assert "best checkpoint:" in out and "curve.png" in out
    assert (tmp_path / "cli_run" / "curve.csv").read_text() != "old"
    assert not list(tmp_path.glob("cli_run.*"))  # the old run was removed once replaced
    card = json.loads((tmp_path / "cli_run" / "final.json").read_text())
    assert card["training"]["init"] == str(run.best)
    init_steps = json.loads(run.best.with_suffix(".json").read_text())["training"]["steps"]
    assert card["training"]["total_steps"] == card["training"]["steps"] + init_steps


def test_shipped_configs_are_valid() -> None:
    paths = sorted(CONFIGS.glob("*.yaml"))
    assert any(p.name == "paladin.yaml" for p in paths)
    assert any(p.name == "paladin_demo.yaml" for p in paths)
    assert {p.stem for p in paths} >= {f"{g}{kind}" for g in ("paladin", "white_knight", "quests")
                                        for kind in ("", "_demo", "_rllib", "_rllib_demo")}
    for path in paths:
        game = path.stem.removesuffix("_demo").removesuffix("_rllib")  # <game>[_rllib][_demo]
        cfg = load_config(path)  # every game has landed: an unknown game is a broken config
        assert cfg.game == game
        # every spec a league or an evaluation will resolve must parse (snapshots are the
        # learner's own and only exist during the run)
        for spec in [*cfg.opponents.weights, *cfg.eval.baselines]:
            # (the RLlib league's ``self`` entry is the learning module itself)
            if spec != SNAPSHOTS and not (cfg.backend == "rllib" and spec == "self"):
                parse_spec(spec, cfg.game)


@pytest.mark.parametrize("change,match", [
    ({"colour": "red"}, "unknown key.*'colour'"),
    ({"env": {"reward": "score"}}, "env.reward"),
    ({"env": {"table_sizes": [2]}}, "not 2"),
    ({"env": {"tables": [3]}}, "unknown key.*'tables'.*in 'env'"),
    ({"total_steps": 0}, "total_steps must be a positive integer"),
    ({"policy": {"activation": "gelu"}}, "policy.activation"),
    ({"ppo": {"learning_rat": 0.1}}, "unknown ppo key"),
    ({"eval": {"select": "random", "baselines": ["heuristic"]}}, "eval.select must be 'worst'"),
    ({"opponents": {"snapshot_act": "best"}}, "snapshot_act"),
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"eval": "often"}, "must be a mapping"),
])
def test_config_errors(change: dict, match: str) -> None:
    data = {"game": "paladin", "run_dir": "runs/x", **change}
    with pytest.raises(ValueError, match=match):
        config_from_dict(data)


def test_config_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no config file"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [unclosed")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("run_dir: x\n")
    with pytest.raises(ValueError, match="missing required key 'game'"):
        load_config(bad)


def test_demo_trains_evaluates_and_prints(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from roundtable.commands.demo import training_demo

    cfg = tiny_config(tmp_path / "demo_run", total_steps=256,
                      eval={"every": 1000, "games": 6, "table_sizes": [3, 4]})
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    assert training_demo(str(path), games=8, workers=1) == 0
    out = capsys.readouterr().out
    runs = list(tmp_path.glob("demo_run-*"))
    assert len(runs) == 1  # a fresh, timestamped run directory
    assert out.count("| player | win rate | 95% CI |") == 4  # 2 baselines × 2 table sizes
    assert "shipping bar 1.3× fair share = 0.325: " in out
    bars = [line for line in out.splitlines() if line.startswith("shipping bar ")]
    assert len(bars) == 4 and all(": PASS (" in b or ": FAIL (" in b for b in bars)
    assert out.count("rating: a skill estimate") == 4
    assert f"Learning curve: {runs[0] / 'curve.png'}" in out and "Demo wall time:" in out


def test_train_bench_measures_the_game_against_a_trivial_env(
        capsys: pytest.CaptureFixture) -> None:
    from gymnasium.utils.env_checker import check_env

    from roundtable.training.learner.throughput import TrivialEnv

    check_env(TrivialEnv(10, 4, length=5), skip_render_check=True)
    assert main(["train-bench", "--games", "paladin", "--steps", "256", "--repeats", "1",
                 "--opponents", "random"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("| paladin | random |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[2]) > 10  # learner steps per episode
    trivial, game = (float(c.replace(",", "")) for c in cells[3:5])
    assert trivial > 0 and game > 0
    # one repeat, one pair: the ratio is game / trivial (of the rounded figures, nearly)
    assert float(cells[5].rstrip("×")) == pytest.approx(game / trivial, abs=0.02)
    assert cells[-1] == "one-by-one"  # the shipped config's vec env (league.batched: false)
    assert main(["train-bench", "--games", "paladin", "--steps", "256", "--repeats", "1",
                 "--opponents", "random", "--vec-env", "batched"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("| paladin | random |"))
    assert row.rstrip(" |").endswith("batched")


def test_a_diverging_run_stops_with_one_line_and_keeps_its_finite_checkpoint(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Issue 18 item 4: ``learning_rate: 1e30`` trained, "succeeded" and saved NaN weights."""
    # one env: a rollout is 64 steps, so the evaluation at step 64 (at the rollout boundary,
    # after the first update, whose weights are still finite) saves a finite best
    cfg = tiny_config(tmp_path / "run", n_envs=1,
                      ppo={"n_steps": 64, "batch_size": 64, "n_epochs": 1,
                           "learning_rate": 1e30},
                      eval={"every": 64, "games": 3, "table_sizes": [3]})
    path = tmp_path / "diverge.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    assert main(["train", "--config", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "training diverged after 128 steps" in err and "learning_rate 1e+30" in err
    assert f"the last finite checkpoint is {tmp_path / 'run' / 'best.zip'} (from step 64)" in err
    _, card = load_actor(tmp_path / "run" / "best.zip", "paladin")  # finite: it loads
    assert card["training"]["steps"] == 64
    assert not (tmp_path / "run" / "final.zip").exists()
    # replacing a run: the previous run comes back, the diverged one is kept aside with its
    # finite checkpoint
    before = (tmp_path / "run" / "best.zip").read_bytes()
    assert main(["train", "--config", str(path), "--no-progress", "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert "best.zip of the unfinished run, which is moved aside" in err
    assert (tmp_path / "run" / "best.zip").read_bytes() == before
    aside = next(tmp_path.glob("run.failed-*"))
    load_actor(aside / "best.zip", "paladin")


@pytest.mark.parametrize(("text", "args", "match"), [
    # a key given twice: PyYAML kept the last one silently
    ("seed: 1\nseed: 2\n", [], "line 4, column 1: key 'seed' appears twice (lines 3 and 4)"),
    ("env: {reward: win, reward: rank}\n", [], "key 'reward' appears twice"),
    # torch_threads: 1e11 overflowed inside torch
    ("torch_threads: 100000000000\n", [], "torch_threads must be at most 1024"),
    # a network too large reported an allocation failure in section 'ppo'
    ("policy: {net_arch: [200000, 200000]}\n", [],
     r"policy.net_arch [200000, 200000] makes a network of 80,377,800,125 parameters"),
    # a top-level typo said "in ''"
    ("n_env: 3\n", [], "unknown key(s) 'n_env' at the top level (did you mean 'n_envs'?)"),
    ("env: {tables: [3]}\n", [], "unknown key(s) 'tables' in 'env'"),
    # a bad file value passed when the command line overrode it
    ("total_steps: 160k\n", ["--steps", "10"], "total_steps must be a positive integer, got "
                                                "'160k' (the command line overrides this key"),
    ("seed: -3\n", ["--seed", "1"], "seed must be a non-negative integer"),
    # backend: rllib without Ray printed a ModuleNotFoundError traceback (main venv: no Ray)
    ("backend: rllib\n", [], "backend: rllib needs Ray, which is not installed"),
])
def test_config_mistakes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch, text: str,
                                      args: list[str], match: str) -> None:
    """Issue 18 item 6: each of these was a traceback, a misleading message or silent."""
    import importlib.util

    import roundtable.training.learner.train

    def no_run(*args: object, **kwargs: object) -> None:
        raise ValueError("the run started: the config was not refused")

    monkeypatch.setattr(roundtable.training.learner.train, "check_run_dir", no_run)

    if "rllib" in text and importlib.util.find_spec("ray") is not None:
        pytest.skip("Ray is installed here")
    path = tmp_path / "c.yaml"
    path.write_text(f"game: paladin\nrun_dir: {tmp_path / 'run'}\n{text}")
    assert main(["train", "--config", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err, err
    assert not (tmp_path / "run").exists()


def test_the_progress_bar_keeps_its_total() -> None:
    """PPO runs whole rollouts, past ``total_steps``: the bar's total is where training really
    stops, so tqdm keeps "n/total" to the end (past its total it printed "163780step")."""
    import io

    from tqdm import tqdm

    from roundtable.training.learner.train import bar_total

    assert bar_total(160_000, 2048 * 4) == 163_840
    assert bar_total(8192, 8192) == 8192 and bar_total(5, 0) == 5
    bar = tqdm(total=bar_total(160_000, 2048 * 4), unit="step", file=io.StringIO())
    bar.update(163_780)
    assert "163780/163840" in str(bar)
    bar.close()
