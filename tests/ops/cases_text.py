"""Op-spec cases: viterbi_decode (no gradient), with and without the start /
stop tags, lengths shorter than the sequence; the reference searches every
tag path."""
import itertools

import numpy as np

from .spec import Case, rand


def _viterbi_ref(Input, Transition, Length, attrs):
    include = attrs.get("include_bos_eos_tag", True)
    n = Transition.shape[0]
    width = int(Length.max())
    scores = np.zeros(len(Length), Input.dtype)
    paths = np.zeros((len(Length), width), np.int64)
    for b, length in enumerate(Length):
        best = None
        for path in itertools.product(range(n), repeat=int(length)):
            s = sum(Input[b, t, k] for t, k in enumerate(path))
            s += sum(Transition[i, j] for i, j in zip(path, path[1:]))
            if include:
                s += Transition[n - 1, path[0]] + Transition[n - 2, path[-1]]
            if best is None or s > best[0]:
                best = (s, path)
        scores[b] = best[0]
        paths[b, :length] = best[1]
    return scores, paths


def _case(include, lengths, seed):
    return Case("viterbi_decode",
                {"Input": rand(len(lengths), 4, 3, seed=seed),
                 "Transition": rand(3, 3, seed=seed + 1),
                 "Length": np.array(lengths, np.int64)},
                {} if include else {"include_bos_eos_tag": False},
                ref=_viterbi_ref, grad=False,
                id=f"viterbi_decode_{'tags' if include else 'plain'}_{seed}")


CASES = [
    _case(True, [4, 2, 1], seed=30),
    _case(False, [4, 3, 1], seed=32),
    _case(True, [3, 1], seed=34),      # Path is [2, 3]: max(Length) < seq_len
]
