PRAGMA user_version = 5;
BEGIN TRANSACTION;
CREATE TABLE chats (
        chat_id INTEGER PRIMARY KEY,
        settings TEXT NOT NULL
    );
INSERT INTO "chats" VALUES(-1003,'{"chat_id":-1003,"lang":"en","preset":"classic","start_level":0,"rules":{},"turn_seconds":null,"deal_pace":null,"computer_strength":null}');
INSERT INTO "chats" VALUES(-1002,'{"chat_id":-1002,"lang":"en","preset":"classic","start_level":12,"rules":{},"turn_seconds":null,"deal_pace":null,"computer_strength":null}');
INSERT INTO "chats" VALUES(-1001,'{"chat_id":-1001,"lang":"en","preset":"classic","start_level":0,"rules":{},"turn_seconds":null,"deal_pace":null,"computer_strength":null}');
CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        thread_id INTEGER,
        status TEXT NOT NULL,
        record TEXT NOT NULL,
        updated_at REAL NOT NULL
    , match TEXT);
INSERT INTO "games" VALUES(1,-1002,NULL,'running','{"id":1,"chat_id":-1002,"thread_id":null,"chat_title":"Mid-hand","creator_id":7001,"status":"running","lang":"en","preset":"classic","start_level":12,"rules":{},"turn_seconds":null,"deal_pace":null,"computer_strength":null,"seed":20240601,"seats":[{"user_id":7001,"name":"Alice","computer":false,"lang":"en","auto":false,"dm_failed":false,"selection":[],"hint":{"hand":1,"version":24,"cards":[39,40],"reason":{"kind":"duck","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},"why":null},{"user_id":7002,"name":"Bob","computer":false,"lang":"en","auto":false,"dm_failed":false,"selection":[],"hint":{"hand":1,"version":25,"cards":[40,44],"reason":{"kind":"follow_low_partner","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},"why":null},{"user_id":null,"name":"🤖 Computer","computer":true,"lang":null,"auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":null,"name":"🤖 Computer","computer":true,"lang":null,"auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null}],"created_at":1700000000.0280561,"started_at":1700000000.0436203,"hand_no":1,"paused":false,"group_gone":false}',1.79641486072854208947e+09,'{"rules":{"preset":"classic","permanent_twos":false,"kitty_multiplier":"linear","throw_penalty":"points_per_card","level_table":"classic","must_play":[],"match_end":"pass_a","time_limit_min":null,"start_level":12,"declare_with_joker":false,"later_declare":"anyone","overturn_suit_order":[0,1,2,3],"later_overturn":"chaodi","redeal":false},"seed":20240601,"levels":[12,12],"hand":{"rules":{"preset":"classic","permanent_twos":false,"kitty_multiplier":"linear","throw_penalty":"points_per_card","level_table":"classic","must_play":[],"match_end":"pass_a","time_limit_min":null,"start_level":12,"declare_with_joker":false,"later_declare":"anyone","overturn_suit_order":[0,1,2,3],"later_overturn":"chaodi","redeal":false},"hand_number":1,"seed":20240661729722,"levels":[12,12],"level":12,"phase":"playing","version":28,"deck":[29,46,10,20,41,27,3,10,32,37,25,26,34,49,47,43,23,45,51,0,30,28,8,52,22,12,17,46,38,1,51,42,33,48,19,37,53,14,21,21,49,35,12,48,39,18,27,17,45,4,6,41,7,15,2,24,47,40,43,50,40,1,11,9,0,16,52,29,16,22,53,15,20,18,6,50,8,7,39,13,5,33,44,19,4,9,35,34,36,38,14,2,11,44,36,26,30,31,31,28,42,32,13,3,23,24,5,25],"deal_start":0,"dealt":100,"hands":[[29,41,32,34,23,30,22,38,33,53,49,45,7,47,16,20,5,4,36,30],[46,27,37,49,45,28,12,48,14,35,18,15,16,22,18,7,33,9,38,31],[10,3,25,51,17,51,19,21,12,6,52,53,6,14,13,3,23,24,5,25],[20,26,43,52,46,42,21,48,17,41,24,29,15,13,19,34,2,26,28]],"kitty":[36,35,32,31,27,39,43,44],"declaring":{"rules":{"preset":"classic","permanent_twos":false,"kitty_multiplier":"linear","throw_penalty":"points_per_card","level_table":"classic","must_play":[],"match_end":"pass_a","time_limit_min":null,"start_level":12,"declare_with_joker":false,"later_declare":"anyone","overturn_suit_order":[0,1,2,3],"later_overturn":"chaodi","redeal":false},"level":12,"hand_number":1,"dealer":2,"trump":1,"trump_decided":true,"declarer":2,"strength":0,"reinforced":false,"overturns":0,"shows":[{"seat":2,"cards":[25],"kind":"declare"}],"from_kitty":false,"attackers_may_declare":false,"dealer_team_can_declare":null},"passes":[],"queue":[],"turn":0,"buried_by":2,"revealed_kitty":null,"redeals":0,"chaodi_started":false,"tricks":[{"leader":2,"plays":[{"seat":2,"cards":[11],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"lead_master","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"seat":3,"cards":[0],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"duck","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"seat":0,"cards":[8],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null},{"seat":1,"cards":[1],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null}],"winner":2,"points":20},{"leader":2,"plays":[{"seat":2,"cards":[2],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"lead_short","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"seat":3,"cards":[9],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"win_lead","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"seat":0,"cards":[11],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null},{"seat":1,"cards":[1],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null}],"winner":0,"points":10},{"leader":0,"plays":[{"seat":0,"cards":[0],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null},{"seat":1,"cards":[4],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null},{"seat":2,"cards":[8],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"win_cheap","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"seat":3,"cards":[10],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"win_cheap","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}}],"winner":3,"points":10},{"leader":3,"plays":[{"seat":3,"cards":[50,50],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"lead_master","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"seat":0,"cards":[39,40],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null},{"seat":1,"cards":[40,44],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":null},{"seat":2,"cards":[42,47],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"only_play","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}}],"winner":3,"points":35},{"leader":3,"plays":[{"seat":3,"cards":[37],"attempted":null,"beaten_by":null,"beaten_by_seat":null,"reason":{"kind":"lead_master","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}}],"winner":null,"points":0}],"trick_points":45,"penalty":0,"result":null,"log":[{"kind":"deal","n":20},{"kind":"deal","n":20},{"kind":"show","seat":2,"cards":[25]},{"kind":"deal","n":20},{"kind":"deal","n":20},{"kind":"deal","n":20},{"kind":"pass","seat":2},{"kind":"pass","seat":3},{"kind":"pass","seat":0},{"kind":"pass","seat":1},{"kind":"bury","seat":2,"cards":[36,35,32,31,27,39,43,44]},{"kind":"play","seat":2,"cards":[11],"reason":{"kind":"lead_master","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":3,"cards":[0],"reason":{"kind":"duck","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":0,"cards":[8],"reason":null},{"kind":"play","seat":1,"cards":[1],"reason":null},{"kind":"play","seat":2,"cards":[2],"reason":{"kind":"lead_short","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":3,"cards":[9],"reason":{"kind":"win_lead","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":0,"cards":[11],"reason":null},{"kind":"play","seat":1,"cards":[1],"reason":null},{"kind":"play","seat":0,"cards":[0],"reason":null},{"kind":"play","seat":1,"cards":[4],"reason":null},{"kind":"play","seat":2,"cards":[8],"reason":{"kind":"win_cheap","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":3,"cards":[10],"reason":{"kind":"win_cheap","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":3,"cards":[50,50],"reason":{"kind":"lead_master","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":0,"cards":[39,40],"reason":null},{"kind":"play","seat":1,"cards":[40,44],"reason":null},{"kind":"play","seat":2,"cards":[42,47],"reason":{"kind":"only_play","attacking":false,"trumps":false,"control":false,"best":null,"runner_up":null}},{"kind":"play","seat":3,"cards":[37],"reason":{"kind":"lead_master","attacking":true,"trumps":false,"control":false,"best":null,"runner_up":null}}]},"results":[],"winner":null,"ended_by_time":false}');
INSERT INTO "games" VALUES(2,-1003,NULL,'running','{"id":2,"chat_id":-1003,"thread_id":null,"chat_title":"Overturn","creator_id":7003,"status":"running","lang":"en","preset":"classic","start_level":0,"rules":{},"turn_seconds":null,"deal_pace":null,"computer_strength":null,"seed":20240602,"seats":[{"user_id":7003,"name":"Carol","computer":false,"lang":"en","auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":7004,"name":"Dan","computer":false,"lang":"en","auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":null,"name":"🤖 Computer","computer":true,"lang":null,"auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":null,"name":"🤖 Computer","computer":true,"lang":null,"auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null}],"created_at":1700000054.0354962,"started_at":1700000054.057477,"hand_no":1,"paused":false,"group_gone":false}',1.79641486082625412941e+09,'{"rules":{"preset":"classic","permanent_twos":false,"kitty_multiplier":"linear","throw_penalty":"points_per_card","level_table":"classic","must_play":[],"match_end":"pass_a","time_limit_min":null,"start_level":0,"declare_with_joker":false,"later_declare":"anyone","overturn_suit_order":[0,1,2,3],"later_overturn":"chaodi","redeal":false},"seed":20240602,"levels":[0,0],"hand":{"rules":{"preset":"classic","permanent_twos":false,"kitty_multiplier":"linear","throw_penalty":"points_per_card","level_table":"classic","must_play":[],"match_end":"pass_a","time_limit_min":null,"start_level":0,"declare_with_joker":false,"later_declare":"anyone","overturn_suit_order":[0,1,2,3],"later_overturn":"chaodi","redeal":false},"hand_number":1,"seed":20240662729725,"levels":[0,0],"level":0,"phase":"after_deal","version":8,"deck":[32,30,20,8,11,47,45,25,11,39,22,51,4,42,15,37,10,53,43,23,33,29,21,46,2,27,35,10,53,47,29,45,0,13,23,5,28,33,2,38,3,7,39,40,38,19,52,41,24,48,44,16,46,18,12,6,43,16,51,3,14,31,42,48,40,17,32,34,14,21,49,44,4,9,50,50,15,17,24,18,35,19,9,26,6,22,34,49,41,12,8,37,20,25,5,13,52,36,0,1,31,30,1,26,28,7,27,36],"deal_start":0,"dealt":100,"hands":[[32,11,11,4,10,33,2,53,0,28,3,38,24,46,43,14,40,14,4,15,35,6,41,20,52],[30,47,39,42,53,29,27,47,13,33,7,19,48,18,16,31,17,21,9,17,19,22,12,25,36],[20,45,22,15,43,21,35,29,23,2,39,52,44,12,51,42,32,49,50,24,9,34,8,5,0],[8,25,51,37,23,46,10,45,5,38,40,41,16,6,3,48,34,44,50,18,26,49,37,13,1]],"kitty":[31,30,1,26,28,7,27,36],"declaring":{"rules":{"preset":"classic","permanent_twos":false,"kitty_multiplier":"linear","throw_penalty":"points_per_card","level_table":"classic","must_play":[],"match_end":"pass_a","time_limit_min":null,"start_level":0,"declare_with_joker":false,"later_declare":"anyone","overturn_suit_order":[0,1,2,3],"later_overturn":"chaodi","redeal":false},"level":0,"hand_number":1,"dealer":2,"trump":3,"trump_decided":true,"declarer":2,"strength":0,"reinforced":false,"overturns":0,"shows":[{"seat":2,"cards":[39],"kind":"declare"}],"from_kitty":false,"attackers_may_declare":false,"dealer_team_can_declare":null},"passes":[2,3],"queue":[],"turn":null,"buried_by":null,"revealed_kitty":null,"redeals":0,"chaodi_started":false,"tricks":[],"trick_points":0,"penalty":0,"result":null,"log":[{"kind":"deal","n":20},{"kind":"deal","n":20},{"kind":"deal","n":20},{"kind":"show","seat":2,"cards":[39]},{"kind":"deal","n":20},{"kind":"deal","n":20},{"kind":"pass","seat":2},{"kind":"pass","seat":3}]},"results":[],"winner":null,"ended_by_time":false}');
INSERT INTO "games" VALUES(3,-1001,NULL,'lobby','{"id":3,"chat_id":-1001,"thread_id":null,"chat_title":"Lobby","creator_id":7002,"status":"lobby","lang":"en","preset":"classic","start_level":0,"rules":{},"turn_seconds":null,"deal_pace":null,"computer_strength":null,"seed":20240603,"seats":[{"user_id":7002,"name":"Bob","computer":false,"lang":"en","auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":7001,"name":"Alice","computer":false,"lang":"en","auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":null,"name":"","computer":false,"lang":null,"auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null},{"user_id":null,"name":"","computer":false,"lang":null,"auto":false,"dm_failed":false,"selection":[],"hint":null,"why":null}],"created_at":1700000078.10269,"started_at":null,"hand_no":0,"paused":false,"group_gone":false}',1.79641486085282373434e+09,NULL);
CREATE TABLE hand_players (
        hand_id INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        chat_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        defended INTEGER NOT NULL,
        won INTEGER NOT NULL,
        levels_gained INTEGER NOT NULL,
        PRIMARY KEY (hand_id, seat)
    );
CREATE TABLE hands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL,
        hand_no INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        attackers_points INTEGER NOT NULL,
        kitty_bonus INTEGER NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (game_id, hand_no)
    );
CREATE TABLE match_players (
        game_id INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        chat_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
CREATE TABLE matches (
        game_id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        winner INTEGER NOT NULL,
        record TEXT NOT NULL
    );
CREATE TABLE shown (
        chat_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        message_id INTEGER NOT NULL,
        digest TEXT,
        PRIMARY KEY (chat_id, key)
    );
INSERT INTO "shown" VALUES(-1002,'g1:lobby',6,'c4e7b202bfb838a6');
INSERT INTO "shown" VALUES(-1002,'g1:h1:table',7,'07f08e7e33d6b5a5');
INSERT INTO "shown" VALUES(7001,'g1:hand',3,'1f5b7e943d857171');
INSERT INTO "shown" VALUES(7002,'g1:hand',3,'54431fce7aea3625');
INSERT INTO "shown" VALUES(-1003,'g2:lobby',2,'2a38a8b6993dc610');
INSERT INTO "shown" VALUES(-1003,'g2:h1:table',3,'250044104435bc8b');
INSERT INTO "shown" VALUES(7003,'g2:hand',3,'b2f1370f504489f6');
INSERT INTO "shown" VALUES(7004,'g2:hand',3,'8a2d1d307b79c89d');
INSERT INTO "shown" VALUES(-1001,'g3:lobby',2,'c20aa96d19a49611');
CREATE INDEX games_open ON games(chat_id, thread_id, status);
CREATE INDEX hands_chat ON hands(chat_id, id);
CREATE INDEX hand_players_user ON hand_players(user_id, chat_id);
CREATE INDEX hand_players_chat ON hand_players(chat_id);
CREATE INDEX matches_chat ON matches(chat_id, finished_at);
CREATE INDEX match_players_user ON match_players(user_id, chat_id);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('games',3);
COMMIT;
