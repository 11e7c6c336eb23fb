"""Recurrent models of the rnn tests, written as ordinary Paddle code over
``paddle`` (sampan here; the same source runs in real Paddle): a text
classifier (Embedding + 2-layer bidirectional LSTM + Linear), a GRU
seq2seq with dot-product attention (nn.GRU encoder, GRUCell decoder loop),
and a tagger over BiRNN(GRUCell, GRUCell) (a while op under to_static)."""
import numpy as np

VOCAB, EMB, HID, CLASSES = 30, 8, 12, 3
SRC_LEN, TGT_LEN, BATCH = 7, 5, 4


def build(paddle, name):
    nn, F = paddle.nn, paddle.nn.functional

    class TextClassifier(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, EMB)
            self.lstm = nn.LSTM(EMB, HID, num_layers=2, direction="bidirect")
            self.fc = nn.Linear(2 * HID, CLASSES)

        def forward(self, ids, lengths):
            out, (h, c) = self.lstm(self.emb(ids), sequence_length=lengths)
            feat = paddle.concat([h[-2], h[-1]], axis=-1)
            return self.fc(feat) + 0.0 * out.mean()

    class Seq2Seq(nn.Layer):
        def __init__(self):
            super().__init__()
            self.src_emb = nn.Embedding(VOCAB, EMB)
            self.tgt_emb = nn.Embedding(VOCAB, EMB)
            self.encoder = nn.GRU(EMB, HID)
            self.cell = nn.GRUCell(EMB + HID, HID)
            self.query = nn.Linear(HID, HID)
            self.out = nn.Linear(2 * HID, VOCAB)

        def forward(self, src, tgt_in):
            enc, h = self.encoder(self.src_emb(src))
            h = h[0]
            emb = self.tgt_emb(tgt_in)
            logits = []
            for t in range(TGT_LEN):
                score = paddle.matmul(enc, paddle.unsqueeze(self.query(h), -1))
                weights = F.softmax(paddle.squeeze(score, -1), axis=-1)
                ctx = paddle.squeeze(paddle.matmul(paddle.unsqueeze(weights, 1), enc), 1)
                o, h = self.cell(paddle.concat([emb[:, t], ctx], -1), h)
                logits.append(self.out(paddle.concat([o, ctx], -1)))
            return paddle.stack(logits, 1)

    class CellTagger(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, EMB)
            self.rnn = nn.BiRNN(nn.GRUCell(EMB, HID), nn.GRUCell(EMB, HID))
            self.fc = nn.Linear(2 * HID, CLASSES)

        def forward(self, ids, lengths):
            out, (h_fw, h_bw) = self.rnn(self.emb(ids), sequence_length=lengths)
            return self.fc(out).mean(1) + 0.1 * (h_fw - h_bw).mean(-1, keepdim=True)

    return {"text_classifier": TextClassifier, "seq2seq": Seq2Seq,
            "cell_tagger": CellTagger}[name]()


def data(name, step):
    rng = np.random.default_rng(100 + step)
    if name in ("text_classifier", "cell_tagger"):
        ids = rng.integers(0, VOCAB, (BATCH, SRC_LEN)).astype("int64")
        lengths = rng.integers(2, SRC_LEN + 1, (BATCH,)).astype("int64")
        label = rng.integers(0, CLASSES, (BATCH,)).astype("int64")
        return (ids, lengths), label
    src = rng.integers(0, VOCAB, (BATCH, SRC_LEN)).astype("int64")
    tgt = rng.integers(0, VOCAB, (BATCH, TGT_LEN + 1)).astype("int64")
    return (src, tgt[:, :-1]), tgt[:, 1:]


def input_spec(paddle, name):
    spec = paddle.static.InputSpec
    if name in ("text_classifier", "cell_tagger"):
        return [spec([None, SRC_LEN], "int64", "ids"), spec([None], "int64", "lengths")]
    return [spec([None, SRC_LEN], "int64", "src"), spec([None, TGT_LEN], "int64", "tgt_in")]


def loss_of(paddle, name, logits, label):
    F = paddle.nn.functional
    if name in ("text_classifier", "cell_tagger"):
        return F.cross_entropy(logits, paddle.to_tensor(label))
    return F.cross_entropy(paddle.reshape(logits, [-1, VOCAB]),
                           paddle.to_tensor(label.reshape(-1, 1)))
