"""Small networks shared by the hapi tests and the real-Paddle recorder
(``tests/interop/record_hapi.py``): each builder takes the framework module
(``sampan`` or ``paddle``) so both sides build the same layers."""


def lenet(paddle):
    nn = paddle.nn

    class LeNet(nn.Layer):
        def __init__(self, num_classes=10):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

        def forward(self, x):
            x = self.features(x)
            x = paddle.flatten(x, 1)
            return self.fc(x)

    return LeNet()


def bn_cnn(paddle):
    nn = paddle.nn

    class BnCnn(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(3, 8, 3, padding=1, bias_attr=False)
            self.bn = nn.BatchNorm2D(8)
            self.act = nn.LeakyReLU(0.1)
            self.pool = nn.AvgPool2D(2)
            self.conv2 = nn.Conv2D(8, 4, 3, groups=4)
            self.gap = nn.AdaptiveAvgPool2D(1)
            self.drop = nn.Dropout(0.5)
            self.fc = nn.Linear(4, 5)
            self.fc.weight.stop_gradient = True   # a frozen parameter

        def forward(self, x):
            x = self.pool(self.act(self.bn(self.conv(x))))
            x = self.gap(self.conv2(x))
            return self.fc(self.drop(paddle.flatten(x, 1)))

    return BnCnn()


def two_inputs(paddle):
    nn = paddle.nn

    class TwoIn(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 4)
            self.b = nn.Linear(6, 4)
            self.out = nn.Linear(4, 2)

        def forward(self, x, y):
            return self.out(nn.functional.relu(self.a(x) + self.b(y)))

    return TwoIn()


def mlp(paddle):
    nn = paddle.nn
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))


def text_rnn(paddle):
    nn = paddle.nn

    class TextRNN(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 6)
            self.lstm = nn.LSTM(6, 5, num_layers=2)
            self.head = nn.Linear(5, 2)

        def forward(self, ids):
            out, (h, c) = self.lstm(self.emb(ids))
            return self.head(out[:, -1]), h

    return TextRNN()


def conv1d_net(paddle):
    nn = paddle.nn
    return nn.Sequential(nn.Conv1D(2, 4, 3), nn.ReLU6(), nn.AvgPool1D(2),
                         nn.Conv1DTranspose(4, 2, 3), nn.AdaptiveAvgPool1D(3), nn.Flatten(),
                         nn.Linear(6, 2))


# (name, builder, summary input_size, flops input_size)
CASES = [
    ("lenet", lenet, (1, 1, 28, 28), [1, 1, 28, 28]),
    ("lenet_batch_none", lenet, (None, 1, 28, 28), [2, 1, 28, 28]),
    ("bn_cnn", bn_cnn, (2, 3, 16, 16), [2, 3, 16, 16]),
    ("two_inputs", two_inputs, [(3, 8), (3, 6)], None),
    ("mlp", mlp, (5, 4), [5, 4]),
    ("conv1d", conv1d_net, (2, 2, 12), [2, 2, 12]),
]

# summary of a network taking int64 ids (dtypes="int64"); no flops (randn inputs)
INT_CASES = [("text_rnn", text_rnn, (3, 7))]
