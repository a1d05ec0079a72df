"""Write the input tables of tests/data/cli_models/ (run once; see README.md).

The model files beside them were then written by the commands of commands.txt
with the CLI of commit 2c914e0: do not regenerate those.
"""

import csv
import datetime
import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

N = 160
HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)


def main():
    rng = np.random.default_rng(20260512)
    s = rng.normal(size=N).round(2) + 0.0  # ties
    pos = rng.random(N) < 1 / (1 + np.exp(-2 * s))
    folds = rng.integers(0, 4, N)
    w = rng.integers(0, 4, N)
    codings = {
        "y_text": ("yes", "no"),
        "y_int": ("1", "-1"),
        "y_01": ("01", "00"),
        "y_bool": ("True", "false"),
        "y_float": ("1.0", "0"),
        "y_date": ("2020-01-02", "2020-01-01"),
        "y_big": ("12345678901234567891", "12345678901234567890"),
        "y_huge": ("123456789012345678901234567891", "123456789012345678901234567890"),
    }
    header = ["id", "score", *codings, "fold", "w", "note"]
    rows = []
    for i in range(N):
        labels = [c[0] if pos[i] else c[1] for c in codings.values()]
        note = "" if i % 7 == 0 else f"n,{i}" if i % 11 == 0 else f"n{i}"
        rows.append([i, repr(float(s[i])), *labels, int(folds[i]), int(w[i]), note])
    write(os.path.join(HERE, "cal.csv"), header, rows)
    os.makedirs(os.path.join(HERE, "parts"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "pq"), exist_ok=True)
    for k, (a, b) in enumerate([(0, 70), (70, 71), (71, N)]):
        part = os.path.join(HERE, "parts", f"p{k}.csv")
        write(part, header, rows[a:b])
        pq.write_table(pcsv.read_csv(part), os.path.join(HERE, "pq", f"p{k}.parquet"))
    days = [datetime.date(2020, 1, 1 + int(p)) for p in pos]
    typed = pa.table({
        "score": s,
        "y_bool": pa.array(pos),
        "y_int": pa.array(np.where(pos, 1, 0), pa.int32()),
        "y_date": pa.array(days, pa.date32()),
        "fold": pa.array(folds, pa.int64()),
        "w": pa.array(w.astype(float)),
    })
    pq.write_table(typed, os.path.join(HERE, "typed.parquet"))
    t = rng.normal(size=40).round(3)
    test = [[i, repr(float(t[i])) if i % 9 else "", *(repr(float(t[i] + d)) for d in (0.01, -0.02, 0.03, 0.0))]
            for i in range(40)]
    write(os.path.join(HERE, "test.csv"), ["id", "score", "s0", "s1", "s2", "s3"], test)


if __name__ == "__main__":
    main()
