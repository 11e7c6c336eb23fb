"""paddle.metric's Metric classes against numbers recorded from Paddle 2.6.2
on the same seeded data (``EXPECTED``)."""
import numpy as np
import pytest

import sampan as paddle

EXPECTED = {
    'acc_update': [0.25, 0.5], 'acc_update2': [0.13333333333333333, 0.5333333333333333],
    'acc': [0.2, 0.5142857142857142], 'acc_name': ['acc_top1', 'acc_top3'], 'acc1': 0.25,
    'acc1_name': ['acc'], 'acc_onehot': 0.25, 'prec': 0.3076923076923077,
    'prec_name': 'precision', 'rec': 0.36363636363636365, 'rec_name': 'recall',
    'auc': 0.529, 'auc2': 0.5440363701194508, 'auc31': 0.5256000000000001,
    'auc_reset': 0.0, 'auc_name': 'auc'}


def _run():
    rs = np.random.RandomState(0)
    out = {}
    pred = rs.rand(20, 6).astype('float32')
    lab = rs.randint(0, 6, (20, 1)).astype('int64')
    m = paddle.metric.Accuracy(topk=(1, 3))
    out['acc_update'] = m.update(m.compute(paddle.to_tensor(pred), paddle.to_tensor(lab)))
    pred2 = rs.rand(15, 6).astype('float32')
    lab2 = rs.randint(0, 6, (15,)).astype('int64')
    out['acc_update2'] = m.update(m.compute(paddle.to_tensor(pred2), paddle.to_tensor(lab2)))
    out['acc'] = m.accumulate()
    out['acc_name'] = m.name()
    m1 = paddle.metric.Accuracy()
    out['acc1'] = m1.update(m1.compute(paddle.to_tensor(pred), paddle.to_tensor(lab)))
    out['acc1_name'] = m1.name()
    oh = np.eye(6, dtype='float32')[lab[:, 0]]
    out['acc_onehot'] = m1.update(m1.compute(paddle.to_tensor(pred), paddle.to_tensor(oh)))
    p = rs.rand(30).astype('float32')
    lb = rs.randint(0, 2, 30).astype('int64')
    pr = paddle.metric.Precision()
    pr.update(p, lb)
    pr.update(paddle.to_tensor(p[::-1].copy()), paddle.to_tensor(lb))
    out['prec'] = pr.accumulate()
    out['prec_name'] = pr.name()
    rc = paddle.metric.Recall()
    rc.update(p, lb)
    rc.update(paddle.to_tensor(p[::-1].copy()), paddle.to_tensor(lb))
    out['rec'] = rc.accumulate()
    out['rec_name'] = rc.name()
    probs = rs.rand(100, 1).astype('float32')
    preds = np.concatenate([1 - probs, probs], 1)
    labels = rs.randint(0, 2, (100, 1)).astype('int64')
    au = paddle.metric.Auc()
    au.update(preds, labels)
    out['auc'] = au.accumulate()
    au.update(paddle.to_tensor(preds[:50]), paddle.to_tensor(labels[50:]))
    out['auc2'] = au.accumulate()
    au2 = paddle.metric.Auc(num_thresholds=31)
    au2.update(preds, labels)
    out['auc31'] = au2.accumulate()
    au2.reset()
    out['auc_reset'] = au2.accumulate()
    out['auc_name'] = au2.name()
    return out


def test_metrics_match_paddle():
    got = _run()
    assert set(got) == set(EXPECTED)
    for k, v in EXPECTED.items():
        g = got[k]
        if isinstance(v, list) and v and isinstance(v[0], float):
            np.testing.assert_allclose([float(x) for x in g], v, rtol=1e-12, err_msg=k)
        elif isinstance(v, float):
            assert float(g) == pytest.approx(v, rel=1e-12), k
        else:
            assert g == v, k


def test_metric_base_is_abstract_and_compute_passes_through():
    with pytest.raises(TypeError):
        paddle.metric.Metric()

    class Count(paddle.metric.Metric):
        def __init__(self):
            super().__init__()
            self.n = 0

        def reset(self):
            self.n = 0

        def update(self, x):
            self.n += len(x)

        def accumulate(self):
            return self.n

        def name(self):
            return "count"

    c = Count()
    assert c.compute(1, 2) == (1, 2)
    c.update([1, 2, 3])
    assert c.accumulate() == 3
    c.reset()
    assert c.accumulate() == 0


def test_accuracy_reset_and_empty():
    m = paddle.metric.Accuracy(topk=(1, 2))
    assert m.accumulate() == [0.0, 0.0]
    correct = np.array([[1., 0.], [0., 1.], [0., 0.]], dtype="float32")
    assert m.update(paddle.to_tensor(correct)) == [1 / 3, 2 / 3]
    m.reset()
    assert m.total == [0.0, 0.0] and m.count == [0, 0]


def test_precision_recall_reject_lists():
    with pytest.raises(ValueError):
        paddle.metric.Precision().update([0.1], np.array([1]))
    with pytest.raises(ValueError):
        paddle.metric.Recall().update(np.array([0.1]), [1])
