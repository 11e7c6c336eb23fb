"""``WMT16``: the English-German Multi30k corpus Paddle distributes (a tar.gz
with ``wmt16/{train,test,val}``: ``english<TAB>german`` lines).

Dictionaries live where Paddle keeps them, ``DATA_HOME/wmt16/<lang>_<size>.dict``:
an existing file with exactly ``size`` lines is used as it is; otherwise one
is built from wmt16/train - ``<s>``, ``<e>``, ``<unk>``, then the words by
descending count (first occurrence first among equals) up to ``size`` lines -
and written there.  As in Paddle, both dictionaries are counted over the
column of the source language ``lang``.  Items (int64): source ids
``<s> ... <e>``, target ids ``<s> ...``, next-target ids ``... <e>``.
"""
import collections
import os
import tarfile

import numpy as np

from ...io import Dataset
from . import _common
from ._common import locate

__all__ = []

DATA_URL = 'http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz'
DATA_MD5 = '0c38be43600334966403524a40dcd81e'
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = '<s>', '<e>', '<unk>'


def dict_path(lang, size):
    return os.path.join(_common.DATA_HOME, 'wmt16', f'{lang}_{size}.dict')


class WMT16(Dataset):
    def __init__(self, data_file=None, mode='train', src_dict_size=-1, trg_dict_size=-1,
                 lang='en', download=True):
        if mode.lower() not in ('train', 'test', 'val'):
            raise AssertionError(f"mode should be 'train', 'test' or 'val', but got {mode}")
        self.mode = mode.lower()
        self.data_file = locate(data_file, DATA_URL, 'wmt16', download, dataset='WMT16')
        self.lang = lang
        if not (src_dict_size > 0 and trg_dict_size > 0):
            raise AssertionError('dict_size should be set as positive number')
        en = lang == 'en'
        self.src_dict_size = min(src_dict_size, TOTAL_EN_WORDS if en else TOTAL_DE_WORDS)
        self.trg_dict_size = min(trg_dict_size, TOTAL_DE_WORDS if en else TOTAL_EN_WORDS)
        self.src_dict = self._load_dict(lang, src_dict_size)
        self.trg_dict = self._load_dict('de' if en else 'en', trg_dict_size)
        self.data = self._load_data()

    def _load_dict(self, lang, dict_size, reverse=False):
        path = dict_path(lang, dict_size)
        found = False
        if os.path.exists(path):
            with open(path, 'rb') as f:
                found = len(f.readlines()) == dict_size
        if not found:
            self._build_dict(path, dict_size, lang)
        with open(path, 'rb') as f:
            words = [line.strip().decode() for line in f]
        if reverse:
            return dict(enumerate(words))
        return {w: i for i, w in enumerate(words)}

    def _build_dict(self, path, dict_size, lang):
        counts = collections.defaultdict(int)
        col = 0 if self.lang == 'en' else 1
        with tarfile.open(self.data_file, mode='r') as tar:
            for line in tar.extractfile('wmt16/train'):
                parts = line.decode().strip().split('\t')
                if len(parts) != 2:
                    continue
                for w in parts[col].split():
                    counts[w] += 1
        lines = [START_MARK, END_MARK, UNK_MARK]
        for i, (word, _) in enumerate(sorted(counts.items(), key=lambda wc: wc[1],
                                             reverse=True)):
            if i + 3 == dict_size:
                break
            lines.append(word)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f'{path}.tmp{os.getpid()}'
        with open(tmp, 'wb') as f:
            f.write(''.join(w + '\n' for w in lines).encode())
        os.replace(tmp, path)

    def _load_data(self):
        start, end, unk = (self.src_dict[m] for m in (START_MARK, END_MARK, UNK_MARK))
        src_col = 0 if self.lang == 'en' else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file, mode='r') as tar:
            for line in tar.extractfile(f'wmt16/{self.mode}'):
                parts = line.decode().strip().split('\t')
                if len(parts) != 2:
                    continue
                src = [self.src_dict.get(w, unk) for w in parts[src_col].split()]
                trg = [self.trg_dict.get(w, unk) for w in parts[1 - src_col].split()]
                self.src_ids.append([start] + src + [end])
                self.trg_ids.append([start] + trg)
                self.trg_ids_next.append(trg + [end])

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        size = self.src_dict_size if lang == self.lang else self.trg_dict_size
        path = dict_path(lang, size)
        if not os.path.exists(path):
            raise AssertionError(f"Word dictionary {path} does not exist.")
        return self._load_dict(lang, size, reverse)
