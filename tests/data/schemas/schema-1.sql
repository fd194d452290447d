BEGIN TRANSACTION;
CREATE TABLE events (
                match_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                type TEXT NOT NULL,
                version INTEGER NOT NULL,
                client_id TEXT UNIQUE,
                body TEXT NOT NULL,
                PRIMARY KEY (match_id, seq)
            ) WITHOUT ROWID;
INSERT INTO "events" VALUES('1fb2aadef20c',0,'new_match',1,'m2','{"at":"2026-11-20T21:00:00+00:00","first_dealer":"Ann","game":"cribbage","match_id":"1fb2aadef20c","options":{},"players":["Ann","Bob"],"seq":0,"series":{"kind":"single","n":1},"stake":1,"teams":null,"type":"new_match"}');
INSERT INTO "events" VALUES('1fb2aadef20c',1,'peg',1,'b1','{"at":"2026-11-20T21:00:00+00:00","points":7,"seq":1,"side":"p1","type":"peg"}');
INSERT INTO "events" VALUES('32268da6742f',0,'new_match',1,NULL,'{"at":"2026-11-20T21:00:00+00:00","first_dealer":"Player 2","game":"lands-end","match_id":"32268da6742f","options":{},"players":["Player 1","Player 2"],"seq":0,"series":{"kind":"single","n":1},"stake":1,"teams":null,"type":"new_match"}');
INSERT INTO "events" VALUES('91c9058c7304',0,'new_match',1,'m1','{"at":"2026-11-20T21:00:00+00:00","first_dealer":"Bob","game":"lands-end","match_id":"91c9058c7304","options":{},"players":["Ann","Bob"],"seq":0,"series":{"kind":"single","n":1},"stake":2,"teams":null,"type":"new_match"}');
INSERT INTO "events" VALUES('91c9058c7304',1,'peg',1,'a0','{"at":"2026-11-20T21:00:00+00:00","points":5,"seq":1,"side":"p1","type":"peg"}');
INSERT INTO "events" VALUES('91c9058c7304',2,'peg',1,'a1','{"at":"2026-11-20T21:00:00+00:00","points":3,"seq":2,"side":"p2","type":"peg"}');
INSERT INTO "events" VALUES('91c9058c7304',3,'peg',1,'a2','{"at":"2026-11-20T21:00:00+00:00","points":4,"seq":3,"side":"p1","type":"peg"}');
INSERT INTO "events" VALUES('91c9058c7304',4,'peg',1,'a3','{"at":"2026-11-20T21:00:00+00:00","points":9,"seq":4,"side":"p2","type":"peg"}');
INSERT INTO "events" VALUES('91c9058c7304',5,'undo',1,'u1','{"at":"2026-11-20T21:00:00+00:00","seq":5,"type":"undo","undoes":4}');
INSERT INTO "events" VALUES('91c9058c7304',6,'peg',1,'out','{"at":"2026-11-20T21:00:00+00:00","points":13,"seq":6,"side":"p2","type":"peg"}');
CREATE TABLE matches (
                ord INTEGER PRIMARY KEY AUTOINCREMENT,
                match_id TEXT NOT NULL UNIQUE
            );
INSERT INTO "matches" VALUES(1,'32268da6742f');
INSERT INTO "matches" VALUES(2,'91c9058c7304');
INSERT INTO "matches" VALUES(3,'1fb2aadef20c');
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('matches',3);
COMMIT;
