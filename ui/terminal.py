"""Human play at the terminal: ``roundtable play <game> [--players SPEC ...]``.

The human takes one seat; the other seats are filled, in order from the human's left, by the
given specs (the last spec fills the rest). Before each of the human's decisions the table is
drawn from the human's point of view (``engine.render_text(viewer=seat)``) and the legal moves
are listed by name; a move is chosen by its number, its full name, or an unambiguous start of
its name. Anything else is answered with a hint and asked again; end of input or ``q`` ends
the game politely. What happens is narrated from the game's events (``docs/events.md``) that the
human's seat may see, in the second person ("you", "your"): a move's full name could reveal a
face-down card, its events cannot. A move whose events tell the human nothing yet (a card
added face down to a quest stage) is told as the human's seat may know it
(``envs.<game>.picture.move_name``: "add a card face down to stage 2"); a move the seat may
not even learn of (another seat's card chosen face down in Quests: how many is secret) is not
told at all.
"""

from __future__ import annotations

import random
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from roundtable.envs.core.events import narration
from roundtable.envs.core.picture import move_hidden
from roundtable.envs.core.registry import GameLike, get_game
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.policies import parse_spec
from roundtable.players.table import choose_action, reset_policy
from roundtable.ui.names import Names
from roundtable.ui.replay_viewer import move_explanation

QUIT = ("q", "quit", "exit")
HELP = ("?", "h", "help")


def choose(legal: list[int], names: list[str], answer: str,
           shown: list[str] | None = None) -> tuple[int | None, str]:
    """The legal action an answer picks (number, name or unique name prefix), or a hint.
    ``shown``: the moves as listed in words (the machine names are accepted too)."""
    text = " ".join(answer.strip().lower().split())
    if not text:
        return None, "type the number or the name of a move"
    if text.isdigit():  # '²' and '١' are digits too; int() refuses the first
        k = int(text) if text.isascii() and len(text) <= 9 else 0
        if 1 <= k <= len(legal):
            return legal[k - 1], ""
        return None, f"no move number {k}; choose 1 to {len(legal)}"
    for listed in ([shown] if shown else []) + [names]:
        lowered = [n.lower() for n in listed]
        if text in lowered:
            return legal[lowered.index(text)], ""
        matches = [i for i, n in enumerate(lowered) if n.startswith(text)]
        if len(matches) == 1:
            return legal[matches[0]], ""
        if matches:
            return None, "ambiguous: " + ", ".join(listed[i] for i in matches[:6])
    return None, f"{answer.strip()!r} is not a legal move here"


def wrapped(text: str, width: int) -> str:
    """``text`` wrapped at word breaks to ``width`` columns (at least 20), each line's
    continuation indented like it, so that a terminal never cuts a word ("face-down car / d")."""
    lines = []
    for line in text.split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        lines.extend(textwrap.wrap(line, max(width, 20), subsequent_indent=indent + "  ",
                                   break_long_words=False, break_on_hyphens=False) or [""])
    return "\n".join(lines)


def play(game: GameLike, specs: Sequence[str] = ("heuristic",), *, num_players: int | None = None,
         seat: int = 0, seed: int | None = None, rules: dict[str, Any] | None = None,
         input_fn: Callable[[str], str] | None = None, out: TextIO | None = None,
         width: int | None = None) -> int:
    """Play one game; returns 0 when it ends normally, 1 when the human quits."""
    limit_blas_threads()
    out = out or sys.stdout
    ask = input_fn or input
    entry = get_game(game)
    module = entry.env_module()
    specs = list(specs) or ["heuristic"]
    parsed = [parse_spec(s, entry) for s in specs]
    if num_players is None:
        default = module.raw_env.default_players
        fits = default in entry.players and len(parsed) + 1 <= default and len(parsed) == 1
        num_players = default if fits else entry.table_size(len(parsed) + 1)
    if num_players not in entry.players:
        raise ValueError(f"{entry.game} is played by {', '.join(map(str, entry.players))} "
                         f"players, not {num_players}")
    if len(parsed) > num_players - 1:
        raise ValueError(f"{len(parsed)} opponent specs do not fit a {num_players}-player table")
    if not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0 to {num_players - 1}, got {seat}")
    if seed is None:
        seed = random.randrange(2**31)

    env = module.raw_env(num_players=num_players, **(rules or {}))
    env.reset(seed=seed)
    engine = env.engine
    others = [(seat + k) % num_players for k in range(1, num_players)]
    players: dict[int, Any] = {}
    for k, s in enumerate(others):
        spec = parsed[min(k, len(parsed) - 1)]
        players[s] = spec.build(seed + 1 + k)
        reset_policy(players[s])
    # what an opponent's move shows the human's seat (its card hidden, where it went not)
    shown = entry.picture
    # every seat named in words: "you", "West (rule-based)" (roundtable.ui.names)
    words = Names(entry, num_players, seat, {s: parsed[min(k, len(parsed) - 1)].spec
                                            for k, s in enumerate(others)})

    # a terminal's own width (piped output, a file, is not wrapped unless ``width`` says so)
    columns = width or (shutil.get_terminal_size().columns if out.isatty() else None)

    def say(text: str = "") -> None:
        print(wrapped(text, columns) if columns else text, file=out)

    told = 0  # events of the game narrated so far

    def narrate() -> bool:
        """Tell the human's seat what happened since the last narration; False: nothing."""
        nonlocal told
        news = engine.events.visible(seat, told)
        told = len(engine.events)
        for line in narration(news, seat):
            say(f"  {words.text(line)}")
        return bool(news)

    def listed(number: int, action: int, name: str) -> str:
        """A legal move as listed: its number, its name, what a terse name means."""
        hint = words.text(move_explanation(entry, engine, action))
        return f"  {number:>2}. {words.move(name)}" + (f"  — {hint}" if hint else "")

    def table() -> str:
        return "\n".join(words.text(line) for line in engine.render_text(viewer=seat).split("\n"))

    say(f"{entry.title} — {num_players} players, deal seed {seed}; you against "
        + ", ".join(words.labels[s] for s in others))
    narrate()
    # not players.table.play_game: a person's move arrives between the machines' moves
    while not engine.over:
        p = engine.current_player
        if p != seat:
            action = choose_action(players[p], engine.observation(p),
                                   engine.legal_mask().copy(), engine, p)
            what = shown.move_name(engine, action, seat)
            secret = move_hidden(shown, engine, action, seat)  # a Quests card face down
            env.step(action)
            if not narrate() and not secret:
                say(f"  {words.labels[p]}: {words.move(what)}")
            continue
        legal = env.legal_actions()
        names = [engine.action_name(a) for a in legal]
        say()
        say(table())
        say("Your legal moves:")
        for i, (move, name) in enumerate(zip(legal, names), 1):
            say(listed(i, move, name))
        while True:
            try:
                answer = ask("your move (number or name; ? shows the table, q quits): ")
            except (EOFError, KeyboardInterrupt):
                say("\nno more input: game abandoned")
                return 1
            if answer.strip().lower() in QUIT:
                say("game abandoned")
                return 1
            if answer.strip().lower() in HELP:
                say(table())
                for i, (move, name) in enumerate(zip(legal, names), 1):
                    say(listed(i, move, name))
                continue
            action, hint = choose(legal, names, answer, [words.move(n) for n in names])
            if action is not None:
                break
            say(f"  {hint}")
        say(f"  you: {words.move(engine.action_name(action))}")
        env.step(action)
        narrate()

    say()
    say(table())
    scores, ranks = engine.scores(), engine.ranks()
    say("Final result:")
    for s in sorted(range(num_players), key=lambda s: ranks[s]):
        how = engine.score_text(s)  # why a total is what it is (a rule at the end…)
        say(f"  rank {ranks[s]}: {words.labels[s]}, score {scores[s]:g}"
            + (f" ({words.text(how)})" if how else ""))
    say(words.verdict(list(scores), list(ranks), bool(engine.truncated)))
    say(f"You finished rank {ranks[seat]} of {num_players}.")
    return 0
