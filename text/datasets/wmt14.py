"""``WMT14``: the French-English subset Paddle distributes (a tgz holding one
member ending ``src.dict``, one ending ``trg.dict`` - a word a line, its id
the line number, the first ``dict_size`` lines kept - and the corpus members
ending ``{mode}/{mode}``: ``source<TAB>target`` lines).  Pairs with more than
80 ids on a side are left out.  Items (int64): source ids ``<s> ... <e>``,
target ids ``<s> ...`` and the next-target ids ``... <e>``; unknown words are
id 2."""
import tarfile

import numpy as np

from ...io import Dataset
from ._common import locate

__all__ = []

URL_DEV_TEST = 'http://www-lium.univ-lemans.fr/~schwenk/cslm_joint_paper/data/dev+test.tgz'
MD5_DEV_TEST = '7d7897317ddd8ba0ae5c5fa7248d3ff5'
URL_TRAIN = 'http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz'
MD5_TRAIN = '0791583d57d5beb693b9414c5b36798c'
START, END, UNK = '<s>', '<e>', '<unk>'
UNK_IDX = 2
_MAX_LEN = 80


def _read_dict(f, size):
    out = {}
    for i, line in enumerate(f):
        if i >= size:
            break
        out[line.strip().decode()] = i
    return out


class WMT14(Dataset):
    def __init__(self, data_file=None, mode='train', dict_size=-1, download=True):
        if mode.lower() not in ('train', 'test', 'gen'):
            raise AssertionError(f"mode should be 'train', 'test' or 'gen', but got {mode}")
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL_TRAIN, 'wmt14', download, dataset='WMT14')
        if not dict_size > 0:
            raise AssertionError('dict_size should be set as positive number')
        self.dict_size = dict_size
        self._load_data()

    def _load_data(self):
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file, mode='r') as tar:
            names = [m.name for m in tar]

            def one(suffix):
                found = [n for n in names if n.endswith(suffix)]
                if len(found) != 1:
                    raise AssertionError(f"WMT14: expected one member ending '{suffix}' in "
                                         f"{self.data_file}, found {found}")
                return _read_dict(tar.extractfile(found[0]), self.dict_size)
            self.src_dict, self.trg_dict = one('src.dict'), one('trg.dict')
            corpus = f'{self.mode}/{self.mode}'
            for name in (n for n in names if n.endswith(corpus)):
                for line in tar.extractfile(name):
                    parts = line.decode().strip().split('\t')
                    if len(parts) != 2:
                        continue
                    words = [START] + parts[0].split() + [END]
                    src = [self.src_dict.get(w, UNK_IDX) for w in words]
                    trg = [self.trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
                    if len(src) > _MAX_LEN or len(trg) > _MAX_LEN:
                        continue
                    self.src_ids.append(src)
                    self.trg_ids.append([self.trg_dict[START]] + trg)
                    self.trg_ids_next.append(trg + [self.trg_dict[END]])

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        src, trg = self.src_dict, self.trg_dict
        if reverse:
            src = {v: k for k, v in src.items()}
            trg = {v: k for k, v in trg.items()}
        return src, trg
