"""The installed layout: a wheel built from the checkout, installed into a fresh venv outside it,
works from a folder full of decoys (``make test-wheel``, a step of CI of its own).

A user's folder may hold its own ``training.py``, ``envs/``, ``ui.py`` or ``utils.py``; a
project that installed those generic top-level names would import the user's files instead of
its own. The wheel must install one import name, ``roundtable``, carry its agents and configs
as package data, and never reach back into the checkout. The venv reuses the main venv's
installed dependencies (its site-packages as a plain path, so the main venv's editable
install of this project is not loaded) and gets the wheel with ``--no-deps``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.wheel

#: the checkout's folders that are not part of the wheel's source (build outputs, venvs, runs)
NOT_SOURCE = (".git", ".venv", ".venv-rllib", "runs", "build", "dist", "__pycache__",
              "*.egg-info", ".pytest_cache", ".ruff_cache", ".hypothesis", ".mutants", "docs")

#: decoys: each one, if imported, writes its name into DECOY_LOG (and refuses to work)
DECOY = textwrap.dedent("""\
    import os
    with open(os.environ["DECOY_LOG"], "a") as f:
        f.write(__name__ + "\\n")
    raise ImportError("decoy " + __name__ + " imported")
    """)

SMOKE = textwrap.dedent("""\
    import json, sys
    from pathlib import Path

    # one AEC game from the public import path
    from roundtable.envs import paladin_v0
    env = paladin_v0.env(num_players=3)
    env.reset(seed=1)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else int(obs["action_mask"].nonzero()[0][0])
        env.step(action)
        steps += 1
    # the serve catalog offers the shipped checkpoint in every game
    from roundtable.ui.live import Catalog
    catalog = Catalog()
    offered = {g["game"]: [o["id"] for o in g["opponents"]] for g in catalog.describe()["games"]}
    # 'checkpoint' is a policy spec, found in the package data
    from roundtable.players.policies import parse_spec, shipped_checkpoint
    specs = {game: parse_spec("checkpoint", game).kind for game in offered}
    modules = {name: getattr(m, "__file__", None) for name, m in list(sys.modules.items())
               if name.split(".")[0] in ("roundtable", "envs", "training", "ui", "utils",
                                          "players")}
    # the start page's rules links are served from the package data
    from roundtable.ui.rules_page import rules_html
    rules = {game: rules_html(game)[0] for game in offered}
    print(json.dumps({"steps": steps, "offered": offered, "specs": specs, "modules": modules,
                      "shipped": str(shipped_checkpoint("paladin")), "rules": rules}))
    """)


def test_pyproject_names_every_package_folder():
    """Every folder with an ``__init__.py`` under a mapped folder is in ``packages`` (a folder
    left out would be missing from the wheel, and only the slow test below would notice)."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setup["packages"])
    dirs = setup["package-dir"]
    found = set()
    for package, folder in dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            name = ".".join((package, *rel))
            # a subfolder mapped on its own is found under its own name
            if not any(name.startswith(other + ".") or name == other
                       for other in dirs if other != package and other.startswith(package)):
                found.add(name)
    assert found == listed


def _copy_source(dest: Path) -> Path:
    src = dest / "src-copy"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    # of docs/, the rules alone are package data (roundtable.rules: the app's rules pages)
    shutil.copytree(ROOT / "docs" / "rules", src / "docs" / "rules",
                    ignore=shutil.ignore_patterns("__pycache__", "seeds"))
    return src


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 600):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a fresh venv with the wheel installed, the wheel's path, a decoy folder)."""
    base = tmp_path_factory.mktemp("wheel")
    src = _copy_source(base)
    out = base / "dist"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
          "-w", str(out), str(src)], base, env)
    wheels = list(out.glob("roundtable_gym-*.whl"))
    assert len(wheels) == 1
    target = base / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    py = target / "bin" / "python"
    purelib = Path(subprocess.check_output(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True).strip())
    # the main venv's dependencies, as a plain path: its .pth files (the editable install of
    # this checkout among them) are not run from there
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
          "--no-index", "-q", str(wheels[0])], base, env)
    decoys = base / "user"
    decoys.mkdir()
    for name in ("training.py", "ui.py", "utils.py", "players.py"):
        (decoys / name).write_text(DECOY)
    for package in ("envs", "roundtable_decoy"):
        (decoys / package).mkdir()
        (decoys / package / "__init__.py").write_text(DECOY)
    shutil.rmtree(src)
    return py, wheels[0], decoys, target


def _user_env(decoys: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["DECOY_LOG"] = str(decoys / "decoys.log")
    env["PYTHONPATH"] = str(decoys)  # as if the user's folder were first on the path
    return env


def test_the_wheel_installs_one_import_name(installed):
    _, wheel, _, _ = installed
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"roundtable"}
    for game in ("paladin", "white_knight", "quests"):
        for file in (f"{game}.zip", f"{game}.json", "belief.npz"):
            assert f"roundtable/checkpoints/{game}/{file}" in names
        assert f"roundtable/configs/{game}_demo.yaml" in names
    assert "roundtable/ui/static/play.js" in names


def test_the_installed_package_works_among_decoys(installed):
    py, _, decoys, target = installed
    env = _user_env(decoys)
    proc = _run([str(py), "-c", SMOKE], decoys, env)
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["steps"] > 10
    for game in ("paladin", "white_knight", "quests"):
        assert "checkpoint" in report["offered"][game]
        assert report["specs"][game] == "checkpoint"
    assert Path(report["shipped"]).is_relative_to(target)
    assert report["rules"] == {game: 200 for game in report["offered"]}  # rules served
    for name, file in report["modules"].items():
        assert name.split(".")[0] == "roundtable", f"{name} imported from {file}"
        assert file is None or Path(file).is_relative_to(target), f"{name} from {file}"
    assert not (decoys / "decoys.log").exists()


def test_installed_commands_run_from_any_folder(installed):
    py, _, decoys, _ = installed
    env = _user_env(decoys)
    roundtable = py.parent / "roundtable"
    proc = _run([str(roundtable), "eval", "paladin", "--players", "checkpoint", "heuristic",
                 "--games", "2", "--table-sizes", "3", "--workers", "1", "--no-progress"],
                decoys, env)
    assert "checkpoint" in proc.stdout
    proc = _run([str(py), "-m", "roundtable", "demo", "--steps", "512", "--games", "2"],
                decoys, env)
    assert "Learning curve" in proc.stdout
    runs = list((decoys / "runs").glob("paladin_demo-*"))
    assert runs and (runs[0] / "curve.csv").is_file()
    assert not (decoys / "decoys.log").exists()
