"""duplicate_eval's bridge to a player of an earlier commit (bench/old_player.py): the
player of the committed tree, run through the bridge in its own process, makes exactly
the moves today's player makes in process, random stream included."""

from __future__ import annotations

import pytest

from bench.duplicate_eval import deal_pair, load, play
from bench.old_player import OldPlayer, export
from engine.rules import RuleSet

# the committed search player, every part on (declaring, bury, card play, endgame)
SPEC = "search,declare=1,bury=1,budget_ms=3"


@pytest.fixture(scope="module")
def bridge() -> OldPlayer:
    player = load(f"old:HEAD:{SPEC}")
    assert isinstance(player, OldPlayer)
    return player


def test_the_export_holds_the_commits_engine_and_not_the_work_tree() -> None:
    target = export("HEAD")
    assert (target / "engine" / "hand.py").is_file()
    assert not (target / "bot").exists()
    assert target.name != "HEAD"  # cached by the full commit id


@pytest.mark.parametrize("seed", [7, 11])
def test_the_bridge_plays_a_hand_exactly_as_the_player_in_process(
    bridge: OldPlayer, seed: int
) -> None:
    rules = RuleSet.from_preset("classic")
    here = load(SPEC)
    alone = play(rules, seed, [here, here], batch=3, preset="classic")
    mixed = play(rules, seed, [bridge, here], batch=3, preset="classic")
    assert mixed.log == alone.log  # every deal batch, show, pass, bury and play
    assert mixed.result == alone.result


def test_the_same_player_through_the_bridge_scores_exactly_zero(bridge: OldPlayer) -> None:
    row = deal_pair((f"old:HEAD:{SPEC}", SPEC, None, "classic", 3, 3))
    seed, defending, attacking = row[:3]
    assert seed == 3 and defending + attacking == 0


def test_a_stopped_old_player_is_an_error_not_a_hang(bridge: OldPlayer) -> None:
    rules = RuleSet.from_preset("classic")
    broken = OldPlayer("HEAD", "no-such-player", None)
    with pytest.raises(RuntimeError, match="stopped"):
        play(rules, 5, [broken, load(SPEC)], batch=25, preset="classic")
    broken.close()
