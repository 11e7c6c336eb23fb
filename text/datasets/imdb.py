"""``Imdb``: the aclImdb sentiment archive (``aclImdb/{train,test}/{pos,neg}/*.txt``
in a tar.gz).  A document is its bytes with trailing newlines dropped, ASCII
punctuation deleted, lower-cased and split on whitespace.  The vocabulary
holds the words seen more than ``cutoff`` times over train and test, most
frequent first (ties by the word's bytes), then ``'<unk>'``.  Items, in
archive order, positives of the mode first: the word ids (int64 [n]) and the
label (int64 [1]: 0 positive, 1 negative)."""
import collections
import re
import string
import tarfile

import numpy as np

from ...io import Dataset
from ._common import locate

__all__ = []

URL = 'https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz'
MD5 = '7c2ac02c03563afcf9b574c7e56c153a'
_PUNCTUATION = string.punctuation.encode('latin-1')


def tokenize(raw):
    return raw.rstrip(b'\n\r').translate(None, _PUNCTUATION).lower().split()


class Imdb(Dataset):
    def __init__(self, data_file=None, mode='train', cutoff=150, download=True):
        if mode.lower() not in ('train', 'test'):
            raise AssertionError(f"mode should be 'train', 'test', but got {mode}")
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL, 'imdb', download, dataset='Imdb')
        self.word_idx = self._build_work_dict(cutoff)
        self._load_anno()

    def _documents(self, pattern):
        """The tokenized members whose names match ``pattern``, in archive order."""
        docs = []
        with tarfile.open(self.data_file) as tar:
            for member in tar:
                if pattern.match(member.name):
                    docs.append(tokenize(tar.extractfile(member).read()))
        return docs

    def _build_work_dict(self, cutoff):
        counts = collections.Counter()
        for doc in self._documents(re.compile(r'aclImdb/(train|test)/(pos|neg)/.*\.txt$')):
            counts.update(doc)
        kept = sorted(((w, n) for w, n in counts.items() if n > cutoff),
                      key=lambda wn: (-wn[1], wn[0]))
        if not kept:
            raise ValueError(f"Imdb: no word of {self.data_file} occurs more than "
                             f"cutoff={cutoff} times: the vocabulary would be empty")
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx['<unk>'] = len(kept)
        return word_idx

    def _load_anno(self):
        unk = self.word_idx['<unk>']
        self.docs, self.labels = [], []
        for label, kind in ((0, 'pos'), (1, 'neg')):
            pattern = re.compile(rf'aclImdb/{self.mode}/{kind}/.*\.txt$')
            for doc in self._documents(pattern):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self):
        return len(self.docs)
