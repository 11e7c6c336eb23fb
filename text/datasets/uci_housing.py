"""``UCIHousing``: the Boston housing table (``housing.data``, 14 whitespace
separated numbers a row).  The 13 features are centred on their mean and
divided by their range over the whole file; the first 80% of the rows are
'train', the rest 'test'.  Items: features (float [13]) and the price (float
[1]), in the default dtype."""
import numpy as np

from ...io import Dataset
from ._common import default_dtype, locate

__all__ = []

URL = 'http://paddlemodels.bj.bcebos.com/uci_housing/housing.data'
MD5 = 'd4accdce7a25600298819f8e28e8d593'
FEATURE_NAMES = ['CRIM', 'ZN', 'INDUS', 'CHAS', 'NOX', 'RM', 'AGE', 'DIS', 'RAD', 'TAX',
                 'PTRATIO', 'B', 'LSTAT']
_COLUMNS = 14
_TRAIN_RATIO = 0.8


class UCIHousing(Dataset):
    def __init__(self, data_file=None, mode='train', download=True):
        if mode.lower() not in ('train', 'test'):
            raise AssertionError(f"mode should be 'train' or 'test', but got {mode}")
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL, 'uci_housing', download, dataset='UCIHousing')
        self._load_data()
        self.dtype = default_dtype()

    def _load_data(self):
        values = np.fromfile(self.data_file, sep=' ')
        if values.size % _COLUMNS:
            raise ValueError(f"{self.data_file}: expected rows of {_COLUMNS} numbers, got "
                             f"{values.size} numbers in all")
        table = values.reshape(-1, _COLUMNS)
        top, bottom = table.max(axis=0), table.min(axis=0)
        mean = table.sum(axis=0) / table.shape[0]
        for c in range(_COLUMNS - 1):
            table[:, c] = (table[:, c] - mean[c]) / (top[c] - bottom[c])
        cut = int(table.shape[0] * _TRAIN_RATIO)
        self.data = table[:cut] if self.mode == 'train' else table[cut:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)
