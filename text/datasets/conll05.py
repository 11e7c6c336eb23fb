"""``Conll05st``: the CoNLL-2005 semantic role labelling test set (WSJ part) as
Paddle distributes it: a tar.gz holding
``conll05st-release/test.wsj/words/test.wsj.words.gz`` (one word a line) and
``.../props/test.wsj.props.gz`` (a line per word: the predicate column, then
one bracketed argument column per predicate), sentences ended by a blank
line; plus three dictionaries (one entry a line, the id its line number) and
the embedding file (only its path is kept).

A sentence with k predicates gives k items.  Item: word ids; the ids of the
words two before, one before, at, one after, two after the predicate ('bos'
/ 'eos' past the ends), each repeated over the sentence; the predicate id
repeated; the 0/1 mark of that five-word window; the label ids (IOB tags).
Unknown words are id 0.  Label ids number ``B-tag``, ``I-tag`` pairs in the
order a Python ``set`` of the dictionary's tags iterates (Paddle's
construction, hash-seed dependent in Paddle as here), then ``O``.
"""
import gzip
import tarfile

import numpy as np

from ...io import Dataset
from ._common import locate

__all__ = []

DATA_URL = 'http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz'
DATA_MD5 = '387719152ae52d60422c016e92a742fc'
WORDDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt'
WORDDICT_MD5 = 'ea7fb7d4c75cc6254716f0177a506baa'
VERBDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt'
VERBDICT_MD5 = '0d2977293bbb6cbefab5b0f97db1e77c'
TRGDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt'
TRGDICT_MD5 = 'd8c7f03ceb5fc2e5a0fa7503a4353751'
EMB_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2Femb'
EMB_MD5 = 'bf436eb0faa1f6f9103017f8be57cdb7'
UNK_IDX = 0
_WORDS = 'conll05st-release/test.wsj/words/test.wsj.words.gz'
_PROPS = 'conll05st-release/test.wsj/props/test.wsj.props.gz'


def iob_tags(column):
    """One argument column of a props block ('(A0*', '*', '*)', '(V*)') as IOB tags."""
    tags, tag, inside = [], 'O', False
    for cell in column:
        if cell == '*':
            tags.append('I-' + tag if inside else 'O')
        elif cell == '*)':
            tags.append('I-' + tag)
            inside = False
        elif '(' in cell:
            tag = cell[1:cell.find('*')]
            tags.append('B-' + tag)
            inside = ')' not in cell
        else:
            raise RuntimeError(f"Conll05st: unexpected label {cell!r} in {_PROPS}")
    return tags


class Conll05st(Dataset):
    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None,
                 target_dict_file=None, emb_file=None, download=True):
        def find(path, url, what):
            return locate(path, url, 'conll05st', download, what=what, dataset='Conll05st')
        self.data_file = find(data_file, DATA_URL, 'data_file')
        self.word_dict_file = find(word_dict_file, WORDDICT_URL, 'word_dict_file')
        self.verb_dict_file = find(verb_dict_file, VERBDICT_URL, 'verb_dict_file')
        self.target_dict_file = find(target_dict_file, TRGDICT_URL, 'target_dict_file')
        self.emb_file = find(emb_file, EMB_URL, 'emb_file')
        self.word_dict = self._load_dict(self.word_dict_file)
        self.predicate_dict = self._load_dict(self.verb_dict_file)
        self.label_dict = self._load_label_dict(self.target_dict_file)
        self._load_anno()

    @staticmethod
    def _load_dict(filename):
        with open(filename, 'r') as f:
            return {line.strip(): i for i, line in enumerate(f)}

    @staticmethod
    def _load_label_dict(filename):
        tags = set()
        with open(filename, 'r') as f:
            for line in f:
                line = line.strip()
                if line.startswith(('B-', 'I-')):
                    tags.add(line[2:])
        d = {}
        for tag in tags:
            d['B-' + tag] = len(d)
            d['I-' + tag] = len(d)
        d['O'] = len(d)
        return d

    def _load_anno(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with tarfile.open(self.data_file) as tar, \
                gzip.GzipFile(fileobj=tar.extractfile(_WORDS)) as words, \
                gzip.GzipFile(fileobj=tar.extractfile(_PROPS)) as props:
            sentence, rows = [], []
            for word, cells in zip(words, props):
                word, cells = word.strip().decode(), cells.strip().decode().split()
                if cells:
                    sentence.append(word)
                    rows.append(cells)
                    continue
                if not rows:
                    raise ValueError(f"Conll05st: an empty sentence (two blank lines in a "
                                     f"row) in {_PROPS}")
                columns = [[r[i] for r in rows] for i in range(len(rows[0]))]
                verbs = [v for v in columns[0] if v != '-']
                for i, column in enumerate(columns[1:]):
                    self.sentences.append(sentence)
                    self.predicates.append(verbs[i])
                    self.labels.append(iob_tags(column))
                sentence, rows = [], []

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        v = labels.index('B-V')
        mark = [0] * len(labels)
        context = []
        for off, pad in ((-2, 'bos'), (-1, 'bos'), (0, None), (1, 'eos'), (2, 'eos')):
            j = v + off
            if 0 <= j < len(labels):
                mark[j] = 1
                context.append(sentence[j])
            else:
                context.append(pad)
        wd = self.word_dict
        word_idx = [wd.get(w, UNK_IDX) for w in sentence]
        ctx = [[wd.get(w, UNK_IDX)] * n for w in context]
        pred_idx = [self.predicate_dict.get(predicate)] * n
        label_idx = [self.label_dict.get(t) for t in labels]
        return (np.array(word_idx), *(np.array(c) for c in ctx), np.array(pred_idx),
                np.array(mark), np.array(label_idx))

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        return self.emb_file
