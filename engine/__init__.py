"""Shengji rules engine: pure, no I/O (RULES.md).

The door (OpenSpiel-like): a :class:`~engine.match.MatchState` owns the current
:class:`~engine.hand.HandState`; both take an ``Action`` (``Deal``, ``Show``, ``Pass``,
``Bury``, ``Play``, ``Redeal``) and answer questions, so a caller re-derives no rule:

- ``apply(action) -> list[Event]``: change the state or raise
  :class:`~engine.errors.IllegalAction` (a ``reason`` code; the state is unchanged).
  The events (:mod:`engine.events`: dealt, declared / reinforced / overturned,
  the dealer's team checked (joker_declare: can it declare, 叫不起), trump from the
  kitty, kitty taken, buried, play started, throw failed (attempted, forced play,
  penalty), played, trick won (winner, points, running points), hand settled (the
  result), match won; ``start_next_hand()`` returns hand started,
  ``check_time_limit()`` match won by time) are public facts, to render moments
  from; ``events.EVENTS`` serialises them.
- ``check(action)`` raises the reason, ``is_legal(action)`` says yes or no; neither
  copies nor changes the state.
- ``next_actor() -> ToAct``: who or what must act next: ``deal`` (the system deals;
  a pace), ``window`` (the after-deal window: the seats that have not passed; a
  deadline passes them all), ``bury`` / ``chaodi`` / ``play`` (one seat's turn),
  ``hand_over`` (hand), ``next_hand`` / ``match_over`` (match).
- ``cards_to_play(seat)``: how many cards a seat must put down now (8 to bury, the
  lead's size to follow, None for a lead): ``== 1`` is the one-tap follow.
- ``public_observation() -> PublicView``: what anyone at the table may see (hand
  number, level, both teams' levels, ``teams`` / ``defenders`` / ``defends(seat)``,
  dealer, trump once set, shows and what each did, ``dealer_team_can_declare``
  (joker_declare, after the deal), stake ``multiplier``, cards left
  per seat, ``dealt`` / ``deal_total``, tricks with the current one's ``winning``
  seat and ``last_trick`` (winner, points), ``attackers_points`` (penalties
  included), ``points_after(n)`` / ``counts_after(n)`` for a past moment,
  ``failed_throws``, the kitty when public (``revealed_kitty`` and ``kitty_card``
  when nobody declared; ``kitty`` once the hand is over), ``result``,
  ``match_winner`` / ``ended_by_time``, ``to_act``).
- ``observation(seat) -> Observation``: the public view plus the seat's own cards,
  the kitty if it buried it, ``show_options``, ``can_pass``, ``can_redeal``.

Small ints get names: :data:`~engine.cards.Card` (``0..53``) and
:data:`~engine.seats.Seat` (``0..3``; seats 0+2 are team 0).
"""
