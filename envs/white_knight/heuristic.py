"""A sensible White Knight player that reads only its observation vector and action mask.

It knows the spec's default numbers (item effects, monster attacks) the way a human knows the
box contents, and reads everything else (HP, monster stats, hands, counts) from the
observation. Strategy, one rule per decision:

- **Heal or draw** — heal only when one lost battle against the strongest monster still to
  come would retire it (HP ≤ that attack): a Healing Potion first, the Elixir if there is no
  potion. Otherwise draw: healing items are worth VP.
- **Join** — join when a lost battle would not retire it, or when its own hand alone can
  defeat the monster; otherwise stay out (the pretend). With at least two other players
  holding cards it commits its weakest card (partners will carry the total and raises can add
  more); in a smaller battle it commits its strongest (the best bid for MVP).
- **Raise** — estimate the team total as its own committed cards plus 3.2 per card others
  committed (the mean attack card; in a battle whose loss would retire it, others count 0).
  If that estimate does not exceed the HP by a margin of 2, raise: the smallest card that
  reaches the margin, else its strongest. If the monster already looks beaten and it duels a
  single other participant, raise its strongest card to win the MVP (when its own total does
  not beat the other's estimate, the monster is worth ≥ 2 VP and it keeps a card); otherwise
  pass. (Measured: MVP races in bigger battles cost more cards than they win.)
- **Damage items** — use the smallest item that closes the gap on its own; otherwise use its
  strongest item if the items of all participants together can close the gap; else pass.
- **Draft** — take the treasure with the most VP (items count a little extra for their effect,
  healing items more when its HP is low).

Styles (:class:`WhiteKnightStyle`, spec ``heuristic:<name>``) move the numbers behind these
rules: the raise margin and how much it trusts partners (risk), whether it joins battles it
cannot survive, which card it commits, when it heals, whether it races for MVP, and how much it
values items in the draft. ``default`` is the strategy above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roundtable.envs.core.agents import StyledAgent
from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.cards import (
    ATTACK_VALUES,
    DAMAGE_ITEMS,
    ELIXIR,
    FIRE_FLASK,
    HOLY_SWORD,
    MONSTER_ATTACK,
    NUM_ATTACK,
    NUM_TREASURES,
    POTION,
    TREASURE_EFFECT,
    TREASURE_VP,
)
from roundtable.envs.white_knight.observation import LAYOUT, PHASES

_PHASE = {name: i for i, name in enumerate(PHASES)}
_MEAN_CARD = 3.2  # mean value of the spec's 40 attack cards (129 / 40)
_ITEM_DAMAGE = {FIRE_FLASK: 2, HOLY_SWORD: 3}  # spec defaults
_P = LAYOUT.max_players
_ATTACKS = list(MONSTER_ATTACK)  # spec defaults, per monster kind

# Offsets of the pieces it reads. The agent runs per opponent move in training, so it reads
# cells as Python numbers (``tolist`` of a few cells, ``item``) rather than through numpy
# slices and scalars; every read value is an integer count over a fixed scale, recovered by
# ``round`` exactly as ``np.rint`` of the float32 cell did before (the same choices:
# tests/test_white_knight_heuristic_reference.py).
_PHASE_AT, _HP_AT = LAYOUT["phase"].offset, LAYOUT["hp"].offset
_HAND_AT, _SIZE_AT = LAYOUT["hand"].offset, LAYOUT["hand_size"].offset
_JOINED_AT, _COUNT_AT = LAYOUT["joined"].offset, LAYOUT["committed_count"].offset
_VALUES_AT, _BATTLE_AT = LAYOUT["committed_values"].offset, LAYOUT["battle"].offset
_STATS_AT, _TO_COME_AT = LAYOUT["monster_stats"].offset, LAYOUT["monsters_to_come"].offset
_OWNED_AT = LAYOUT["treasures_owned"].offset
_JOIN, _RAISE, _DRAFT, _DAMAGE = (_PHASE[p] for p in ("join", "raise", "draft", "damage"))
_DAMAGE_ORDER = sorted(DAMAGE_ITEMS, key=lambda k: _ITEM_DAMAGE[k])  # smallest item first


@dataclass(frozen=True)
class WhiteKnightStyle:
    """The parameters of the rules above; the defaults are the classic heuristic."""

    margin: int = 2  # raise until the estimated team total beats the HP by this much
    mean_card: float = _MEAN_CARD  # value credited per card a partner committed (trust)
    join_lethal: bool = False  # join even when a lost battle would retire it
    join_buffer: int = 0  # otherwise join only with HP > monster attack + this buffer
    commit_weakest_from: int = 2  # commit its weakest card with this many partners, else strongest
    heal_buffer: int = 0  # heal when HP <= the strongest attack still to come + this buffer
    mvp_race: bool = True  # raise its strongest card to take MVP in a duel
    item_bonus: float = 0.5  # draft value of an item's effect on top of its VP


#: Named styles (``heuristic:<name>``); each plays clearly differently from ``default``.
STYLES: dict[str, WhiteKnightStyle] = {
    "default": WhiteKnightStyle(),
    # big safety margin, trusts partners less, heals early, stays out of risky battles
    "cautious": WhiteKnightStyle(margin=5, mean_card=2.5, join_buffer=2, heal_buffer=2,
                                 mvp_race=False),
    # joins every battle with its strongest card, thin margin, always races for MVP
    "aggressive": WhiteKnightStyle(margin=0, join_lethal=True, commit_weakest_from=99),
    # lets partners carry the fight (commits its weakest, counts on their cards), hoards items
    "freerider": WhiteKnightStyle(margin=0, mean_card=4.5, commit_weakest_from=0,
                                  mvp_race=False, item_bonus=2.0),
}


class WhiteKnightHeuristic(StyledAgent):
    """Rule-based White Knight agent (see the module docstring for the strategy and styles)."""

    STYLES = STYLES
    style: WhiteKnightStyle

    def __init__(self, seed: int | None = None, style: str | WhiteKnightStyle = "default") -> None:
        super().__init__(seed, style)
        # (mean_card, others' committed counts) -> (credited total, largest credit), in
        # float32 as numpy computes ``counts * mean_card``: the same sums to the last bit,
        # computed once each (keyed by the style's number too, so a changed style never
        # reads another's credit)
        self._credit: dict[tuple[float, tuple[int, ...]], tuple[float, float]] = {}

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = observation
        if np.count_nonzero(action_mask) == 1:
            return int(action_mask.argmax())
        mask = action_mask.tolist()
        cells = obs[_PHASE_AT : _PHASE_AT + len(PHASES)].tolist()
        phase = cells.index(max(cells))  # the first largest cell, as argmax
        if phase == _JOIN:
            return self._join(obs, mask)
        if phase == _RAISE:
            return self._raise(obs, mask)
        if phase == _DRAFT:
            return self._draft(obs, mask)
        if phase == _DAMAGE:
            return self._damage(obs, mask)
        return self._heal(obs, mask)

    # -- reading the observation ---------------------------------------------------------------
    @staticmethod
    def _monster(obs: np.ndarray) -> tuple[int, int, int]:
        """HP, attack and VP of the current monster."""
        hp, attack, _, vp = obs[_STATS_AT : _STATS_AT + 4].tolist()
        return round(hp * 20), round(attack * 10), round(vp * 10)

    @staticmethod
    def _hand(obs: np.ndarray) -> list[int]:
        return [round(c * 4) for c in obs[_HAND_AT : _HAND_AT + NUM_ATTACK].tolist()]

    @staticmethod
    def _my_hp(obs: np.ndarray) -> int:
        return round(obs.item(_HP_AT) * 10)

    def _credits(self, counts: tuple[int, ...]) -> tuple[float, float]:
        """Sum and largest of ``counts × mean_card`` over the other seats (float32 like the
        numpy expression it stands for)."""
        mean_card = self.style.mean_card
        credit = self._credit.get((mean_card, counts))
        if credit is None:
            others = np.array(counts, dtype=np.float32) * mean_card
            credit = self._credit[mean_card, counts] = (float(others.sum()),
                                                        float(others.max(initial=0.0)))
        return credit

    # -- decisions -----------------------------------------------------------------------------
    def _heal(self, obs: np.ndarray, mask: list[int]) -> int:
        to_come = obs[_TO_COME_AT : _TO_COME_AT + len(_ATTACKS)].tolist()
        worst = max((a for a, c in zip(_ATTACKS, to_come) if c > 0), default=0)
        if self._my_hp(obs) <= worst + self.style.heal_buffer:
            if mask[A.USE_POTION]:
                return A.USE_POTION
            if mask[A.USE_ELIXIR]:
                return A.USE_ELIXIR
        return A.DRAW

    def _join(self, obs: np.ndarray, mask: list[int]) -> int:
        hp, attack, _ = self._monster(obs)
        held = [k for k in range(NUM_ATTACK) if mask[A.COMMIT + k]]
        style = self.style
        survives = style.join_lethal or self._my_hp(obs) > attack + style.join_buffer
        if not survives:
            solo = sum(c * v for c, v in zip(self._hand(obs), ATTACK_VALUES)) > hp
            if not solo:
                return A.STAY_OUT
        sizes = obs[_SIZE_AT + 1 : _SIZE_AT + _P].tolist()
        partners = sum(1 for size in sizes if size > 0)
        return A.COMMIT + (held[0] if partners >= style.commit_weakest_from else held[-1])

    def _raise(self, obs: np.ndarray, mask: list[int]) -> int:
        hp, attack, vp = self._monster(obs)
        committed = obs[_VALUES_AT : _VALUES_AT + NUM_ATTACK].tolist()
        mine = float(sum(round(c * 4) * v for c, v in zip(committed, ATTACK_VALUES)))
        counts = tuple(round(c * 10)
                       for c in obs[_COUNT_AT + 1 : _COUNT_AT + _P].tolist())
        others_sum, others_max = self._credits(counts)
        style = self.style
        lethal = self._my_hp(obs) <= attack
        estimate = mine + (0.0 if lethal else others_sum)
        held = [k for k in range(NUM_ATTACK) if mask[A.RAISE + k]]
        target = hp + style.margin
        if estimate < target:
            for k in held:  # ascending values: the smallest card that reaches the margin
                if estimate + ATTACK_VALUES[k] >= target:
                    return A.RAISE + k
            return A.RAISE + held[-1]
        if not (style.mvp_race and vp >= 2 and mine <= others_max):
            return A.PASS
        joined = obs[_JOINED_AT : _JOINED_AT + _P].tolist()
        duel = sum(1 for j in joined if j > 0) == 2
        if duel and sum(self._hand(obs)) >= 2:
            return A.RAISE + held[-1]
        return A.PASS

    def _damage(self, obs: np.ndarray, mask: list[int]) -> int:
        hp, _, _ = self._monster(obs)
        total, added = obs[_BATTLE_AT : _BATTLE_AT + 2].tolist()
        gap = hp + 1 - round((total + added) * 20)
        mine = [k for k in _DAMAGE_ORDER if mask[A.USE_ITEM[k]]]
        for k in mine:
            if _ITEM_DAMAGE[k] >= gap:
                return A.USE_ITEM[k]
        joined = obs[_JOINED_AT : _JOINED_AT + _P].tolist()
        available = 0.0
        for seat, j in enumerate(joined):
            if j > 0:
                row = _OWNED_AT + seat * NUM_TREASURES
                available += sum(round(obs.item(row + k) * 4) * dmg
                                 for k, dmg in _ITEM_DAMAGE.items())
        if available >= gap:
            return A.USE_ITEM[mine[-1]]
        return A.PASS

    def _draft(self, obs: np.ndarray, mask: list[int]) -> int:
        low_hp = self._my_hp(obs) <= 2
        best, best_value = -1, -1.0
        for k in range(NUM_TREASURES):
            if not mask[A.TAKE + k]:
                continue
            value = float(TREASURE_VP[k])
            if TREASURE_EFFECT[k] != "none":
                value += self.style.item_bonus
                if low_hp and k in (POTION, ELIXIR):
                    value += 1.5
            if value > best_value:
                best, best_value = k, value
        return A.TAKE + best
