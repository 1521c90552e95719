"""The White Knight heuristic as it read before its hot path was rewritten, used only by tests.

``tests/test_white_knight_heuristic_reference.py`` checks that the shipped
:class:`~roundtable.envs.white_knight.heuristic.WhiteKnightHeuristic` picks the same action as this
copy (numpy slices of the observation, float32 arithmetic) in every style on many seeded decisions,
so a faster reading of the observation cannot change a single choice.
"""

from __future__ import annotations

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
from roundtable.envs.white_knight.heuristic import STYLES, WhiteKnightStyle
from roundtable.envs.white_knight.observation import LAYOUT, PHASES

_PHASE = {name: i for i, name in enumerate(PHASES)}
_VALUES = np.array(ATTACK_VALUES, dtype=np.float64)
_MEAN_CARD = 3.2  # mean value of the spec's 40 attack cards (129 / 40)
_ITEM_DAMAGE = {FIRE_FLASK: 2, HOLY_SWORD: 3}  # spec defaults


def _slice(name: str) -> slice:
    piece = LAYOUT[name]
    return slice(piece.offset, piece.stop)


_S = {piece.name: _slice(piece.name) for piece in LAYOUT.pieces}
_P = LAYOUT.max_players
_ATTACKS = np.array(MONSTER_ATTACK)  # spec defaults, per monster kind


class ReferenceWhiteKnightHeuristic(StyledAgent):
    """The rule-based agent before the rewrite (strategy: envs/white_knight/heuristic.py)."""

    STYLES = STYLES
    style: WhiteKnightStyle

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = observation
        # (array methods rather than np.flatnonzero / np.argmax: this runs per opponent move)
        if np.count_nonzero(action_mask) == 1:
            return int(action_mask.argmax())
        phase = int(obs[_S["phase"]].argmax())
        if phase == _PHASE["join"]:
            return self._join(obs, action_mask)
        if phase == _PHASE["raise"]:
            return self._raise(obs, action_mask)
        if phase == _PHASE["draft"]:
            return self._draft(obs, action_mask)
        if phase == _PHASE["damage"]:
            return self._damage(obs, action_mask)
        return self._heal(obs, action_mask)

    # -- reading the observation ---------------------------------------------------------------
    @staticmethod
    def _monster(obs: np.ndarray) -> tuple[int, int, int]:
        """HP, attack and VP of the current monster."""
        stats = obs[_S["monster_stats"]]
        return round(stats[0] * 20), round(stats[1] * 10), round(stats[3] * 10)

    @staticmethod
    def _hand(obs: np.ndarray) -> np.ndarray:
        return np.rint(obs[_S["hand"]] * 4).astype(np.int64)

    @staticmethod
    def _my_hp(obs: np.ndarray) -> int:
        return round(obs[_S["hp"]][0] * 10)

    # -- decisions -----------------------------------------------------------------------------
    def _heal(self, obs: np.ndarray, mask: np.ndarray) -> int:
        to_come = obs[_S["monsters_to_come"]] > 0
        worst = int(_ATTACKS[to_come].max()) if to_come.any() else 0
        if self._my_hp(obs) <= worst + self.style.heal_buffer:
            if mask[A.USE_POTION]:
                return A.USE_POTION
            if mask[A.USE_ELIXIR]:
                return A.USE_ELIXIR
        return A.DRAW

    def _join(self, obs: np.ndarray, mask: np.ndarray) -> int:
        hp, attack, _ = self._monster(obs)
        hand = self._hand(obs)
        held = mask[A.COMMIT : A.COMMIT + NUM_ATTACK].nonzero()[0].tolist()
        style = self.style
        survives = style.join_lethal or self._my_hp(obs) > attack + style.join_buffer
        solo = float(hand @ _VALUES) > hp
        if not (survives or solo):
            return A.STAY_OUT
        partners = int((obs[_S["hand_size"]][1:] > 0).sum())
        return A.COMMIT + (held[0] if partners >= style.commit_weakest_from else held[-1])

    def _raise(self, obs: np.ndarray, mask: np.ndarray) -> int:
        hp, attack, vp = self._monster(obs)
        hand = self._hand(obs)
        mine = float(np.rint(obs[_S["committed_values"]][:NUM_ATTACK] * 4) @ _VALUES)
        counts = np.rint(obs[_S["committed_count"]] * 10)
        style = self.style
        others = counts[1:] * style.mean_card
        lethal = self._my_hp(obs) <= attack
        estimate = mine + (0.0 if lethal else float(others.sum()))
        held = mask[A.RAISE : A.RAISE + NUM_ATTACK].nonzero()[0].tolist()
        target = hp + style.margin
        if estimate < target:
            for k in held:  # ascending values: the smallest card that reaches the margin
                if estimate + ATTACK_VALUES[k] >= target:
                    return A.RAISE + k
            return A.RAISE + held[-1]
        duel = int((obs[_S["joined"]] > 0).sum()) == 2
        if (style.mvp_race and duel and vp >= 2 and int(hand.sum()) >= 2
                and mine <= float(others.max(initial=0.0))):
            return A.RAISE + held[-1]
        return A.PASS

    def _damage(self, obs: np.ndarray, mask: np.ndarray) -> int:
        hp, _, _ = self._monster(obs)
        battle = obs[_S["battle"]]
        gap = hp + 1 - round((battle[0] + battle[1]) * 20)
        mine = [k for k in DAMAGE_ITEMS if mask[A.USE_ITEM[k]]]
        mine.sort(key=lambda k: _ITEM_DAMAGE[k])
        for k in mine:
            if _ITEM_DAMAGE[k] >= gap:
                return A.USE_ITEM[k]
        owned = np.rint(obs[_S["treasures_owned"]].reshape(_P, NUM_TREASURES) * 4)
        joined = obs[_S["joined"]] > 0
        available = sum(
            float(owned[joined, k].sum()) * dmg for k, dmg in _ITEM_DAMAGE.items()
        )
        if available >= gap:
            return A.USE_ITEM[mine[-1]]
        return A.PASS

    def _draft(self, obs: np.ndarray, mask: np.ndarray) -> int:
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
