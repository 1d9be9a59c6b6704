from bot.service.game import system_seed
from tests.e2e.harness import fixed_seeds


def test_by_default_a_game_is_dealt_from_the_systems_randomness():
    seeds = {system_seed() for _ in range(20)}
    assert len(seeds) > 1 and all(0 <= s < 2**31 for s in seeds)


def test_the_e2e_seed_source_deals_game_after_game_from_fixed_seeds():
    source = fixed_seeds(7)
    assert [source(), source(), source()] == [7, 8, 9]
