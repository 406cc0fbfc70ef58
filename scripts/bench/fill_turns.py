"""Fill a ragger database for the search benchmarks (search.sh, mcp.sh).

  fill_turns.py seed DB          one real turn, to be embedded by `ragger reembed`
  fill_turns.py fill DB SIZE     random turns up to id SIZE: raw text and a
                                 random unit turn vector each (kind `turn`,
                                 the model id of the seed's vector)

Search ranks raw turns (keywords and turn vectors) and the summaries above
them, so the turns carry the text and the vectors. The seed turn is the one
the benchmark query must find.
"""
import sqlite3
import sys

import numpy as np

WORDS = np.array("""backup disk database lock timeout query index vector search summary session project deploy
kubernetes pod error retry network latency cache memory thread rust python function test build release version
config file path folder permission restore log rotate cron schedule model embedding token batch meeting budget""".split())


def seed(db):
    c = sqlite3.connect(db)
    c.execute("INSERT INTO sessions (id, external_id, project, first_at, last_at, created_at) VALUES (1, 'bench', 'p', 0, 0, 0)")
    c.execute("INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens) VALUES "
              "(1, 1, 0, 0, 'Why did the nightly backup fail last night?', "
              "'The backup disk was full, so the nightly job stopped.', 0)")
    c.commit()


def fill(db, target):
    c = sqlite3.connect(db)
    c.execute("PRAGMA synchronous=OFF")
    row = c.execute("SELECT model, dim FROM embeddings WHERE kind = 'turn' LIMIT 1").fetchone()
    if row is None:
        sys.exit("fill_turns.py: the seed turn has no turn vector (did `ragger reembed` run?)")
    model, dim = row
    have = c.execute("SELECT max(id) FROM turns").fetchone()[0]
    rng = np.random.default_rng(have)
    chunk = 20000
    for start in range(have + 1, target + 1, chunk):
        ids = range(start, min(start + chunk, target + 1))
        v = rng.standard_normal((len(ids), dim), dtype=np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        user = [" ".join(rng.choice(WORDS, 8)) for _ in ids]
        asst = [" ".join(rng.choice(WORDS, 12)) for _ in ids]
        c.executemany("INSERT INTO turns (id, session_id, at, captured_at, user_text, assistant_text, tokens)"
                      " VALUES (?, 1, ?, 0, ?, ?, 0)", ((i, i, u, a) for i, u, a in zip(ids, user, asst)))
        c.executemany("INSERT INTO embeddings VALUES ('turn', ?, 1, ?, ?, ?, 0)",
                      ((i, model, dim, r.astype('<f4').tobytes()) for i, r in zip(ids, v)))
        c.commit()
    c.execute("INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')")
    c.commit()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "seed":
        seed(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "fill":
        fill(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
