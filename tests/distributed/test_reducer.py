"""The gradient reducer without MPI: a fake communicator of 2 identical ranks
records when each bucket starts (relative to the backward's nodes) and sums
by doubling, so the averaged gradients must equal the local ones."""
import numpy as np
import pytest

import sampan as paddle
from sampan.dygraph import tape
from sampan.distributed.reducer import Reducer


class FakeComm:
    size = 2

    def __init__(self):
        self.log = []

    def iallreduce(self, buf):
        self.log.append(("start", buf.size))
        buf *= 2                         # the other rank holds the same gradient
        return _Req()

    def wait(self, req, what):
        self.log.append(("wait", what))


class _Req:
    def Test(self):
        return True


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(4, 8)
        self.b = paddle.nn.Linear(8, 8)
        self.c = paddle.nn.Linear(8, 2)

    def forward(self, x):
        return self.c(paddle.tanh(self.b(paddle.tanh(self.a(x)))))


def _reducer(net, comm, mb=1e-9, find_unused=False):
    params = list(net.parameters())
    return Reducer(params, comm, int(mb * 2**20) or 1, int(mb * 2**20) or 1, find_unused)


def test_buckets_start_in_backward_order_and_average():
    paddle.seed(0)
    net, x = Net(), paddle.randn([3, 4])
    ref = Net()
    ref.set_state_dict(net.state_dict())
    ref(x).sum().backward()
    comm = FakeComm()
    r = _reducer(net, comm)            # one parameter per bucket
    seen = []
    out = net(x)
    r.prepare([out])
    assert tape.WALK_HOOK[0] is not None
    out.sum().backward()
    assert tape.WALK_HOOK[0] is None           # disarmed when the backward ended
    starts = [e for e in comm.log if e[0] == "start"]
    assert [s[1] for s in starts] == [2, 16, 8, 64, 8, 32]   # c.b, c.w, b.b, b.w, a.b, a.w
    assert r.early == 6
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)


def test_gradient_after_the_bucket_left_is_an_error():
    net, x = Net(), paddle.randn([3, 4])
    r = _reducer(net, FakeComm())
    out = net(x)
    r.prepare([out])
    loss = out.sum() + (net.a.weight * net.a.weight).sum() * 0   # a use outside forward...
    extra = (paddle.tanh(net.a.weight)).sum()                     # ...recorded after it
    (loss + extra).backward()          # a.weight's oldest consumer is in forward: fine
    r.prepare([net(x)])
    pre = (net.a.weight * 2).sum()     # recorded BEFORE this forward's nodes
    out = net(x)
    r.prepare([out])
    with pytest.raises(RuntimeError, match="got more gradient after its bucket"):
        (out.sum() + pre).backward()
    r.disarm()


def test_unused_parameters():
    net, x = Net(), paddle.randn([3, 4])
    r = _reducer(net, FakeComm())
    h = paddle.tanh(net.a(x))
    r.prepare([h])
    with pytest.raises(RuntimeError, match=r"find_unused_parameters=True"):
        h.sum().backward()
    r.disarm()
    net.clear_gradients(set_to_zero=False)
    r = _reducer(net, FakeComm(), find_unused=True)
    h = paddle.tanh(net.a(x))
    r.prepare([h])
    h.sum().backward()
    assert np.all(net.c.weight.grad.numpy() == 0) and net.a.weight.grad is not None


def test_no_hook_no_cost():
    assert tape.WALK_HOOK[0] is None
    calls = []
    tape.WALK_HOOK[0] = lambda node, leaves: calls.append(node)
    try:
        x = paddle.randn([2, 2])
        x.stop_gradient = False
        (x * 3).sum().backward()
        assert calls[-1] is None and len(calls) == 3       # 2 nodes, then the end
        paddle.grad((x * 3).sum(), x)                      # sampan.grad writes no .grad
        assert len(calls) == 3
    finally:
        tape.WALK_HOOK[0] = None
