"""A sensible Paladin player that reads only its observation vector and action mask.

Strategy (each rule a line of play a human would recognise):

- **Start player** — the dealer names itself: the start player leads first and so picks the
  most valuable mission to lead.
- **Leaders' lap** — lead the most valuable open mission with the strongest card in hand
  (value, red above plain; a 0 counts as weakest), so others need a stronger card to take it.
- **Peek** — look at the leader of the most valuable mission where it has no card yet, unless
  it already knows that card; otherwise no peek.
- **Filling placements** — at the most valuable open mission, if some card in hand beats every
  card it knows there, place the *cheapest* such card (its strongest card if it knows none);
  a known 9 there is answered with a 0. Otherwise throw the weakest card at the least valuable
  open mission. It never needs to hold back: the mask keeps one card in hand by construction.
- **Resolution** — beat whenever allowed (winning missions is the whole game); otherwise take
  back a card worth keeping (value ≥ 5, or red) and discard the rest, so the refill brings a
  fresh card instead.

Styles (:class:`PaladinStyle`, spec ``heuristic:<name>``) move the numbers behind these rules:
how strong a card must be to contest the best mission blind (aggression), which card leads
(sandbagging), whether known cards are answered with the cheapest or the strongest winner,
which cards are worth taking back (hoarding) and whether to peek at all. ``default`` is the
strategy above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roundtable.envs.core.agents import StyledAgent
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import KIND_RED, KIND_VALUE, NUM_KINDS, beats
from roundtable.envs.paladin.observation import LAYOUT, MAX_MISSIONS, PHASES, SLOT_FEATURES

_PHASE = {name: i for i, name in enumerate(PHASES)}
_PRESENT, _FACE_DOWN, _REVEALED, _LEADING, _ORDER = range(len(SLOT_FEATURES))


def _strength(kind: int) -> float:
    """Ordering used to pick 'strongest'/'weakest': value, red above plain; 0 is weakest."""
    return KIND_VALUE[kind] + (0.5 if KIND_RED[kind] else 0.0)


def _kind_of(value_cells: np.ndarray) -> int | None:
    """Card kind from an 11-cell slot value (one-hot value 0–9 + red flag), if known."""
    value = int(value_cells[:10].argmax())  # (argmax, not flatnonzero: this runs per move)
    if value_cells[value] == 0:
        return None
    if value == 0:
        return 0
    return value + 9 if value_cells[10] > 0 else value


@dataclass(frozen=True)
class PaladinStyle:
    """The parameters of the rules above; the defaults are the classic heuristic."""

    contest_from: float = 6.0  # blind contest of the best mission with a card this strong (0–9.5)
    lead_quantile: float = 1.0  # which card leads: 1 the strongest, 0 the weakest, 0.5 a middle one
    overbid: bool = False  # answer known cards with the strongest winner, not the cheapest
    keep_from: int = 5  # take back a losing card of at least this value (0: always take back)
    keep_red: bool = True  # take back red cards whatever their value
    peek: bool = True  # look at a leader's card when allowed


#: Named styles (``heuristic:<name>``); each plays clearly differently from ``default``.
STYLES: dict[str, PaladinStyle] = {
    "default": PaladinStyle(),
    # contests blind only with a red 9, leads with its second tier, takes nearly every card back
    "cautious": PaladinStyle(contest_from=9.5, lead_quantile=0.75, keep_from=2),
    # always contests the best mission with its strongest card, overbids, never peeks and never
    # takes a card back
    "aggressive": PaladinStyle(contest_from=0.0, overbid=True, keep_from=10, keep_red=False,
                               peek=False),
    # leads with a middling card and keeps the strongest back; plays blind (no peeking)
    "sandbagger": PaladinStyle(lead_quantile=0.5, peek=False, keep_from=0),
}


class PaladinHeuristic(StyledAgent):
    """Rule-based Paladin agent (see the module docstring for the strategy and styles)."""

    STYLES = STYLES
    style: PaladinStyle

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = observation
        # (array methods rather than np.argmax / np.flatnonzero: this runs per opponent move)
        phase = int(LAYOUT.view(obs, "phase").argmax())
        if np.count_nonzero(action_mask) == 1:
            return int(action_mask.argmax())
        if phase == _PHASE["choose_start"]:
            return A.CHOOSE_START  # relative seat 0: the dealer itself
        if phase == _PHASE["resolve"]:
            return self._resolve(obs, action_mask)
        if phase == _PHASE["peek"]:
            return self._peek(obs, action_mask)
        return self._place(obs, action_mask, leading=phase == _PHASE["lead"])

    # -- decisions -------------------------------------------------------------------------------
    def _honours(self, obs: np.ndarray) -> np.ndarray:
        onehot = LAYOUT.view(obs, "mission_honour")
        return (onehot * np.arange(1, onehot.shape[1] + 1)).sum(axis=1)

    def _known_cards(self, obs: np.ndarray, mission: int) -> list[int]:
        """Kinds of other players' cards at a mission that the observer knows."""
        values = LAYOUT.view(obs, "slot_value")[mission]
        kinds = (_kind_of(values[seat]) for seat in range(1, values.shape[0]))
        return [k for k in kinds if k is not None]

    def _place(self, obs: np.ndarray, mask: np.ndarray, leading: bool) -> int:
        block = mask[A.PLACE : A.PEEK].reshape(NUM_KINDS, MAX_MISSIONS)
        kinds = block.any(axis=1).nonzero()[0].tolist()  # one numpy call each, not one a row
        missions = block.any(axis=0).nonzero()[0].tolist()
        honours = self._honours(obs)
        best = max(missions, key=lambda m: (honours[m], -m))
        strongest = max(kinds, key=_strength)
        style = self.style
        if leading:
            if style.lead_quantile >= 1.0:
                return A.place_id(strongest, best)
            ordered = sorted(kinds, key=_strength)
            return A.place_id(ordered[round(style.lead_quantile * (len(ordered) - 1))], best)
        known = self._known_cards(obs, best)
        if known:
            if 9 in known or 18 in known:
                # only a 0 beats a 9
                if 0 in kinds:
                    return A.place_id(0, best)
            else:
                winners = [k for k in kinds if all(beats(k, c) for c in known)]
                if winners:
                    pick = max if style.overbid else min
                    return A.place_id(pick(winners, key=_strength), best)
        elif _strength(strongest) >= style.contest_from:
            return A.place_id(strongest, best)
        worst = min(missions, key=lambda m: (honours[m], m))
        weakest = min(kinds, key=_strength)
        return A.place_id(weakest, worst)

    def _peek(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if not self.style.peek and mask[A.NO_PEEK]:
            return A.NO_PEEK
        honours = self._honours(obs)
        slots = LAYOUT.view(obs, "slot")
        known = LAYOUT.view(obs, "slot_value").any(axis=2)  # [mission, seat]
        placed = slots[:, 0, _PRESENT] > 0
        best_action, best_key = A.NO_PEEK, None
        for action in mask[A.PEEK : A.NO_PEEK].nonzero()[0].tolist():
            mission, rel = divmod(action, A.MAX_PLAYERS - 1)
            seat = rel + 1
            if placed[mission] or known[mission, seat]:
                continue  # already placed there, or already known
            # prefer valuable missions, then the earliest card (the leader)
            key = (honours[mission], -slots[mission, seat, _ORDER])
            if best_key is None or key > best_key:
                best_action, best_key = A.PEEK + int(action), key
        return best_action

    def _resolve(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if mask[A.BEAT]:
            return A.BEAT
        resolving = LAYOUT.view(obs, "resolving_card")
        mission = int(np.flatnonzero(resolving[:, 0])[0])
        kind = _kind_of(LAYOUT.view(obs, "slot_value")[mission, 0])
        style = self.style
        if kind is not None and (KIND_VALUE[kind] >= style.keep_from
                                 or (style.keep_red and KIND_RED[kind])):
            return A.TAKE_BACK
        return A.DISCARD
