"""Record what real Paddle 2.6.2's paddle.text returns, for the tests of this
folder.  Run with the side venv (never collected by pytest):
    ~/.cache/sampan-interop/paddle-2.6.2/bin/python tests/interop/record_text.py
writes tests/text/fixtures/viterbi.npz (inputs and outputs of viterbi_decode)
and tests/text/fixtures/datasets.json (the datasets on the synthetic archives
of dataset_files.py), under PYTHONHASHSEED=0.  HOME points at a scratch folder
while it runs, so WMT16's dictionary cache goes there."""
import json
import os
import sys
import tempfile

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'text')
sys.path.insert(0, HERE)        # tests/text: its dataset_files.py and fixtures/
import dataset_files as files  # noqa: E402

if os.environ.get('PYTHONHASHSEED') != '0':
    # Movielens' and Conll05st's ids follow a str set's order: record them under a
    # fixed hash seed, which the tests reproduce in a subprocess
    os.execve(sys.executable, [sys.executable] + sys.argv,
              dict(os.environ, PYTHONHASHSEED='0'))

SCRATCH = tempfile.mkdtemp()
os.environ['HOME'] = SCRATCH      # before paddle fixes its DATA_HOME

import numpy as np  # noqa: E402
import paddle  # noqa: E402

# (batch, seq_len, num_tags, lengths or None, integer-valued (ties), dtype)
VITERBI_CASES = [
    (4, 5, 4, [5, 3, 1, 2], False, 'float32'),
    (3, 6, 5, None, False, 'float64'),
    (5, 4, 3, None, True, 'float32'),
    (6, 3, 4, [3, 0, 1, 2, 3, 0], True, 'float64'),
    (2, 7, 3, [4, 2], False, 'float32'),      # Path is [2, 4]: max(lengths) < seq_len
    (3, 1, 3, [1, 1, 1], True, 'float32'),
]


def record_viterbi():
    rng = np.random.default_rng(2024)
    out = {'n': np.array(len(VITERBI_CASES))}
    for k, (b, t, n, lengths, ints, dt) in enumerate(VITERBI_CASES):
        if ints:
            x = rng.integers(-1, 2, (b, t, n)).astype(dt)
            tr = rng.integers(-1, 2, (n, n)).astype(dt)
        else:
            x = rng.standard_normal((b, t, n)).astype(dt)
            tr = rng.standard_normal((n, n)).astype(dt)
        if lengths is None:
            lengths = rng.integers(1, t + 1, b)
            lengths[0] = t
        lengths = np.asarray(lengths, 'int64')
        out[f'{k}_x'], out[f'{k}_trans'], out[f'{k}_len'] = x, tr, lengths
        for inc in (True, False):
            s, p = paddle.text.viterbi_decode(paddle.to_tensor(x), paddle.to_tensor(tr),
                                              paddle.to_tensor(lengths), inc)
            out[f'{k}_{int(inc)}_scores'], out[f'{k}_{int(inc)}_path'] = s.numpy(), p.numpy()
    np.savez(os.path.join(HERE, 'fixtures', 'viterbi.npz'), **out)


def enc(a):
    a = np.asarray(a)
    return {'dtype': a.dtype.name, 'shape': list(a.shape), 'data': a.tolist()}


def enc_key(k):
    return ['bytes', k.decode('latin-1')] if isinstance(k, bytes) else ['str', k]


def enc_dict(d):
    return [enc_key(k) + [v] for k, v in d.items()]


def dump(ds, extra=None):
    rec = {'len': len(ds), 'items': [[enc(a) for a in ds[i]] for i in range(len(ds))]}
    rec.update(extra or {})
    return rec


def record_datasets():
    T = paddle.text
    rec = {}
    with tempfile.TemporaryDirectory() as tmp:
        p = files.uci_file(tmp)
        for mode in ('train', 'test'):
            rec[f'uci_{mode}'] = dump(T.UCIHousing(data_file=p, mode=mode))
        p = files.imdb_file(tmp)
        for mode, cutoff in (('train', 1), ('test', 2)):
            ds = T.Imdb(data_file=p, mode=mode, cutoff=cutoff)
            rec[f'imdb_{mode}'] = dump(ds, {'word_idx': enc_dict(ds.word_idx)})
        p = files.imikolov_file(tmp)
        for key, kw in (('ngram3_train', dict(data_type='NGRAM', window_size=3)),
                        ('ngram2_test', dict(data_type='NGRAM', window_size=2, mode='test')),
                        ('seq_train', dict(data_type='SEQ')),
                        ('seq5_test', dict(data_type='SEQ', window_size=5, mode='test'))):
            ds = T.Imikolov(data_file=p, min_word_freq=1, **kw)
            rec[f'imikolov_{key}'] = dump(ds, {'word_idx': enc_dict(ds.word_idx)})
        p = files.movielens_file(tmp)
        for mode in ('train', 'test'):
            ds = T.Movielens(data_file=p, mode=mode, test_ratio=0.3, rand_seed=3)
            rec[f'movielens_{mode}'] = dump(ds, {
                'movie_title_dict': enc_dict(ds.movie_title_dict),
                'categories_dict': enc_dict(ds.categories_dict)})
        kw = files.conll05_files(tmp)
        ds = T.Conll05st(**kw)
        rec['conll05'] = dump(ds, {'label_dict': enc_dict(ds.label_dict),
                                   'word_dict': enc_dict(ds.word_dict),
                                   'predicate_dict': enc_dict(ds.predicate_dict)})
        p = files.wmt14_file(tmp)
        for mode, size in (('train', 8), ('test', 20), ('gen', 5)):
            ds = T.WMT14(data_file=p, mode=mode, dict_size=size)
            src, trg = ds.get_dict()
            rec[f'wmt14_{mode}'] = dump(ds, {'src_dict': enc_dict(src),
                                             'trg_dict': enc_dict(trg)})
        p = files.wmt16_file(tmp)
        os.makedirs(os.path.join(SCRATCH, '.cache', 'paddle', 'dataset', 'wmt16'), exist_ok=True)
        for mode, src, trg, lang in (('train', 10, 12, 'en'), ('test', 9, 30, 'de'),
                                     ('val', 3, 2, 'en')):
            ds = T.WMT16(data_file=p, mode=mode, src_dict_size=src, trg_dict_size=trg,
                         lang=lang)
            rec[f'wmt16_{mode}'] = dump(ds, {'src_dict': enc_dict(ds.src_dict),
                                             'trg_dict': enc_dict(ds.trg_dict)})
    with open(os.path.join(HERE, 'fixtures', 'datasets.json'), 'w') as f:
        json.dump(rec, f, sort_keys=True)


if __name__ == '__main__':
    os.makedirs(os.path.join(HERE, 'fixtures'), exist_ok=True)
    record_viterbi()
    record_datasets()
    print('recorded into', os.path.join(HERE, 'fixtures'))
