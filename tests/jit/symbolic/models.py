"""A transformer block (pre-norm attention + MLP) with reshapes that merge
dims and a concat of one extra row: the model the symbolic-dims tests trace."""
import sampan as paddle
import sampan.nn.functional as F


class Block(paddle.nn.Layer):
    def __init__(self, d=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = paddle.nn.Linear(d, 3 * d)
        self.proj = paddle.nn.Linear(d, d)
        self.ln1 = paddle.nn.LayerNorm(d)
        self.ln2 = paddle.nn.LayerNorm(d)
        self.ff1 = paddle.nn.Linear(d, 4 * d)
        self.ff2 = paddle.nn.Linear(4 * d, d)
        self.cls = self.create_parameter([1, 8, d])

    def forward(self, x):
        d = x.shape[-1]
        h = self.ln1(x)
        q, k, v = paddle.split(self.qkv(h), 3, axis=-1)
        q, k, v = [t.reshape([0, 0, self.heads, d // self.heads]).transpose([0, 2, 1, 3])
                   for t in (q, k, v)]
        att = F.softmax(paddle.matmul(q, k, transpose_y=True) * 0.5, axis=-1)
        o = paddle.matmul(att, v).transpose([0, 2, 1, 3]).reshape([0, 0, d])
        x = x + self.proj(o)
        x = x + self.ff2(F.gelu(self.ff1(self.ln2(x))))
        flat = x.reshape([-1, d])                              # B*8 rows
        with_cls = paddle.concat([self.cls, x], axis=0)        # B+1 rows
        return flat, with_cls
