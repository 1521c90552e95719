"""White Knight's event kinds: what the engine records in its log, and how each reads.

Why this module exists: the rules only store raw numbers as events happen
(``log.add((log.step, K_…, to, *values))``, see :mod:`roundtable.envs.core.events`); names and
sentences are built only when an event is read. The kinds, their decoders and their sentence
builders are declared here once, apart from the rules that emit them
(:mod:`~roundtable.envs.white_knight.engine`,
:mod:`~roundtable.envs.white_knight.turn`, :mod:`~roundtable.envs.white_knight.battle`). A
:class:`~roundtable.envs.core.events.Twin` has a public form (what every seat sees) and a private
one (the cards, for the seat that knows). """

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roundtable.envs.core.events import SEAT, Spec, Twin, seat_list
from roundtable.envs.core.text import plural
from roundtable.envs.white_knight.cards import ATTACK_NAMES, MONSTER_NAMES, TREASURE_NAMES


# -- event texts, built only when an event is read (see roundtable.envs.core.events)
# -------------------------
def _dealt_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} was dealt {' '.join(d['hand'])}"


def _join_card_text(d: dict[str, Any]) -> str:
    card = d["card"]
    return (f"{SEAT[d['player']]} joined face down with {card}" if card
            else f"{SEAT[d['player']]} stayed out")


def _pass_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} passed" + (" (no cards left)" if d["forced"] else "")


def _joined_text(d: dict[str, Any]) -> str:
    players, stayed = d["players"], d["stayed_out"]
    text = f"{seat_list(players)} joined the battle" if players else "nobody joined the battle"
    return text + (f"; {seat_list(stayed)} stayed out" if stayed else "")


def _reveal_text(d: dict[str, Any]) -> str:
    cards = "; ".join(f"{seat} {' '.join(c)}" for seat, c in d["cards"].items())
    return (f"the committed cards were revealed: {cards}; total {d['total']} against "
            f"{d['monster']}'s HP {d['hp']}")


def _offer_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} was passed " + ", ".join(
        f"{count}× {name}" for name, count in d["treasures"].items())


def _not_defeated_text(d: dict[str, Any]) -> str:
    return (f"{d['monster']} was not defeated and hit {seat_list(d['players'])} for "
            f"{d['attack']} HP")


def _retired_text(d: dict[str, Any]) -> str:
    return (f"{SEAT[d['player']]} fell to 0 HP and retired; hand "
            f"{' '.join(d['hand']) or '(empty)'} discarded face up")


# -- event kinds: raw values in, names decoded when read (see roundtable.envs.core.events)
# -----------------
def attack_list(counts: Sequence[int]) -> list[str]:
    return [ATTACK_NAMES[k] for k, c in enumerate(counts) for _ in range(c)]


EV_DRAW = Twin(Spec("draw", "player_{player} drew an attack card", ("player", "forced")),
               Spec("draw_card", "player_{player} drew {card}", ("player", "card")),
               ("player", "forced", "card"),
               lambda p, forced, card: {"player": p, "forced": forced, "card": ATTACK_NAMES[card]})
EV_JOIN = Twin(Spec("join_decided", "player_{player} chose face down whether to join",
                    ("player",)),
               Spec("join_card", _join_card_text, ("player", "card")), ("player", "card"),
               lambda p, card: {"player": p, "card": ATTACK_NAMES[card] if card >= 0 else None})
EV_RAISE = Twin(Spec("raise", "player_{player} raised with a card face down", ("player", "cards")),
                Spec("raise_card", "player_{player} raised with {card}", ("player", "card")),
                ("player", "cards", "card"),
                lambda p, n, card: {"player": p, "cards": n, "card": ATTACK_NAMES[card]})
EV_PASS = Spec("pass", _pass_text, ("player", "forced"))
EV_MONSTER = Spec("monster", lambda d: f"{SEAT[d['player']]} drew {d['monster']} (HP {d['hp']}, "
                  f"attack {d['attack']}, {plural(d['chests'], 'chest')}, {d['vp']} VP)",
                  ("player", "monster", "hp", "attack", "chests", "vp"),
                  lambda p, m, hp, attack, chests, vp: {
                      "player": p, "monster": MONSTER_NAMES[m], "hp": hp, "attack": attack,
                      "chests": chests, "vp": vp})
EV_JOINED = Spec("joined", _joined_text, ("players", "stayed_out"),
                 lambda players, order: {"players": list(players),
                                         "stayed_out": [s for s in order if s not in players]})
EV_REVEAL = Spec("reveal", _reveal_text, ("cards", "total", "hp", "monster"),
                 lambda seats, counts, total, hp, m: {
                     "cards": {SEAT[s]: attack_list(c) for s, c in zip(seats, counts)},
                     "total": total, "hp": hp, "monster": MONSTER_NAMES[m]})
EV_DEFEATED = Spec("defeated", lambda d: f"{d['monster']} was defeated; {SEAT[d['mvp']]} was MVP "
                   f"and took it ({d['vp']} VP); {plural(d['treasures'], 'treasure')} "
                   "for the draft",
                   ("monster", "mvp", "vp", "treasures"),
                   lambda m, mvp, vp, n: {"monster": MONSTER_NAMES[m], "mvp": mvp, "vp": vp,
                                          "treasures": n})
EV_OFFER = Spec("draft_offer", _offer_text, ("player", "treasures"),
                lambda p, packet: {"player": p, "treasures": {
                    TREASURE_NAMES[k]: n for k, n in enumerate(packet) if n}})
EV_DRAFT = Spec("draft", "player_{player} kept {treasure}", ("player", "treasure", "forced"),
                lambda p, kind, forced: {"player": p, "treasure": TREASURE_NAMES[kind],
                                         "forced": forced})
EV_HAND = Spec("hand", _dealt_text, ("player", "hand"),
               lambda p, counts: {"player": p, "hand": attack_list(counts)})
EV_DEAL = Spec("deal", "every player holds {hand_size} attack cards; city durability {city}; "
               "player_{start} was chosen to draw first", ("hand_size", "city", "start"))
EV_HEAL = Spec("heal", "player_{player} used {item}: now at {hp} HP", ("player", "item", "hp"),
               lambda p, kind, hp: {"player": p, "item": TREASURE_NAMES[kind], "hp": hp})
EV_NOBODY_COULD_JOIN = Spec("nobody_could_join",
                            "nobody could join the battle (no attack cards in any hand)", ())
EV_ITEM_DAMAGE = Spec("item_damage",
                      "player_{player} used {item} for {amount} damage; total {total}",
                      ("player", "item", "amount", "total"),
                      lambda p, kind, amount, total: {"player": p, "item": TREASURE_NAMES[kind],
                                                      "amount": amount, "total": total})
EV_CITY_DAMAGE = Spec("city_damage", "{monster} attacked the city for {attack}; city durability "
                      "{city}", ("monster", "attack", "city"),
                      lambda m, attack, city: {"monster": MONSTER_NAMES[m], "attack": attack,
                                               "city": city})
EV_NOT_DEFEATED = Spec("not_defeated", _not_defeated_text, ("monster", "attack", "players"),
                       lambda m, attack, players: {"monster": MONSTER_NAMES[m], "attack": attack,
                                                   "players": list(players)})
EV_RETIRED = Spec("retired", _retired_text, ("player", "hand"),
                  lambda p, counts: {"player": p, "hand": attack_list(counts)})
# Their numbers, as the hot path stores them: ``log.add((log.step, number, to, *values))``
K_DRAW, K_JOIN, K_RAISE, K_PASS = EV_DRAW.number, EV_JOIN.number, EV_RAISE.number, EV_PASS.number
K_MONSTER, K_JOINED, K_REVEAL = EV_MONSTER.number, EV_JOINED.number, EV_REVEAL.number
K_DEFEATED, K_OFFER, K_DRAFT = EV_DEFEATED.number, EV_OFFER.number, EV_DRAFT.number
