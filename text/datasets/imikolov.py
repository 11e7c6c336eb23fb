"""``Imikolov``: the Penn Treebank text of Mikolov's simple-examples archive
(``./simple-examples/data/ptb.{train,valid,test}.txt`` in a tgz).

The vocabulary counts the words of ptb.train.txt and ptb.valid.txt, read as
bytes, plus one ``'<s>'`` and one ``'<e>'`` (str) per line; words seen more
than ``min_word_freq`` times, most frequent first (ties by spelling), then
the str key ``'<unk>'`` (the corpus's own ``b'<unk>'`` token is an ordinary
word, as in Paddle).  ``mode`` picks ptb.train.txt or ptb.test.txt.

Items: 'NGRAM' - every window of ``window_size`` ids of ``<s> line <e>``, a
tuple of 0-d int64 arrays; 'SEQ' - (``<s> line``, ``line <e>``) as int64
arrays, lines whose source is longer than a positive ``window_size`` left out.
"""
import collections
import tarfile

import numpy as np

from ...io import Dataset
from ._common import locate

__all__ = []

URL = 'https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz'
MD5 = '30177ea32e27c525793142b6bf2c8e2d'


def _member(tar, name):
    """The member ``name`` (Paddle's names start with './'; accept either spelling)."""
    bare = name[2:] if name.startswith('./') else name
    for candidate in (name, bare, './' + bare):
        try:
            return tar.extractfile(candidate)
        except KeyError:
            pass
    raise KeyError(f"{tar.name}: no member {name}")


def _sort_key(item):
    word, count = item
    # '<s>' / '<e>' are str, corpus words bytes: compare both as bytes (the same
    # order Paddle's sort gives wherever it does not fail on a str-bytes tie)
    return -count, word.encode() if isinstance(word, str) else word


class Imikolov(Dataset):
    def __init__(self, data_file=None, data_type='NGRAM', window_size=-1, mode='train',
                 min_word_freq=50, download=True):
        if data_type.upper() not in ('NGRAM', 'SEQ'):
            raise AssertionError(f"data type should be 'NGRAM', 'SEQ', but got {data_type}")
        self.data_type = data_type.upper()
        if mode.lower() not in ('train', 'test'):
            raise AssertionError(f"mode should be 'train', 'test', but got {mode}")
        self.mode = mode.lower()
        self.window_size = window_size
        self.min_word_freq = min_word_freq
        self.data_file = locate(data_file, URL, 'imikolov', download, dataset='Imikolov')
        self.word_idx = self._build_work_dict(min_word_freq)
        self._load_anno()

    @staticmethod
    def word_count(f, word_freq=None):
        if word_freq is None:
            word_freq = collections.defaultdict(int)
        for line in f:
            for w in line.strip().split():
                word_freq[w] += 1
            word_freq['<s>'] += 1
            word_freq['<e>'] += 1
        return word_freq

    def _build_work_dict(self, cutoff):
        with tarfile.open(self.data_file) as tar:
            counts = self.word_count(_member(tar, './simple-examples/data/ptb.train.txt'))
            counts = self.word_count(_member(tar, './simple-examples/data/ptb.valid.txt'),
                                     counts)
        counts.pop('<unk>', None)
        kept = sorted(((w, n) for w, n in counts.items() if n > cutoff), key=_sort_key)
        if not kept:
            raise ValueError(f"Imikolov: no word of {self.data_file} occurs more than "
                             f"min_word_freq={cutoff} times: the vocabulary would be empty")
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx['<unk>'] = len(kept)
        return word_idx

    def _load_anno(self):
        self.data = []
        idx = self.word_idx
        unk = idx['<unk>']
        n = self.window_size
        with tarfile.open(self.data_file) as tar:
            for line in _member(tar, f'./simple-examples/data/ptb.{self.mode}.txt'):
                if self.data_type == 'NGRAM':
                    if n <= -1:
                        raise AssertionError('Invalid gram length')
                    words = ['<s>'] + line.strip().split() + ['<e>']
                    if len(words) >= n:
                        ids = [idx.get(w, unk) for w in words]
                        self.data.extend(tuple(ids[i - n:i]) for i in range(n, len(ids) + 1))
                else:
                    ids = [idx.get(w, unk) for w in line.strip().split()]
                    src, trg = [idx['<s>']] + ids, ids + [idx['<e>']]
                    if n > 0 and len(src) > n:
                        continue
                    self.data.append((src, trg))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
