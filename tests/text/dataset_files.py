"""Small synthetic archives in the formats Paddle's text datasets read, built
deterministically into a folder.  Shared by the tests and by tests/interop/record_text.py
(which runs real Paddle on the same files); imports nothing of sampan or paddle."""
import gzip
import io
import os
import tarfile
import zipfile

import numpy as np

_WORDS = ("the a movie film good bad great awful plot actor story music long short fun "
          "dull boring superb scene ending").split()


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    tar.addfile(info, io.BytesIO(data))


def uci_file(tmp):
    rng = np.random.default_rng(11)
    table = np.round(rng.uniform(0, 100, (23, 14)), 3)
    path = os.path.join(tmp, 'housing.data')
    with open(path, 'w') as f:
        for row in table:
            f.write(' ' + ' '.join(f'{v:.3f}' for v in row) + '\n')
    return path


def imdb_file(tmp):
    rng = np.random.default_rng(12)
    path = os.path.join(tmp, 'aclImdb_v1.tar.gz')
    punct = ['', ',', '.', '!', "'s", '']
    with tarfile.open(path, 'w:gz') as tar:
        _add(tar, 'aclImdb/README', b'not a review\n')
        for mode in ('train', 'test'):
            for kind in ('neg', 'pos'):      # neg first in the archive: items put pos first
                for k in range(3):
                    n = int(rng.integers(4, 12))
                    words = [str(rng.choice(_WORDS)) + punct[int(rng.integers(0, 6))]
                             for _ in range(n)]
                    words = [w.upper() if rng.random() < 0.2 else w for w in words]
                    text = ' '.join(words) + ('\r\n' if k == 1 else '\n')
                    _add(tar, f'aclImdb/{mode}/{kind}/{k}_{int(rng.integers(1, 10))}.txt',
                         text.encode())
        _add(tar, 'aclImdb/train/unsup/0_0.txt', b'unsupervised words only\n')
    return path


def imikolov_file(tmp):
    # seed 14: no word is as frequent as <s> (Paddle cannot sort that str-bytes tie)
    rng = np.random.default_rng(14)
    path = os.path.join(tmp, 'simple-examples.tgz')
    vocab = _WORDS[:12] + ['<unk>', 'N']

    def lines(n):
        out = []
        for _ in range(n):
            k = int(rng.integers(1, 9))
            out.append(' ' + ' '.join(str(rng.choice(vocab)) for _ in range(k)) + ' \n')
        return ''.join(out).encode()
    with tarfile.open(path, 'w:gz') as tar:
        for part, n in (('train', 7), ('valid', 3), ('test', 4)):
            _add(tar, f'./simple-examples/data/ptb.{part}.txt', lines(n))
    return path


def movielens_file(tmp):
    rng = np.random.default_rng(14)
    path = os.path.join(tmp, 'ml-1m.zip')
    genres = ['Action', 'Comedy', 'Drama', "Children's", 'Sci-Fi', 'Film-Noir']
    titles = ['Toy Story (1995)', 'The Big Sleep (1946)', 'Alien (1979)',
              'Heat (1995)', 'Sleep Alien Story (2000)', 'Caf\xe9 Noir (1950)']
    movies = ''.join(
        f"{i + 1}::{t}::{'|'.join(rng.choice(genres, int(rng.integers(1, 4)), replace=False))}\n"
        for i, t in enumerate(titles))
    ages = [1, 18, 25, 35, 45, 50, 56]
    users = ''.join(f"{u}::{'MF'[int(rng.integers(0, 2))]}::{ages[int(rng.integers(0, 7))]}::"
                    f"{int(rng.integers(0, 21))}::{10000 + u}\n" for u in range(1, 6))
    ratings = ''.join(f"{int(rng.integers(1, 6))}::{int(rng.integers(1, 7))}::"
                      f"{int(rng.integers(1, 6))}::{978300760 + r}\n" for r in range(40))
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('ml-1m/README', 'synthetic')
        z.writestr('ml-1m/movies.dat', movies.encode('latin-1'))
        z.writestr('ml-1m/users.dat', users.encode('latin-1'))
        z.writestr('ml-1m/ratings.dat', ratings.encode('latin-1'))
    return path


# two sentences: 6 words with predicates 'eat' and 'give'; 4 words with one predicate
_CONLL = [
    (['John', 'ate', 'the', 'cake', 'and', 'gave'],
     [['-', '(A0*)', '(A0*)'], ['eat', '(V*)', '*'], ['-', '(A1*', '*'], ['-', '*)', '*'],
      ['-', '*', '*'], ['give', '*', '(V*)']]),
    (['Mary', 'runs', 'fast', '.'],
     [['-', '(A0*)'], ['run', '(V*)'], ['-', '(AM-MNR*)'], ['-', '*']]),
    (['Rain', 'fell'],
     [['-', '(A1*)'], ['fall', '(V*)']]),
]


def conll05_files(tmp):
    words, props = [], []
    for sent, cols in _CONLL:
        for w, c in zip(sent, cols):
            words.append(w + '\n')
            props.append(' '.join(c) + '\n')
        words.append('\n')
        props.append('\n')
    data = os.path.join(tmp, 'conll05st-tests.tar.gz')
    with tarfile.open(data, 'w:gz') as tar:
        _add(tar, 'conll05st-release/test.wsj/words/test.wsj.words.gz',
             gzip.compress(''.join(words).encode(), mtime=0))
        _add(tar, 'conll05st-release/test.wsj/props/test.wsj.props.gz',
             gzip.compress(''.join(props).encode(), mtime=0))
    files = {'word_dict_file': ('wordDict.txt', ['<unk>', 'John', 'ate', 'the', 'cake', 'and',
                                                 'Mary', 'runs', '.', 'bos', 'eos', 'fell']),
             'verb_dict_file': ('verbDict.txt', ['eat', 'give', 'run', 'fall']),
             'target_dict_file': ('targetDict.txt', ['B-A0', 'I-A0', 'B-A1', 'I-A1', 'B-V',
                                                     'I-V', 'B-AM-MNR', 'I-AM-MNR', 'O']),
             'emb_file': ('emb', ['0.1 0.2'])}
    out = {'data_file': data}
    for key, (name, lines) in files.items():
        out[key] = os.path.join(tmp, name)
        with open(out[key], 'w') as f:
            f.write(''.join(x + '\n' for x in lines))
    return out


def wmt14_file(tmp):
    rng = np.random.default_rng(15)
    path = os.path.join(tmp, 'wmt14.tgz')
    src_vocab = ['<s>', '<e>', '<unk>'] + 'le la un une chat chien mange voit'.split()
    trg_vocab = ['<s>', '<e>', '<unk>'] + 'the a cat dog eats sees house'.split()

    def corpus(n, long_line=False):
        out = []
        for _ in range(n):
            s = ' '.join(rng.choice(src_vocab[3:] + ['maison'], int(rng.integers(1, 6))))
            t = ' '.join(rng.choice(trg_vocab[3:] + ['tree'], int(rng.integers(1, 6))))
            out.append(f'{s}\t{t}\n')
        out.insert(1, 'no tab on this line\n')
        if long_line:
            out.append(' '.join(['chat'] * 79) + '\tthe cat\n')
            out.append('chat chat\t' + ' '.join(['cat'] * 80) + '\n')
        return ''.join(out).encode()
    with tarfile.open(path, 'w:gz') as tar:
        _add(tar, 'wmt14/src.dict', ''.join(w + '\n' for w in src_vocab).encode())
        _add(tar, 'wmt14/trg.dict', ''.join(w + '\n' for w in trg_vocab).encode())
        _add(tar, 'wmt14/train/train', corpus(6, long_line=True))
        _add(tar, 'wmt14/test/test', corpus(3))
        _add(tar, 'wmt14/gen/gen', corpus(2))
    return path


def wmt16_file(tmp):
    rng = np.random.default_rng(16)
    path = os.path.join(tmp, 'wmt16.tar.gz')
    en = 'a man dog runs in the park two women sit on bench'.split()
    de = 'ein mann hund rennt im park zwei frauen sitzen auf bank der'.split()

    def corpus(n):
        out = []
        for _ in range(n):
            e = ' '.join(rng.choice(en, int(rng.integers(2, 7))))
            d = ' '.join(rng.choice(de, int(rng.integers(2, 7))))
            out.append(f'{e}\t{d}\n')
        out.insert(2, 'broken line without a tab\n')
        return ''.join(out).encode()
    with tarfile.open(path, 'w:gz') as tar:
        _add(tar, 'wmt16/train', corpus(12))
        _add(tar, 'wmt16/test', corpus(3))
        _add(tar, 'wmt16/val', corpus(3))
    return path
